"""Ranking: the pure functions and channels that order papers for a query (no loaded index needed)."""
