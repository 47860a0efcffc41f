"""The web app (Streamlit): the frame, the core pages and what every page is made of."""
