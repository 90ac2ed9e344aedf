"""The scale benchmark's peers: EASE, iALS and SANSA, tuned, fitted and scored like the product.

Each peer learns from the users × items 0/1 matrix of the training likes (a rating above 2, the
product's like; with ``--implicit`` every training rating, as the product's ``--implicit`` reads
them) and scores every catalogue item for a user (``x_u W`` for the item–item models, ``p_u · q_i``
for iALS).  Settings are chosen on a seeded tenth of the training ratings (fitted on
the rest, NDCG@10 of that tenth's lists), one axis at a time, and **an axis whose best value sits on
an open edge of its grid is extended** (×4 or ÷4) until the best is interior or the number of fits
allowed is spent (then the report says so); the chosen point is refitted on all training ratings
and scored once on the test ratings, with the lists and NDCG@10 of :mod:`recsys.evaluation.ranking`
(the product's own).  The fit time reported is that last fit's, from the 0/1 matrix in memory.

- **EASE** (Steck 2019): ``P = (X'X + λI)^-1``, ``W = -P / diag(P)``, zero diagonal — the Gram
  matrix from scipy's sparse product, one dense inverse (LAPACK, every core): the lean closed form
  a recommender engineer writes, not a library's wrapper.  Items² memory: skipped above
  :data:`EASE_MAX_ITEMS`.
- **iALS** (Hu et al. 2008; Rendle et al. 2022 for its tuning): implicit's ``AlternatingLeastSquares``
  on the CPU, confidence ``1 + α x``; factors, regularisation, α tuned, 15 iterations.
- **SANSA** (Spišák et al. 2023): the ``sansa`` package's sparse approximate EASE (CHOLMOD's sparse
  Cholesky, UMR inverse), made for catalogues whose items² does not fit; λ tuned, its weights per
  item fixed at the product's (``--weights-per-item``: the scale benchmark passes the trained
  model's item weights over its movies; :data:`SANSA_WEIGHTS_PER_ITEM` by default, the partners the
  product keeps per movie where they are capped).  Its lists score ``x_u A B`` through the dense
  product ``A B``, made once per fit where EASE's items² would fit (the chained sparse products,
  SANSA's own ``forward``, ran one core for over half an hour a tuning point at 10 M ratings with
  the product's 1,108 weights a movie); the fit time is SANSA's ``fit`` alone.
  It needs scikit-sparse over SuiteSparse (``apt-get install libsuitesparse-dev libopenblas0``;
  ``pip install "hblcoclust[bench]"``): when it cannot be imported the report says why and the
  other peers are measured.  Its sparse products run on MKL on every core where pip's ``mkl`` is
  installed (the bench extra installs it; scipy's one core otherwise), its CHOLMOD on the BLAS
  Debian links; the report names both (:func:`sansa_backends`).
- **Most popular** (the items with the most likes): a control, no setting — where it is level with
  everyone, the data's lists say little about a method's taste.

``python -m benchmarks.peers --method ease --ratings R.csv`` runs one peer in this process and prints
its figures as JSON (the scale benchmark runs each in a child process, whose peak memory is its own).
"""

from __future__ import annotations

import argparse
import functools
import json
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recsys.evaluation.search import Axis  # noqa: E402 (after the path above)

EASE_MAX_ITEMS = 20_000  # two items² float64 arrays: 6.4 GB at 20,000
# SANSA keeps this many weights per item by default (its density is this over the catalogue): the
# partners the product's item model keeps per item where the scaling rules cap them
# (recsys.model.settings.ITEM_PARTNERS)
SANSA_WEIGHTS_PER_ITEM = 200
LIKE = 2.0
SPLIT = "random:0.1:0"


@dataclass
class Space:
    """A peer's tuning space: axes (name → starting values and the search rule,
    :class:`recsys.evaluation.search.Axis`) searched in order, the others held at their current best."""

    start: dict
    axes: dict[str, tuple[list, Axis]] = field(default_factory=dict)


def spaces(n_items: int, mean_likes: float) -> dict[str, Space]:
    """The search spaces, their starting points scaled with the data where the literature says so:
    EASE's λ grows with the Gram diagonal (the like counts), around 400 × mean likes / 40 (the rule
    the product's item model uses)."""
    lam = 400.0 * mean_likes / 40.0
    return {
        "ease": Space({"lamb": lam}, {"lamb": ([lam / 4, lam, lam * 4], Axis(step=4.0))}),
        "ials": Space(
            {"factors": 128, "regularization": 10.0, "alpha": 10.0, "iterations": 15},
            {
                "alpha": ([2.5, 10.0, 40.0], Axis(step=4.0)),
                "regularization": ([2.5, 10.0, 40.0], Axis(step=4.0)),
                # 512 factors: a fit of 1 M ratings takes minutes on two cores; 1,024 would take an hour
                "factors": ([64, 128, 256], Axis(integer=True, floor=1, step=2.0, ceiling=512)),
            },
        ),
        "sansa": Space({"l2": lam}, {"l2": ([lam / 4, lam, lam * 4], Axis(step=4.0))}),
        "popular": Space({}),
    }


