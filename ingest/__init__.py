"""ingest — MovieLens, IMDb and benchmark data sets into user–attribute relations."""
