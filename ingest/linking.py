"""Linking MovieLens items to IMDb titles (``tt…`` ids)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import pandas as pd


@dataclass
class LinkReport:
    """How the items were linked: counts by method, the links refused and why, the items left unlinked."""

    n_items: int
    by_method: dict[str, int]
    unlinked: list[int]
    rejected: dict[str, int] = field(default_factory=dict)

    @property
    def n_linked(self) -> int:
        return sum(self.by_method.values())

    def __str__(self) -> str:
        parts = ", ".join(f"{k} {v:,}" for k, v in self.by_method.items())
        text = f"linked {self.n_linked:,} of {self.n_items:,} items to IMDb ({parts}); {len(self.unlinked):,} unlinked"
        if self.rejected:
            why = ", ".join(f"{k} {v:,}" for k, v in self.rejected.items())
            text += f"; {sum(self.rejected.values()):,} links refused ({why}), those movies keep their genres only"
        return text


_ARTICLE = re.compile(r"^(.*), (The|A|An|Les|La|Le|Il|Das|Die|Der|El|L')$", re.IGNORECASE)


def normalise_title(title: str) -> str:
    """Lower-case ASCII title without year, trailing article moved to the front, punctuation dropped.

    >>> normalise_title("Usual Suspects, The (1995)")
    'the usual suspects'
    """
    t = re.sub(r"\s*\(\d{4}\)\s*$", "", str(title)).strip()
    t = re.sub(r"\s*\([^)]*\)\s*$", "", t).strip()  # a trailing alternative title, e.g. "(Les Misérables)"
    m = _ARTICLE.match(t)
    if m:
        t = f"{m.group(2)} {m.group(1)}"
    t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", t.lower()).strip()


def link_items(
    items: pd.DataFrame,
    links: pd.DataFrame | None = None,
    details: pd.DataFrame | None = None,
    titles: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, LinkReport]:
    """Map each MovieLens item to an IMDb ``tconst``.

    In order of trust: ``links`` (``item, tconst``; the CSV releases' ``links.csv``); ``details``
    (``item, tconst`` from the IMDb URLs of the 100K details file); then title + year matching
    against ``titles`` (``tconst, title, year``, e.g. IMDb's ``title.basics``), accepted only when
    exactly one title matches.  ``details`` rows with a non-null ``problem`` (an entry that failed
    :func:`ingest.imdb.read_ml100k_details`' checks) are refused and counted in the report.

    Returns ``(item, tconst, method)`` rows and a :class:`LinkReport`.
    """
    remaining = pd.Index(items["item"].unique())
    found = []
    by_method: dict[str, int] = {}
    rejected: dict[str, int] = {}
    if details is not None and "problem" in details:
        refused = details["problem"].notna() & details["item"].isin(remaining)
        rejected = {str(k): int(v) for k, v in details.loc[refused, "problem"].value_counts().items()}
        details = details[~refused]
    for method, table in (("links.csv", links), ("imdb url", details)):
        if table is None or remaining.empty:
            continue
        t = table.dropna(subset=["tconst"]).drop_duplicates("item")
        t = t[t["item"].isin(remaining)]
        found.append(t[["item", "tconst"]].assign(method=method))
        by_method[method] = len(t)
        remaining = remaining.difference(t["item"])
    if titles is not None and not remaining.empty:
        left = items[items["item"].isin(remaining)].assign(key=lambda d: d["title"].map(normalise_title))
        right = titles.assign(key=titles["title"].map(normalise_title))
        m = left.merge(right[["key", "year", "tconst"]], on=["key", "year"], how="inner")
        unique = m[~m.duplicated("item", keep=False)]
        found.append(unique[["item", "tconst"]].assign(method="title+year"))
        by_method["title+year"] = len(unique)
        remaining = remaining.difference(unique["item"])
    out = pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=["item", "tconst", "method"])
    report = LinkReport(int(items["item"].nunique()), by_method, sorted(int(i) for i in remaining), rejected)
    return out, report
