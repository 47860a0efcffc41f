"""Papers -> vectors: locate a model offline, fingerprint it, export it, run it on a backend."""
