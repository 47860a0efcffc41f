"""Scoring the product's ranking on judged query sets: metrics, BEIR loading, `explorer eval`."""
