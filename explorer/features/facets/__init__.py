"""Facets: the corpus's categorical fields (status, venue, year, track, primary area, ...) as
filters (`--filter FIELD=VALUE`, the app's sidebar) and as badges on cards. The fields are
counted in corpus/facets.py and filtered in ranking/facets.py (inside the ranking)."""
