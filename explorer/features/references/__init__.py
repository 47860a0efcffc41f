"""References and cited-by inside the corpus: resolved at build time (stage), read (query), shown
on the paper page (page) and in `explorer show` (cli)."""
