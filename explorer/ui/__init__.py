"""Hits -> what a reader sees, without Streamlit: view state, links, labels, safe text, map, exports."""
