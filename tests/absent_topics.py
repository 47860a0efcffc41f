"""Questions about machine-learning topics that no seed paper covers (written by reading the
seeds' abstracts): their best hits should read "weak". Used by tests and studies/strength*."""

ABSENT_TOPICS = [
    "protein structure prediction from amino acid sequences",
    "collaborative filtering for movie recommendation",
    "neural machine translation for low-resource languages",
    "object detection in aerial drone images",
    "knowledge distillation to compress BERT",
    "differentially private stochastic gradient descent",
    "speech recognition with connectionist temporal classification",
    "model-based reinforcement learning on Atari games",
    "certified robustness of image classifiers to adversarial perturbations",
    "causal effect estimation from observational data with propensity scores",
    "anomaly detection in network intrusion logs",
    "lidar point cloud segmentation for autonomous driving",
    "neural architecture search with evolutionary algorithms",
    "sentiment analysis of product reviews",
]
