"""The seed question set: hand-written questions about the 71 seed abstracts and pairs of seed
papers a reader judges related. Used by the tests and by studies/small_corpora.py.

How they were written: by reading each abstract in seeds/ (never by looking at what any ranking
returns) and describing what the paper does in other words, as a researcher who has not read it
would ask: no method or dataset names, acronyms or the abstract's own distinctive phrases; common
words of the field ("graph", "language model", "reinforcement learning") are allowed. The first 13
questions were written earlier for the tests; the other 56 were added for issue 11, one per
remaining abstract that has a describable topic (every question has a distinct target).

PARAPHRASES: (query, a phrase that occurs only in the target abstract) -- the phrase finds the
target robustly whatever its id.
RELATED_PAIRS: (phrase of paper A, phrase of paper B, why a reader relates them) -- same topic or
same method, judged from the two abstracts alone.
"""

PARAPHRASES = [
    ("which recurrent layers with per-step diagonal transitions can follow the state of algebraic "
     "groups, and why non-commutative ones are out of reach for one layer",
     "input-Dependent Complex-valued Diagonal"),
    ("speeding up video synthesis with diffusion transformers by reusing intermediate features "
     "across denoising steps, no retraining needed",
     "Block-Wise Caching"),
    ("a retrieval tool that helps mathematicians find relevant lemmas in a proof assistant's "
     "library from informal descriptions",
     "We present Lean Finder"),
    ("spotting manipulated or synthesized faces produced by unseen forgery generators in the wild",
     "HydraFake"),
    ("finding the most probable joint labeling of an undirected graphical model whose variables "
     "only interact with a few neighbours",
     "Maximum A Posteriori (MAP) estimation"),
    ("computing how many edit operations separate two graphs by learning to pair up their nodes "
     "one at a time",
     "graph edit distance (GED)"),
    ("teams of cooperating language-model agents can be misled when false facts are planted "
     "in their workflow",
     "misinformation injection"),
    ("do video generators understand everyday physical plausibility? scoring them with the "
     "likelihood of their noise-prediction objective",
     "LikePhys"),
    ("benchmarking schemes that hide a detectable signature in machine-written text without "
     "shifting its output distribution",
     "UWBench"),
    ("do big pretrained networks really beat classical pipelines at decoding electroencephalography "
     "recordings for brain-computer interfaces",
     "generalizable EEG representations"),
    ("letting a voice assistant reason silently in between chunks of what it says aloud",
     "STITCH"),
    ("self-supervised pretraining for medical sonography images that respects organ structure",
     "Anatomy-aware Representation Learning"),
    ("extracting alpha mattes of arbitrary objects in video, including glass and smoke, from "
     "clicks or boxes",
     "Matting Anything 2"),
    ("getting coherent joint predictions out of set-conditioned meta-learning models without "
     "encoding the whole context again at every step",
     "causal autoregressive buffer"),
    ("sending information far across a graph by routing messages along several sampled trees "
     "instead of stacking many layers",
     "forest-based graph learning"),
    ("can a large language model imagine what will happen next on a computer screen for an "
     "agent, and does looking things up in how-to guides help it plan further ahead",
     "milestone transition recognition"),
    ("how well do multimodal language models read and produce measurements taken over time "
     "from many branches of science",
     "SciTS"),
    ("goal-reaching reinforcement learning whose value is an asymmetric distance, enforced by a "
     "differential equation over sampled states instead of along trajectories",
     "Eikonal"),
    ("training across many clients with few labels when the unlabeled examples include classes "
     "that never appear among the labeled ones",
     "FedOpenMatch"),
    ("a very large collection for understanding tables shown as pictures, keeping their real "
     "appearance and the data underneath",
     "VisualTableQA"),
    ("a benchmark for generating graphs that change over time and whose nodes and edges carry "
     "text",
     "GDGB"),
    ("step-by-step reasoning annotations for language models that act in three-dimensional "
     "scenes: seeing what is there, what it means and what to do",
     "Spatial Perception (what is there)"),
    ("one model that both interprets and creates pictures from any viewpoint by treating the "
     "camera's settings as if they were words",
     "camera as language"),
    ("does a court-verdict language model reach its judgment for the right reasons? measuring "
     "the interplay of input phrases behind its decision",
     "legal LLMs"),
    ("reasoning in hidden continuous tokens becomes unstable as their number grows; supervising "
     "each step keeps the training from collapsing",
     "SIM-CoT"),
    ("how much of a vision-language model's answer comes from truly combining picture and text "
     "rather than leaning on one of them, measured with information theory",
     "partial information decomposition"),
    ("replacing Gaussian policies for bounded continuous actions by sampling a direction on the "
     "sphere and a learned magnitude, cheaply",
     "Geometric Action Control"),
    ("predicting how strongly entities of a time-evolving network will interact next, where "
     "moving averages beat the neural models",
     "NAVIS"),
    ("provably getting back the few nonzero weights of a small two-layer rectifier network by "
     "repeatedly keeping only the largest entries",
     "iterative hard thresholding"),
    ("turning speech into tokens that line up with its transcript so that one model can both "
     "listen and talk",
     "Text-Aligned Speech Tokenization"),
    ("cutting the memory of stored attention keys and values during long generations by "
     "fetching only the entries needed",
     "LouisKV"),
    ("teaching a model with rewards to trust what it already knows when the passages it looked "
     "up are wrong or conflicting",
     "Knowledgeable-R1"),
    ("is thinking for longer always better? accuracy first rises then falls as the chain of "
     "reasoning grows",
     "inverted U-shaped curve"),
    ("producing synthetic tabular data with an in-context foundation model when columns barely "
     "depend on each other, by adding rank-matched noise columns",
     "MIAV"),
    ("data-parallel training that synchronises the weights and the optimizer's moment "
     "estimates on separate schedules to save bandwidth",
     "DES-LOC"),
    ("using a language model inside an evolutionary loop to write programs that spread points "
     "evenly for numerical integration",
     "star discrepancy"),
    ("learning to solve routing and scheduling problems for several vehicles or machines by "
     "imitating its own best solutions and assigning all agents at once",
     "agent-permutation symmetries"),
    ("reasoning models overthink easy questions; estimate how hard a problem is to decide how "
     "long to think",
     "DiffAdapt"),
    ("infrequent synchronisation in data-parallel training with several momentum terms that "
     "decay at different speeds",
     "MT-DAO"),
    ("a test of open-ended creative problem solving built from multi-step riddles that come "
     "without clear instructions",
     "PuzzleWorld"),
    ("step-by-step reasoning across pictures and text that models how the visual state changes "
     "along the way",
     "Uni-CoT"),
    ("how training choices such as patch size and the loss shape the hidden biases of "
     "pretrained forecasting models",
     "knobs"),
    ("upscaling a photo in a single sampling step with a flow model while letting the user "
     "trade faithfulness against realism",
     "OFTSR"),
    ("shrinking the visual tokens of long videos for vision-language models by retrieving the "
     "relevant clips and distilling with reinforcement learning",
     "Visual Memory Retriever"),
    ("finding the best proportions of training data sources while training only one small "
     "proxy model, as a two-level optimisation",
     "FastMix"),
    ("protecting personal photos from models that work out where they were taken through "
     "step-by-step reasoning",
     "ReasonBreak"),
    ("judging language models on questions about biology at the level of individual cells "
     "through a simulated cell",
     "SC-ARENA"),
    ("a spiking neuron whose branches combine inputs nonlinearly, so that one neuron can "
     "compute exclusive-or",
     "Dendritic LIF"),
    ("do the embedding spaces of language models hold an ordered hierarchy of concepts with "
     "meet and join operations",
     "concept lattice"),
    ("which solution does an adaptive optimiser that sees one example per step converge to on "
     "separable classification data",
     "incremental Adam"),
    ("compressing a hypergraph that arrives one hyperedge at a time while preserving its "
     "energy, in little memory",
     "insertion-only data streams"),
    ("continually forecasting sensor readings over a growing network of sensors while balancing "
     "stability and adaptability",
     "STBP"),
    ("a simulated smart house in which language-model agents control appliances and are "
     "evaluated",
     "SimuHome"),
    ("finding many different good solutions without cutting the behaviour space into cells, "
     "with a differentiable algorithm",
     "Soft QD"),
    ("parallel text generation by a masked diffusion model that decodes fixed-length chunks so "
     "that key-value caching works again",
     "ReFusion"),
    ("filling in missing node attributes of a graph when most of them are absent",
     "FSD-CAP"),
    ("generating sound from a written description that respects how sound events relate to "
     "each other",
     "AudioRelSet"),
    ("what is the best balance one can achieve between several fairness criteria and accuracy",
     "Pareto optimal trade-offs"),
    ("learning finite automata from positive strings plus labels of which symbols may come "
     "next",
     "Next Symbol Prediction"),
    ("correcting the outputs of a frozen forecaster at test time under drift with a small gated "
     "module",
     "Context-aware Output-Space Adapter"),
    ("a huge set of question-answer pairs teaching vision-language models where things are and "
     "how they are arranged",
     "InternSpatial"),
    ("diffusion language models hide an ensemble of generation orders; vote over several of "
     "them at inference",
     "majority vote over diverse block-sized generation paths"),
    ("dropping tokens inside spiking transformers to save compute on small devices",
     "TP-Spikformer"),
    ("the geometry of the set of functions a polynomial-activation network can represent: its "
     "dimension and its singular points",
     "neuromanifold"),
    ("merging the missing-views and missing-labels problems in multi-view classification with a "
     "shared discrete codebook",
     "dual-missing"),
    ("one image tokenizer serving both understanding and generation through a hierarchy of "
     "codebooks",
     "SemHiTok"),
    ("which properties of programming code in fine-tuning data make language models reason "
     "better",
     "controlled perturbations"),
    ("improving a model of one modality with unrelated, unpaired data from other modalities",
     "unpaired auxiliary data"),
    ("adapting a pretrained transformer that controls humanoid characters to a particular job "
     "by training a small task encoder and leaving the model untouched",
     "Task Tokens"),
]

