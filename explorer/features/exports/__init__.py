"""Exports that cite: papers -> BibTeX, RIS and CSL-JSON, the entry type from venue and status."""
