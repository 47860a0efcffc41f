"""The index folder on disk: manifest, per-build files, atomic writes, checks on load."""
