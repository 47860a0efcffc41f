"""Saved collections of papers: the user's own lists of paper ids, in the user data folder."""
