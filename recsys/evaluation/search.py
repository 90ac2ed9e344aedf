"""A search that cannot stop on an edge: each tuned setting is an :class:`Axis` that knows whether
better values may lie past the smallest or largest value tried, and the selection
(:func:`recsys.evaluation.selection.sweep`) extends an axis whose best value sits on such an open
edge until it is interior, reaches a bound the axis declares (a count cannot go below 1, RP3beta's
β below 0, ItemKNN's neighbours above the catalogue) or the fits allowed are spent — and then
says so.  Ferrari Dacrema et al. (RecSys 2019) found baselines stopped at the edge of their grids
behind many claimed gains; this makes the rule mechanical and its outcome part of the results.

>>> k = Axis(integer=True, step=2.0, floor=1)
>>> k.beyond([5, 10, 20], low=False), k.beyond([1, 2], low=True)
(40, None)
>>> Axis(floor=0.0, ceiling=2.0, add=0.2).beyond([0.0, 0.4, 0.8], low=False)
1.0
>>> Axis(floor=0.0, from_zero=0.01).beyond([0.0], low=False), Axis(floor=0.0).beyond([0.0], low=True)
(0.01, None)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Axis:
    """A numeric setting's search rule.

    ``low_open`` / ``high_open``: better values may lie below / above the values tried.  Past an
    edge the next value is ``× step`` (``÷ step`` below) or, for an ``add`` axis, ``± add``;
    ``floor`` and ``ceiling`` are bounds the setting cannot or need not cross (reached, the edge
    counts as closed).  ``integer`` values are rounded and always move by at least one.
    ``from_zero``: the value above an edge at 0 of a ``× step`` axis (no multiple of 0 is larger;
    without it, nothing above 0 is tried)."""

    low_open: bool = True
    high_open: bool = True
    integer: bool = False
    step: float = 2.0
    add: float | None = None
    floor: float | None = None
    ceiling: float | None = None
    from_zero: float | None = None

    def beyond(self, values: list, low: bool):
        """The value past the low or high edge of ``values`` (the values tried), or None when that
        edge is closed (declared closed, or at its bound)."""
        if not (self.low_open if low else self.high_open):
            return None
        edge = min(values) if low else max(values)
        if self.add is not None:
            v = edge - self.add if low else edge + self.add
        elif edge == 0 and not low and self.from_zero is not None:
            v = self.from_zero
        else:
            v = edge / self.step if low else edge * self.step
        if self.integer:
            v = int(round(v))
            v = min(v, edge - 1) if low else max(v, edge + 1)
        if self.floor is not None and v < self.floor:
            v = self.floor
        if self.ceiling is not None and v > self.ceiling:
            v = self.ceiling
        v = int(v) if self.integer else round(float(v), 12)
        return None if v == edge or (low and v > edge) or (not low and v < edge) else v

    def edge_of(self, values: list, chosen) -> str | None:
        """``"low"`` or ``"high"`` when ``chosen`` sits on an edge of ``values`` that is still open."""
        if len(values) and chosen == min(values) and self.beyond(values, low=True) is not None:
            return "low"
        if len(values) and chosen == max(values) and self.beyond(values, low=False) is not None:
            return "high"
        return None


def axis_values(points: list[dict], chosen: dict, name: str) -> list:
    """The values of ``name`` tried with every other setting as in ``chosen`` (the line through the
    chosen point along that axis), sorted."""
    others = {k: v for k, v in chosen.items() if k != name}
    return sorted({p[name] for p in points if name in p and all(p.get(k) == v for k, v in others.items())})


def edges(points: list[dict], chosen: dict, axes: dict[str, Axis]) -> dict[str, dict]:
    """Per axis of ``chosen``: the values tried along it, the one chosen and the open edge it sits on
    (None: interior or at a closed edge)."""
    out = {}
    for name, axis in axes.items():
        if name in chosen:
            values = axis_values(points, chosen, name)
            out[name] = {"values": values, "chosen": chosen[name], "open_edge": axis.edge_of(values, chosen[name])}
    return out


def next_point(points: list[dict], chosen: dict, axes: dict[str, Axis]) -> dict | None:
    """The point one step past the first open edge ``chosen`` sits on (not tried yet), or None."""
    tried = [tuple(sorted(p.items())) for p in points]
    for name, state in edges(points, chosen, axes).items():
        if state["open_edge"]:
            value = axes[name].beyond(state["values"], low=state["open_edge"] == "low")
            point = {**chosen, name: value}
            if tuple(sorted(point.items())) not in tried:
                return point
    return None
