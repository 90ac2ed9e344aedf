"""One selection procedure for every method: fit each point of its grid on the fit part of the
training ratings, measure it on the tuning part by the metric of the task — AUC for like/dislike,
NDCG@10 for lists — and keep the best (the first of equals).  A method that does both tasks (the
profile model) is fitted once per point and chosen for each task separately."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .methods import Method, Scores, Training
from .metrics import fill_uncovered, roc_auc
from .ranking import RankingTask, ndcg_per_user, top_lists

TASK_METRIC = {"like": "auc", "list": "ndcg@10"}


@dataclass
class Choice:
    """The point of ``grid`` chosen for one task, the method fitted there on the fit part, and the
    tuning metric of every point (in grid order)."""

    task: str
    grid: list
    values: list = field(default_factory=list)
    point: dict | None = None
    model: Method | None = None
    value: float = -np.inf
    scores: Scores | None = None  # like task: the chosen model's scores of the tuning pairs

    def summary(self) -> dict:
        return {"metric": TASK_METRIC[self.task], "values": [float(v) for v in self.values], "best": float(self.value)}


def like_metric(method: Method, tune, y_tune: np.ndarray) -> tuple[float, Scores]:
    """AUC of ``method``'s scores of the tuning pairs (uncovered pairs get the mean score)."""
    scores = method.score(tune["user"].to_numpy(), tune["item"].to_numpy())
    auc = roc_auc(y_tune, fill_uncovered(scores.score, scores.covered))
    return (auc if np.isfinite(auc) else -np.inf), scores


def list_metric(method: Method, task: RankingTask) -> float:
    """Mean NDCG@10 of ``method``'s lists for the tuning users."""
    return float(ndcg_per_user(top_lists(method, task), task.relevant).mean()) if len(task) else -np.inf


def sweep(make, grid: list, fit: Training, tasks: dict, say=None) -> dict[str, Choice]:
    """Fit ``make(point)`` on ``fit`` for every grid point and choose one per task.

    ``tasks`` maps ``"like"`` to ``(tuning ratings, their labels)`` and/or ``"list"`` to the
    tuning :class:`RankingTask`.  Only the models of the current best points are kept.
    """
    choices = {task: Choice(task, grid) for task in tasks}
    for k, point in enumerate(grid):
        t = time.perf_counter()
        method = make(point).fit(fit)
        for task, data in tasks.items():
            if task == "like":
                value, scores = like_metric(method, *data)
            else:
                value, scores = list_metric(method, data), None
            c = choices[task]
            c.values.append(value)
            if value > c.value:
                c.point, c.model, c.value, c.scores = point, method, value, scores
        if say and len(grid) > 1:
            got = ", ".join(f"{TASK_METRIC[t]} {c.values[-1]:.4f}" for t, c in choices.items())
            say(f"  {k + 1}/{len(grid)} {point}: {got} ({time.perf_counter() - t:.1f} s)")
    for c in choices.values():
        if c.point is None:  # nothing measurable (no tuning user, say): the first point
            c.point, c.model = grid[0], make(grid[0]).fit(fit)
    return choices
