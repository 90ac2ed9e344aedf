"""Movies to rate first: the most rated, varied in genre, so that a new person meets titles they
know from more than one corner of the catalogue before they search."""

from __future__ import annotations

import numpy as np

from ..model.csr import Csr

POOL = 500  # the most rated items the picks are drawn from


def varied_popular(popularity: np.ndarray, item_attributes: Csr, attribute_names, n: int) -> np.ndarray:
    """Up to ``n`` item indices, most rated first, no genre held by more than its share of them.

    An item joins while every genre it carries has fewer than ``ceil(2 n / genres)`` picks (at
    least 2); items without a genre are judged by popularity alone, and if the rule leaves fewer
    than ``n`` the most rated of the rest fill the list.  Items no one rated are never picked.
    """
    rated = np.flatnonzero(popularity > 0)
    order = rated[np.lexsort((rated, -popularity[rated]))][:POOL]
    is_genre = np.char.startswith(np.asarray(attribute_names, dtype=str), "genre:")
    n_genres = int(is_genre.sum())
    cap = max(2, -(-2 * n // n_genres)) if n_genres else n
    used = np.zeros(len(is_genre), dtype=np.int64)
    picks: list[int] = []
    for i in order:
        genres = item_attributes.row(int(i))
        genres = genres[is_genre[genres]]
        if len(genres) and (used[genres] >= cap).any():
            continue
        picks.append(int(i))
        used[genres] += 1
        if len(picks) == n:
            return np.asarray(picks, dtype=np.int64)
    rest = [int(i) for i in order if int(i) not in set(picks)]
    return np.asarray(picks + rest[: n - len(picks)], dtype=np.int64)
