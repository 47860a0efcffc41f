"""Vectors -> searchable channels: the FAISS vector index and the BM25 lexical index."""
