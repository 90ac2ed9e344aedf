"""recsys — the explainable like/dislike movie recommender built on :mod:`coclust`."""

__version__ = "0.1.0"
