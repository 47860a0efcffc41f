"""Explanations: why a hit matched (sentence vectors, best sentences, shared terms, highlights)."""
