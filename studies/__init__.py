"""Ranking studies: what was measured before a ranking decision shipped (see DECISIONS.md).

Each module is run as `python -m studies.NAME ...` and uses only the product's public API;
tests/test_studies.py runs every one on a tiny corpus so a refactor that breaks one fails CI.
"""
