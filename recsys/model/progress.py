"""How a long step of fitting tells how far it is: a fraction of the step, to callbacks that want it.

A fit's ``progress`` callback receives a one-line message as each step starts.  If it also has a
``fraction(done, detail)`` method (the command line's has: it draws the share done and the time
left), long steps call it as their work completes — ``detail`` names the part of the step under
way (e.g. ``relaxation`` within a co-clustering).  A plain callable, such as a list's ``append``,
is never told.
"""

from __future__ import annotations


def tell(say, done: float, detail: str = "") -> None:
    """Tell ``say`` that the share ``done`` (0 to 1) of the current step's ``detail`` is complete."""
    fraction = getattr(say, "fraction", None)
    if fraction is not None:
        fraction(min(max(float(done), 0.0), 1.0), detail)


# HBLCoClust's steps (its ``fit(progress=...)``), as a progress line names them
COCLUSTER_STEPS = {
    "filter": "frequent features",
    "lsh": "LSH seeds",
    "regions": "regions",
    "inclose": "In-Close concepts",
    "relax": "relaxation",
    "merge": "merging equal feature sets",
}
