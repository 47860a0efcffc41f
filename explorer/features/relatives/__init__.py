"""Close relatives: pairs of papers so alike they may be one work (stage, query, page, CLI)."""
