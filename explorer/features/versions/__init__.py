"""Versions of one work (an ICLR reject that reappeared at NeurIPS): found at build time by
corpus/versions.py and stored in the extras (VERSIONS); `works.py` reads them (or finds them,
for papers held in memory) and folds result lists so that a work is shown once, with its
versions."""
