"""Lists for users the model has never seen (strong generalisation).

A share of the training users (``Protocol.strong``, seeded) is held out entirely.  Each ranker, at
the setting the protocol chose for it, is fitted on the other users' ratings; for every held-out
user it is given a share of that user's ratings (``Protocol.strong_history``, seeded) at
prediction time — without refitting — and lists catalogue items; the user's other ratings of at
least 4 are the relevant items.  For comparison the same people's lists *in the model*: the ranker
refitted with their given ratings among the training ratings.  Only training ratings take part:
the test ratings of the split are not used.  A ranker that cannot take a new user without
refitting is reported as such.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .methods import Training
from .ranking import RECALL_K, RankingTask, list_metrics, top_lists


def held_out_users(ratings, share: float, history: float, seed: int):
    """``(others, histories, targets)``: the ratings of the users kept in training, and of the
    held-out users the part given at prediction time and the part scored."""
    rng = np.random.default_rng(seed + 2)
    users = np.unique(ratings["user"].to_numpy())
    held = rng.permutation(users)[: max(1, int(round(share * len(users))))]
    is_held = ratings["user"].isin(held).to_numpy()
    others, new = ratings[~is_held], ratings[is_held]
    # per held-out user, a random ``history`` share of its ratings is given (at least one)
    key = rng.random(len(new))
    order = np.lexsort((key, new["user"].to_numpy()))
    by_user = new["user"].to_numpy()[order]
    starts = np.r_[0, np.flatnonzero(by_user[1:] != by_user[:-1]) + 1]
    counts = np.diff(np.r_[starts, len(order)])
    rank = np.arange(len(order)) - np.repeat(starts, counts)
    given = np.zeros(len(new), dtype=bool)
    given[order] = rank < np.maximum(1, np.floor(history * np.repeat(counts, counts)))
    return others, new[given], new[~given]


class NewUsers:
    """The held-out users' task, their histories and the two trainings a ranker is fitted on (see the
    module docstring); :meth:`lists` measures one ranker, :meth:`report` gathers them."""

    def __init__(self, run):
        p = run.protocol
        others, histories, targets = held_out_users(run.train.ratings, p.strong, p.strong_history, p.seed)
        self.run = run
        self.task = RankingTask.of(histories, targets, run.catalogue)
        self.header = {
            "held_out_users": int(histories["user"].nunique()),
            "users_with_relevant": len(self.task),
            "history_share": p.strong_history,
            "training_ratings": int(len(others)),
        }
        self.train = Training(others, run.train.attributes, run.train.items)
        # the same people in the model: their given ratings are training ratings, the rest is scored
        self.in_model = Training(pd.concat([others, histories]), run.train.attributes, run.train.items)

    def lists(self, name: str, say) -> dict:
        """Ranker ``name``'s figures for the new users (at its chosen setting), and in the model."""
        run, task = self.run, self.task
        point = run.lists[name]["params"]
        method = run.makers[name](point)
        if not method.folds_in:
            return {"supported": False, "reason": f"{name} cannot take a new user without refitting"}
        t = time.perf_counter()
        method.fit(self.train)
        n = len(task.catalogue)
        res = list_metrics(top_lists(method, task, RECALL_K, new_users=True), task.relevant, n, recall_k=RECALL_K)
        known = run.makers[name](point).fit(self.in_model)
        res_in = list_metrics(top_lists(known, task, RECALL_K), task.relevant, n, recall_k=RECALL_K)
        say(f"  {name}: NDCG@10 {res['ndcg@10']:.4f} for {len(task)} new users, {res_in['ndcg@10']:.4f} in the model")
        return {
            "supported": True,
            **res,
            "in_model_ndcg@10": res_in["ndcg@10"],
            "seconds": time.perf_counter() - t,
            "params": point,
        }

    def report(self, methods: dict) -> dict:
        return {**self.header, "methods": methods}