# -- the peers ------------------------------------------------------------------------------------
class EASE:
    name = "ease"

    def __init__(self, lamb: float):
        self.lamb = float(lamb)

    def fit(self, X) -> EASE:
        # the closed form by a Cholesky inverse in place (the evaluation's EASE): at 3,700 movies
        # 2.5-3.3 s here against 3.9-5.8 s for np.linalg.inv's LU, which the runs before 851ccde used
        from recsys.model.item_model import ease_weights

        self.W = ease_weights(X, self.lamb)
        return self

    def scores(self, rows) -> np.ndarray:
        return np.asarray(rows @ self.W)


class IALS:
    name = "ials"

    def __init__(self, factors: int, regularization: float, alpha: float, iterations: int = 15, seed: int = 0):
        self.params = dict(
            factors=int(factors),
            regularization=float(regularization),
            alpha=float(alpha),
            iterations=int(iterations),
            random_state=seed,
        )

    def fit(self, X) -> IALS:
        from implicit.cpu.als import AlternatingLeastSquares
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1, "blas"):  # implicit's own threads; BLAS threads inside them oversubscribe
            model = AlternatingLeastSquares(**self.params, calculate_training_loss=False)
            model.fit(X.tocsr().astype(np.float32), show_progress=False)
        self.U, self.V = np.asarray(model.user_factors), np.asarray(model.item_factors)
        return self

    def scores(self, rows, users: np.ndarray) -> np.ndarray:
        return self.U[users] @ self.V.T


class SANSA:
    name = "sansa"

    def __init__(self, l2: float, weights_per_item: float = SANSA_WEIGHTS_PER_ITEM):
        self.l2 = float(l2)
        self.weights_per_item = float(weights_per_item)
        self.W = None  # the dense product of its factors, made by the first scores after a fit

    def fit(self, X) -> SANSA:
        import logging

        import sansa

        logging.getLogger("sansa").setLevel(logging.WARNING)
        _sansa_products_on_mkl()
        config = sansa.SANSAConfig(
            l2=self.l2,
            weight_matrix_density=min(1.0, self.weights_per_item / max(X.shape[1], 1)),
            gramian_factorizer_config=sansa.CHOLMODGramianFactorizerConfig(),
            lower_triangle_inverter_config=sansa.UMRUnitLowerTriangleInverterConfig(scans=1, finetune_steps=5),
        )
        self.model = sansa.SANSA(config).fit(X.tocsr().astype(np.float32))
        self.W = None
        return self

    def scores(self, rows) -> np.ndarray:
        A, B = self.model.weights
        if A.shape[0] > EASE_MAX_ITEMS:
            return np.asarray((rows @ A @ B).todense())
        if self.W is None:
            # the product of its two sparse factors once, dense (float32 BLAS on every core): with the
            # weights per item the product keeps (1,108 of 11,719 movies at 10 M ratings) the chained
            # sparse products of every block of users ran one core for over half an hour a point
            self.W = A.toarray() @ B.toarray()
        return np.asarray(rows @ self.W)


class Popular:
    name = "popular"

    def fit(self, X) -> Popular:
        self.likes = np.asarray(X.sum(axis=0)).ravel()
        return self

    def scores(self, rows) -> np.ndarray:
        return np.repeat(self.likes[None, :], rows.shape[0], axis=0).astype(np.float64)


MAKERS = {"ease": EASE, "ials": IALS, "sansa": SANSA, "popular": Popular}


def _point_sparse_dot_mkl_at_pips_mkl() -> None:
    """Let ``sparse_dot_mkl`` find the MKL that pip's ``mkl`` package put in this environment's
    ``lib`` (it searches the system's library path only): SANSA's sparse products then run on every
    core, as its authors run them, instead of scipy's one."""
    import glob
    import os

    if "MKL_RT" not in os.environ:
        found = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*")))
        if found:
            os.environ["MKL_RT"] = found[0]


@functools.cache
def _sansa_products_on_mkl() -> bool:
    """Route SANSA's sparse products through ``sparse_dot_mkl`` with scipy's rule for mixed
    precisions (both cast up), where it is installed.  SANSA 1.1 picks ``sparse_dot_mkl`` itself
    when it imports, but multiplies a float64 factor by float32 matrices, which ``sparse_dot_mkl``
    refuses unless told to cast; scipy casts.  False: scipy's products (one core) stay."""
    _point_sparse_dot_mkl_at_pips_mkl()
    try:
        import sparse_dot_mkl
    except Exception:  # noqa: BLE001 - no MKL here: scipy's products
        return False
    import sansa.core._ops._inverse_ops as inverse_ops
    import sansa.core.factorizers as factorizers

    def product(a, b):
        return sparse_dot_mkl.dot_product_mkl(a, b, cast=True)

    inverse_ops.matmat = factorizers.matmat = product
    return True


