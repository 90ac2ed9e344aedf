"""A small L2-regularised logistic regression (Newton's method) for a handful of evidence terms."""

from __future__ import annotations

import numpy as np


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> tuple[np.ndarray, float]:
    """Weights and intercept maximising the penalised log-likelihood of ``y`` (0/1) given ``X``.

    Columns are standardised inside, so ``l2`` is scale free; the returned weights act on raw
    ``X``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = np.column_stack([np.ones(len(X)), (X - mu) / sd])
    w = np.zeros(Z.shape[1])
    reg = l2 * len(X) * np.r_[0.0, np.ones(Z.shape[1] - 1)]
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -30, 30)))
        grad = Z.T @ (p - y) + reg * w
        H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(reg + 1e-9)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    coef = w[1:] / sd
    return coef, float(w[0] - coef @ mu)


def best_balanced_threshold(score: np.ndarray, y: np.ndarray) -> float:
    """The score threshold (predict like iff score >= t) with the highest balanced accuracy on ``y``."""
    order = np.argsort(-score, kind="stable")
    s, t = score[order], np.asarray(y, dtype=bool)[order]
    pos, neg = t.sum(), (~t).sum()
    if pos == 0 or neg == 0:
        return float(np.median(score))
    tp = np.cumsum(t)
    fp = np.cumsum(~t)
    ba = 0.5 * (tp / pos + 1 - fp / neg)
    # only cut between distinct scores
    last = np.r_[s[1:] != s[:-1], True]
    k = int(np.argmax(np.where(last, ba, -1)))
    nxt = s[k + 1] if k + 1 < len(s) else s[k] - 1.0
    return float((s[k] + nxt) / 2)
