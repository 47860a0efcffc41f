"""The background upgrade: an index built with the fast model, re-embedded with the stronger one
(all-mpnet-base-v2) by a detached process where the corpus is small enough, then swapped in whole
(stage.py, stage_status.py, stage_run.py; cli.py hooks `explorer build`; ui.py, page.py: the
app's status line)."""
