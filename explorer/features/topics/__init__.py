"""Topics: the corpus map and its named topics (build stage, table, map and topic pages, CLI)."""
