"""Ingest: reads a corpus in and writes an index folder, the only code that embeds a corpus."""
