"""`python -m explorer.cli`: the same as the `explorer` command."""

from explorer.cli.main import main

raise SystemExit(main())
