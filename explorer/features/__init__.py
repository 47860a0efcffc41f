"""Features: each keeps its build stage, query, page and CLI verb side by side."""
