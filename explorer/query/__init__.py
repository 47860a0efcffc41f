"""Index -> hits: the Explorer verbs, ranking, fusion, feedback, filters and explanations."""
