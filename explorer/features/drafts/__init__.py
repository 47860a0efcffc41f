"""Check my draft: the papers a draft may have missed (the draft page, `explorer missed`)."""
