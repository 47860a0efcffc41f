"""Everything the index knows about one paper (`explorer show ID`, the paper page's fields):
its fields, versions, close relatives and topic, as a list of sections (`record.SECTIONS`:
another section is one line)."""