def sansa_backends() -> dict:
    """What SANSA's heavy steps run on here: its sparse products (``sparse_dot_mkl``'s MKL on every
    core, or scipy's on one) and the BLAS its CHOLMOD factorisation links (Debian's ``libblas.so.3``
    is the reference BLAS unless an optimised one is installed: ``apt-get install libopenblas0``)."""
    import os

    import sksparse.cholmod  # noqa: F401 (maps CHOLMOD and the BLAS it links into this process)

    try:  # the libraries mapped into this process (Linux)
        with open("/proc/self/maps") as maps:
            blas = sorted({os.path.realpath(line.split()[-1]) for line in maps if "libblas.so" in line})
    except OSError:
        blas = []
    return {
        "sparse_products": "MKL (sparse_dot_mkl), every core" if _sansa_products_on_mkl() else "scipy, one core",
        "cholmod_blas": blas[0] if blas else "unknown",
    }


def available(name: str) -> str | None:
    """Why a peer cannot run here (None: it can)."""
    try:
        if name == "sansa":
            _point_sparse_dot_mkl_at_pips_mkl()
            import sansa  # noqa: F401
        if name == "ials":
            import implicit  # noqa: F401
    except Exception as exc:  # an import error of a compiled extension is not always ImportError
        return f"{type(exc).__name__}: {exc}"
    return None


# -- fitting and scoring, as the product is scored ----------------------------------------------------
def positives(train, implicit: bool = False):
    """The rows of ``train`` a peer learns from: its likes (a rating above :data:`LIKE`), or with
    ``implicit`` every rating, as the product reads them with ``--implicit``."""
    return train if implicit else train[train["rating"].to_numpy(dtype=np.float64) > LIKE]


class Ranker:
    """A peer fitted on the likes of ``train`` (every rating if ``implicit``), as the evaluation's
    rankers are (``rank_block``)."""

    def __init__(self, peer, train, implicit: bool = False):
        import pandas as pd
        import scipy.sparse as sp

        self.peer = peer
        self.users = pd.Index(pd.unique(train["user"]))
        self.items = pd.Index(np.unique(train["item"].to_numpy()))
        likes = positives(train, implicit)
        r, c = self.users.get_indexer(likes["user"]), self.items.get_indexer(likes["item"])
        self.X = sp.csr_matrix((np.ones(len(r), np.float32), (r, c)), shape=(len(self.users), len(self.items)))
        start = time.perf_counter()
        peer.fit(self.X)
        self.fit_seconds = time.perf_counter() - start

    def rank_block(self, users, catalogue) -> np.ndarray:
        rows = self.users.get_indexer(np.asarray(users, dtype=object))
        cols = self.items.get_indexer(np.asarray(catalogue))
        out = np.full((len(rows), len(catalogue)), -np.inf)
        known = rows >= 0
        if known.any():
            block = self.X[rows[known]]
            s = self.peer.scores(block, rows[known]) if isinstance(self.peer, IALS) else self.peer.scores(block)
            part = np.full((int(known.sum()), len(catalogue)), -np.inf)
            part[:, cols >= 0] = s[:, cols[cols >= 0]]
            out[known] = part
        return out


def ndcg(peer, train, test, implicit: bool = False) -> tuple[float, float]:
    """``(NDCG@10 on test, fit seconds)`` of ``peer`` fitted on ``train``."""
    values, seconds = ndcg_per_test_user(peer, train, test, implicit)
    return float(values.mean()), seconds


def ndcg_per_test_user(peer, train, test, implicit: bool = False) -> tuple[np.ndarray, float]:
    """``(NDCG@10 of every test user, fit seconds)`` of ``peer`` fitted on ``train``; the users in
    the order of :class:`~recsys.evaluation.ranking.RankingTask` (sorted ids), the product's too."""
    from recsys.evaluation.ranking import RankingTask, catalogue_of, ndcg_per_user, top_lists

    ranker = Ranker(peer, train, implicit)
    task = RankingTask.of(train, test, catalogue_of(train))
    return ndcg_per_user(top_lists(ranker, task), task.relevant), ranker.fit_seconds


