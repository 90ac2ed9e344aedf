"""Every user's like and dislike profiles as JSON or CSV (``recsys export``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..errors import ParameterError
from ..files import atomic_open
from ..model.explanation import explain_profile, profile_sides

FORMATS = ("json", "csv")
CSV_COLUMNS = ("user", "profile", "kind", "value", "coclusters")


def profiles(model) -> list[dict]:
    """:meth:`ProfileRecommender.explain` of every user, in user order."""
    model.check_fitted()
    fp = model.profiles_
    return [explain_profile(fp, u) for u in range(fp.n_users)]


def profile_rows(profile: dict) -> list[tuple]:
    """One row per profile attribute and per profile movie: user, profile, kind, value, co-clusters."""
    rows = []
    for side in profile_sides(profile):
        for kind, values in profile[side].items():
            rows += [(profile["user"], side, kind, v["value"], v["coclusters"]) for v in values]
        rows += [(profile["user"], side, "movie", m["name"], m["coclusters"]) for m in profile[f"{side}_movies"]]
    return rows


def write_profiles(model, path: str | Path, fmt: str = "json", source: str = "") -> int:
    """Write every user's profiles to ``path`` (atomically); returns the number of users."""
    if fmt not in FORMATS:
        raise ParameterError(f"--format must be json or csv, got {fmt!r}")
    all_profiles = profiles(model)
    with atomic_open(path) as f:
        if fmt == "json":
            # json.dump's text, a profile at a time by json.dumps: dump always takes the pure-Python
            # encoder (a write a value: 7.6 s for ml-100k's 943 profiles), dumps the C one
            f.write(json.dumps({"model": source, "profiles": []})[:-2])
            for k, p in enumerate(all_profiles):
                f.write((", " if k else "") + json.dumps(p, default=str))
            f.write("]}")
        else:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            for p in all_profiles:
                w.writerows(profile_rows(p))
    return len(all_profiles)