RELATED_PAIRS = [
    ("DES-LOC", "MT-DAO", "infrequent-communication adaptive optimizers for data-parallel training"),
    ("Dendritic LIF", "TP-Spikformer", "spiking neural networks"),
    ("Dendritic LIF", "MPPD", "spiking neuron dynamics"),
    ("MPPD", "TP-Spikformer", "spiking neural networks"),
    ("SIM-CoT", "inverted U-shaped curve", "chain-of-thought reasoning in LLMs"),
    ("DiffAdapt", "inverted U-shaped curve", "how long an LLM should reason (overthinking)"),
    ("STITCH", "Text-Aligned Speech Tokenization", "spoken language models"),
    ("ReFusion", "majority vote over diverse block-sized generation paths",
     "decoding in diffusion language models"),
    ("knobs", "Context-aware Output-Space Adapter", "time-series forecasting models"),
    ("knobs", "SciTS", "time-series foundation models and their evaluation"),
    ("Spatial Perception (what is there)", "InternSpatial",
     "spatial reasoning data for multimodal models"),
    ("Spatial Perception (what is there)", "Uni-CoT", "multimodal chain-of-thought"),
    ("Maximum A Posteriori (MAP) estimation", "forest-based graph learning",
     "sampling spanning trees of a graph"),
    ("GDGB", "NAVIS", "learning on temporal / dynamic graphs"),
    ("NAVIS", "STBP", "temporal graph neural networks forecasting"),
    ("graph edit distance (GED)", "agent-permutation symmetries",
     "neural combinatorial optimisation built step by step"),
    ("Block-Wise Caching", "LikePhys", "video diffusion models"),
    ("HydraFake", "UWBench", "telling AI-generated content from real"),
    ("intermediate fusion", "unpaired auxiliary data", "multimodal representation learning"),
    ("intermediate fusion", "partial information decomposition",
     "multimodal fusion versus unimodal reliance"),
    ("milestone transition recognition", "SimuHome", "LLM agents in simulated environments"),
    ("Knowledgeable-R1", "misinformation injection", "LLMs misled by wrong information in context"),
    ("iterative hard thresholding", "neuromanifold", "theory of neural network parametrisations"),
    ("Eikonal", "Geometric Action Control", "reinforcement learning for continuous control"),
    ("causal autoregressive buffer", "MIAV", "tabular foundation models (in-context prediction)"),
    ("SC-ARENA", "SciTS", "benchmarks of LLMs on scientific data"),
    ("FastMix", "controlled perturbations", "which training data makes LLMs better"),
    ("Visual Memory Retriever", "TP-Spikformer", "pruning or compressing tokens to cut compute"),
    ("concept lattice", "legal LLMs", "interpreting what LLMs represent internally"),
    ("input-Dependent Complex-valued Diagonal", "Next Symbol Prediction",
     "what sequence models can express or learn of formal languages"),
]
