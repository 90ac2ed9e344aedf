"""What an item is, as evidence: the paper's user–attribute relations, kept as numbers.

The paper relates a user to an attribute (``Drama:Y``) when the user's average rating of the
movies carrying it is above the like threshold.  Two terms of the score use that relation in a
form the logistic weights can scale:

``user_attributes`` with ``attribute_fit="means"``
    how the user rated the item's attributes: for each attribute ``a`` of the item, the user's
    mean rating residual (rating minus baseline) over the training items carrying ``a``, shrunk
    towards 0 (``sum / (count + ATTRIBUTE_SHRINKAGE)``); averaged over the item's attributes with
    weights ``log(n / n_a)`` (``n`` items described, ``n_a`` of them carry ``a``), so that a
    director of four films says more than a genre of a thousand;
``user_attributes`` with ``attribute_fit="joint"`` (the default)
    the user's residuals regressed on the attributes of the items they rated, all at once (ridge,
    penalty :data:`JOINT_L2`), and the term the *sum* of the item's attributes' coefficients: the
    model's own prediction of the user's residual on the item from its attributes.  The means count
    an author's pull again in every genre the author writes in; the joint fit gives each attribute
    what the others do not explain.  An attribute that shares none of the user's items with another
    gets its shrunk mean, with :data:`JOINT_L2` pseudo-ratings (the joint fit is at least level with
    the means on MovieLens 100K and four content shapes, and above them on books-flat by 0.016
    AUC: ``experiments/results/attribute_fit.md``);
``attribute_items``
    what the item's attributes say of any item: the same weighted mean of each attribute's mean
    item bias (shrunk alike) over the rated items carrying it.  It is the only item-side evidence
    of an item nobody has rated (a *new item*, scored from its attributes alone).

Each attribute's share of a term, ``weight_a * value_a / sum(weights)`` (its coefficient, for the
joint fit), is what an explanation shows; the shares add up to the term.  Nothing here is stored
with a model: both tables are derived from the ratings, the baseline and the item attributes on first use.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .csr import Csr

ATTRIBUTE_SHRINKAGE = 2.0  # pseudo-ratings of residual 0 added to every (user, attribute) mean
# the joint fit's ridge penalty, in the same pseudo-ratings (chosen on the books shape,
# benchmarks/synthetic_books.py, among 2 and 5: residual noise of about a star against attribute
# effects of about half a star)
JOINT_L2 = 5.0
ATTRIBUTE_FITS = ("joint", "means")


def user_penalty(joint: bool) -> float:
    """The pseudo-ratings that shrink the user side: the means' or the joint fit's."""
    return JOINT_L2 if joint else ATTRIBUTE_SHRINKAGE


@dataclass(frozen=True, eq=False)
class AttributeEvidence:
    """Per user and attribute the shrunk mean residual (``users``, users × attributes), per
    attribute the shrunk mean item bias (``items``) and the selectivity weight (``weight``); for the
    lists, the rated items' attributes (``rated``, items × attributes, rows of unrated items empty;
    ``n_rated`` of them per attribute) and each new item's attributes with their shares of its
    weights (``spread``, new items × attributes, rows in ``new_items`` order).  ``joint``: the user
    side holds the joint fit's coefficients, and the ``user_attributes`` term is their sum."""

    users: Csr
    items: np.ndarray
    weight: np.ndarray
    rated: Csr
    n_rated: np.ndarray
    new_items: np.ndarray
    spread: Csr
    joint: bool = False

    @classmethod
    def of(
        cls, ratings: Csr, residuals: Csr, item_bias: np.ndarray, item_attributes: Csr, joint: bool = False
    ) -> AttributeEvidence:
        users = user_table(residuals, item_attributes, joint)
        rated = np.bincount(ratings.idx, minlength=item_attributes.n_rows) > 0
        n_a = np.bincount(item_attributes.idx, minlength=item_attributes.shape[1])
        rated_items = item_attributes.select(rated[item_attributes.row_of])
        bias_sum = np.bincount(rated_items.idx, weights=item_bias[rated_items.row_of], minlength=len(n_a))
        bias_n = np.bincount(rated_items.idx, minlength=len(n_a))
        described = max(int((item_attributes.lengths > 0).sum()), 1)
        weight = np.log(described / np.maximum(n_a, 1))
        total = np.bincount(item_attributes.row_of, weights=weight[item_attributes.idx], minlength=len(rated))
        new_items = np.flatnonzero(~rated & (total > 0))
        which, pos = item_attributes.rows_entries(new_items)
        a = item_attributes.idx[pos]
        spread = Csr.from_pairs(which, a, (len(new_items), len(n_a)), weight[a] / total[new_items][which])
        item_value = bias_sum / (bias_n + ATTRIBUTE_SHRINKAGE)
        return cls(users, item_value, weight, rated_items, bias_n, new_items, spread, joint)

    def for_user(self, residuals: Csr, item_attributes: Csr) -> AttributeEvidence:
        """The same evidence with the user side of the people of ``residuals`` (people × items, e.g.
        one person folded in), the item side kept."""
        return dataclasses.replace(self, users=user_table(residuals, item_attributes, self.joint))

    def terms(
        self, item_attributes: Csr, u: np.ndarray, i: np.ndarray, leave_out: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(user_attributes, attribute_items)`` of the pairs ``(u[t], i[t])``; 0 for an item
        without attributes (or whose attributes every item carries).

        ``leave_out[t]`` (the item's own bias, NaN for an unrated item) takes item ``i[t]`` out of
        its attributes' means: ``attribute_items`` as it would be had nobody rated the item (the
        weights for new items are fitted on rated items made new this way)."""
        which, pos = item_attributes.rows_entries(i)
        a = item_attributes.idx[pos]
        w = self.weight[a]
        _, user_value = self.users.lookup(u[which], a)
        total = np.bincount(which, weights=w, minlength=len(i))
        safe = np.where(total > 0, total, 1.0)
        if self.joint:  # the fit's prediction: its coefficients add up
            user_term = np.bincount(which, weights=user_value, minlength=len(i))
        else:
            user_term = np.bincount(which, weights=w * user_value, minlength=len(i)) / safe
        value = self.items[a]
        if leave_out is not None:
            own = np.asarray(leave_out, dtype=np.float64)[which]
            rated = ~np.isnan(own)
            n = self.n_rated[a] + ATTRIBUTE_SHRINKAGE
            value = np.where(rated, (value * n - np.where(rated, own, 0.0)) / (n - 1), value)
        item_term = np.bincount(which, weights=w * value, minlength=len(i)) / safe
        return user_term, item_term

    def parts(self, item_attributes: Csr, u: int, i: int) -> list[dict]:
        """Each attribute of item ``i`` with its share of both terms for user ``u``: ``attribute``
        (index), ``weight`` (its share of the weights), ``user`` and ``item`` (its shares of the
        two terms, which add up to them)."""
        a = item_attributes.row(i)
        w = self.weight[a]
        total = w.sum()
        if not len(a) or (total <= 0 and not self.joint):
            return []
        _, user_value = self.users.lookup(np.full(len(a), u), a)
        safe = total if total > 0 else 1.0  # 0 only in the joint fit: attributes every item carries
        return [
            {
                "attribute": int(x),
                "weight": float(wx / safe),
                "user": float(uv if self.joint else wx * uv / safe),
                "item": float(wx * self.items[x] / safe),
                "rated": float(uv),
            }
            for x, wx, uv in zip(a, w, user_value, strict=True)
        ]

    def attribute_means(self, keys: np.ndarray) -> np.ndarray:
        """Per attribute, the shrunk mean of ``keys`` (a score per item, or rows of them) over the
        rated items carrying it: ``sum / (count + ATTRIBUTE_SHRINKAGE)``."""
        count = self.n_rated + ATTRIBUTE_SHRINKAGE
        if keys.ndim == 1:
            return np.bincount(self.rated.idx, weights=keys[self.rated.row_of], minlength=len(count)) / count
        return (self.rated.to_scipy().T @ keys.T).T / count

    def with_new_items(self, keys: np.ndarray) -> np.ndarray:
        """``keys`` (an item-model score per item, or rows of them) with each new item's score set
        from its attributes: the weighted mean, by the items' selectivity weights, of each
        attribute's :meth:`attribute_means` — "the movies like it by what they are"."""
        out = np.array(keys, dtype=np.float64)
        if not len(self.new_items):
            return out
        means = self.attribute_means(out)
        if out.ndim == 1:
            out[self.new_items] = np.bincount(
                self.spread.row_of, weights=self.spread.values * means[self.spread.idx], minlength=len(self.new_items)
            )
        else:
            out[:, self.new_items] = (self.spread.to_scipy() @ means.T).T
        return out

    def new_item_parts(self, keys: np.ndarray, i: int) -> list[dict]:
        """The attributes that make new item ``i``'s score from ``keys`` (one score per item): each
        ``attribute`` with its ``share`` of the weights, the ``mean`` score of the rated items
        carrying it, how many they are (``rated``) and its ``contribution`` (share × mean); the
        contributions add up to the score :meth:`with_new_items` gives."""
        row = int(np.searchsorted(self.new_items, i))
        if row >= len(self.new_items) or self.new_items[row] != i:
            return []
        a, share = self.spread.row(row), self.spread.row_values(row)
        means = self.attribute_means(np.asarray(keys, dtype=np.float64))[a]
        n = self.n_rated[a]
        return [
            {"attribute": int(x), "share": float(s), "mean": float(m), "rated": int(k), "contribution": float(s * m)}
            for x, s, m, k in zip(a, share, means, n, strict=True)
        ]


def user_table(residuals: Csr, item_attributes: Csr, joint: bool = False) -> Csr:
    """Users × attributes: each user's shrunk mean residual over their rated items carrying the
    attribute, ``sum / (count + ATTRIBUTE_SHRINKAGE)``; with ``joint``, the coefficients of the
    user's ridge regression (:data:`JOINT_L2`) of residuals on their items' attributes.  Stored
    wherever the user rated one."""
    from ._attribute_kernels import attribute_rows, user_attribute_means, user_attribute_ridge
    from ._pair_kernels import run_ranges
    from .item_model import equal_work_ranges
    from .threads import cores

    n_attr, n_users = item_attributes.shape[1], residuals.n_rows
    values = np.ascontiguousarray(residuals.values, dtype=np.float64)
    rows, attrs = residuals._int64_rows, item_attributes._int64_rows
    ptr = attribute_rows(*rows, *attrs, int(n_attr))
    idx, val = np.empty(ptr[-1], dtype=np.int64), np.empty(ptr[-1])
    kernel = user_attribute_ridge if joint else user_attribute_means
    args = (*rows, values, *attrs, int(n_attr), float(user_penalty(joint)), ptr, idx, val)
    if n_users <= _USERS_ON_ONE_THREAD:  # a person folded in: no threads to start
        kernel(*args, 0, n_users)
    else:  # each user's row is theirs alone: ranges of about equal ratings on every core
        work = np.cumsum(np.diff(rows[0]).astype(np.float64) + 1.0)
        run_ranges(kernel, equal_work_ranges(work, 4 * cores()), *args)
    return Csr(ptr, idx, val, (n_users, n_attr))


# fewer users than this are fitted on the calling thread (the ridge's 6,040 users of a 1 M-rating
# model took 0.3 s on one core)
_USERS_ON_ONE_THREAD = 64
