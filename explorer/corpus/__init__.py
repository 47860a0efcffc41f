"""Files -> papers: find and read corpus files, normalise them into deduplicated Paper records."""
