"""A paper's neighbourhood graph: its nearest papers and their strongest links (query, ui, page)."""
