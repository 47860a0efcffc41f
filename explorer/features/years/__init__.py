"""Years: how a ranking's papers spread over the years (the chart, `--by-year`)."""
