"""``recsys serve``: the model behind an HTTP API and a page (FastAPI on uvicorn)."""
