"""Hand-written paraphrases of seed abstracts: each avoids the abstract's distinctive terms.

Each entry: (query, a phrase that occurs only in the target abstract).
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
]