def tune(name: str, train, max_fits: int, fixed: dict | None = None, implicit: bool = False) -> dict:
    """The chosen point of ``name`` on a seeded tenth of ``train`` (see the module docstring), with
    every point tried and, per axis, its final grid, the value chosen and whether it is left on an
    open edge (only when the fits allowed ran out); ``fixed`` settings are held, not tuned."""
    from recsys.evaluation.protocol import split_for_tuning

    inner, held = split_for_tuning(train, seed=0)
    likes = positives(train, implicit)
    space = spaces(train["item"].nunique(), len(likes) / max(likes["item"].nunique(), 1))[name]
    best = {**space.start, **(fixed or {})}
    tried: dict[tuple, float] = {}

    def score(point: dict) -> float | None:
        key = tuple(sorted(point.items()))
        if key not in tried:
            if len(tried) >= max_fits:
                return None
            tried[key] = ndcg(MAKERS[name](**point), inner, held, implicit)[0]
        return tried[key]

    axes = {}
    for axis_name, (values, axis) in space.axes.items():
        grid = sorted(values)
        while True:
            results = {v: r for v in grid if (r := score({**best, axis_name: v})) is not None}
            best[axis_name] = max(results, key=lambda v: (results[v], -grid.index(v)))  # ties: the smaller
            edge = axis.edge_of(grid, best[axis_name])
            nxt = axis.beyond(grid, low=edge == "low") if edge else None
            if nxt is None or len(tried) >= max_fits:
                break
            grid = sorted([*grid, nxt])
        chosen = best[axis_name]
        # at the ceiling: the top edge closed by what this machine can fit in time, not by the data
        at_ceiling = axis.ceiling is not None and chosen == grid[-1] and chosen >= axis.ceiling
        axes[axis_name] = {
            "grid": grid,
            "chosen": chosen,
            "open_edge": axis.edge_of(grid, chosen) is not None,
            "at_ceiling": bool(at_ceiling),
        }
    return {
        "chosen": best,
        "axes": axes,
        "fits": len(tried),
        "points": [{**dict(k), "ndcg@10": v} for k, v in tried.items()],
    }


def run(
    name: str,
    ratings_csv: str,
    max_fits: int,
    fixed: dict | None = None,
    per_user: str | None = None,
    implicit: bool = False,
) -> dict:
    """Tune ``name`` on the training part of ``ratings_csv`` (split :data:`SPLIT`), refit, score;
    ``fixed`` settings are held (SANSA's weights per item); ``per_user``: a ``.npy`` file for the
    refit's NDCG@10 of every test user (:func:`ndcg_per_test_user`), for paired intervals;
    ``implicit``: learn from every rating (:func:`positives`)."""
    import pandas as pd

    from ingest.splits import split_ratings

    why = available(name)
    if why:
        return {"method": name, "skipped": why}
    train, test = split_ratings(pd.read_csv(ratings_csv), SPLIT)
    if name == "ease" and train["item"].nunique() > EASE_MAX_ITEMS:
        return {"method": name, "skipped": f"{train['item'].nunique():,} items: items² arrays would not fit"}
    start = time.perf_counter()
    tuning = tune(name, train, max_fits, fixed, implicit)
    tune_seconds = time.perf_counter() - start
    values, fit_seconds = ndcg_per_test_user(MAKERS[name](**tuning["chosen"]), train, test, implicit)
    if per_user:
        np.save(per_user, values)
    return {
        "method": name,
        "ndcg@10": float(values.mean()),
        "fit_seconds": fit_seconds,
        "tune_seconds": tune_seconds,
        "peak_mb": _own_peak_mb(),
        **({"backends": sansa_backends()} if name == "sansa" else {}),
        **tuning,
    }


def _own_peak_mb() -> float:
    """This process's own peak (``VmHWM``; ``ru_maxrss`` also counts what its parent held at the fork)."""
    from benchmarks.peak import own_peak_kb

    kb = own_peak_kb()
    return (kb if kb is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--method", choices=sorted(MAKERS), required=True)
    parser.add_argument("--ratings", required=True, help="user,item,rating CSV (split random:0.1:0 as the product)")
    parser.add_argument("--max-fits", type=int, default=16, help="tuning fits allowed (default 16)")
    parser.add_argument(
        "--weights-per-item",
        type=float,
        help=f"SANSA's weights per item (default {SANSA_WEIGHTS_PER_ITEM}; the scale benchmark passes the product's)",
    )
    parser.add_argument("--per-user", help="write the refit's NDCG@10 of every test user here (.npy, sorted ids)")
    parser.add_argument(
        "--implicit", action="store_true", help="learn from every rating, as `recsys train --implicit` (default: likes)"
    )
    args = parser.parse_args(argv)
    fixed = {"weights_per_item": args.weights_per_item} if args.method == "sansa" and args.weights_per_item else None
    result = run(args.method, args.ratings, args.max_fits, fixed, args.per_user, args.implicit)
    print(json.dumps({**result, "implicit": args.implicit}, default=float))


if __name__ == "__main__":
    main()
