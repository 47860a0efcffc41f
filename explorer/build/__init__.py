"""The only code that embeds a corpus: incremental builds, checkpoints, the corpus map."""
