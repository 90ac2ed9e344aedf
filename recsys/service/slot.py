"""The model a server answers with, and how it is swapped for another without dropping requests.

A request takes :meth:`ModelSlot.current` once and works on that :class:`Served` model to the end,
so a reload never changes a model under a request in flight: the old one is dropped when the last
request holding it finishes.  A new model directory is loaded and checked completely (a few
predictions) before it replaces the old one; a broken directory raises and changes nothing.

With several worker processes each holds its own slot.  The worker that is asked to reload writes
the new directory and a generation number to a small control file shared by the workers (written
atomically); every worker compares the file's generation before each request (one ``stat``) and
loads the new directory in the background when it is behind, answering with the old one meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelFileError
from ..files import atomic_open


@dataclass(frozen=True, eq=False)
class Served:
    """A loaded model and what the service says about it."""

    model: object  # a fitted ProfileRecommender
    path: str
    model_id: str
    generation: int
    titles_lower: list = field(repr=False)  # search keys, one per item
    popularity: np.ndarray = field(repr=False)  # training ratings per item

    @classmethod
    def load(cls, path: str | Path, generation: int) -> Served:
        """Load and check the model directory ``path``; :class:`~recsys.errors.ModelFileError` if broken."""
        from ..store import load

        path = Path(path).resolve()
        model = load(path)
        try:
            _smoke_test(model)
        except Exception as exc:  # any failure of a loaded model is a broken directory
            raise ModelFileError(f"{path}: the model loads but cannot answer ({type(exc).__name__}: {exc})") from None
        fp = model.profiles_
        digest = hashlib.sha256((path / "manifest.json").read_bytes()).hexdigest()[:12]
        titles = [f"{t} {i}".lower() for t, i in zip(fp.item_titles.tolist() or [""] * fp.n_items, fp.items.tolist())]
        popularity = np.bincount(fp.ratings.idx, minlength=fp.n_items)
        return cls(model, str(path), digest, generation, titles, popularity)

    def health(self) -> dict:
        fp = self.model.profiles_
        manifest = getattr(self.model, "manifest_", {})
        prov = manifest.get("provenance", {})
        return {
            "status": "ok",
            "model": {
                "id": self.model_id,
                "path": self.path,
                "created": manifest.get("created"),
                "commit": prov.get("commit"),
                "dataset": prov.get("dataset"),
                "split": prov.get("split"),
            },
            "generation": self.generation,
            "worker": os.getpid(),
            "counts": {
                "users": int(fp.n_users),
                "items": int(fp.n_items),
                "ratings": int(fp.ratings.nnz),
                "like_coclusters": len(fp.like),
                "dislike_coclusters": len(fp.dislike),
            },
        }


def _smoke_test(model) -> None:
    """A model that loads must also answer: one list, one prediction, one new person."""
    fp = model.profiles_
    if fp.n_users == 0 or fp.n_items == 0:
        raise ValueError("the model has no users or no items")
    user = fp.users[0]
    recs = model.recommend(user, 5)
    if recs:
        model.predict(user, recs[0]["item"], unknown="raise")
        # a new person as the page makes one (five ratings, a list of ten): every kernel that
        # path compiles is compiled here, before the first person waits for it
        model.recommend_for({r["item"]: float(fp.ratings.values.max()) for r in recs}, 10)


class ModelSlot:
    """The current :class:`Served` model of one worker process, swapped atomically.

    ``control`` is the file the workers of one server share (see the module's docstring).
    """

    def __init__(self, path: str | Path, control: str | Path):
        self.control = Path(control)
        self._lock = threading.Lock()
        state = _read_control(self.control)
        if state is None:  # the first worker to start publishes the initial model
            state = {"path": str(Path(path).resolve()), "generation": 0}
            _write_control(self.control, state)
        # the stamp of the state read, taken before loading: a reload published by another worker
        # while this one loads shows as a change at the first request, and is caught up with then
        self._seen = self._stamp()
        state = _read_control(self.control) or state
        self._served = Served.load(state["path"], state["generation"])

    def current(self) -> Served:
        """The model to answer one request with.  When another worker has published a reload, the
        new model is loaded in the background and this one keeps answering until it is ready."""
        stamp = self._stamp()
        if stamp != self._seen and not self._lock.locked():
            threading.Thread(target=self._catch_up, args=(stamp,), daemon=True).start()
        return self._served

    def reload(self, path: str | Path) -> Served:
        """Load ``path``, check it, make it current here and in every other worker; the old model
        stays if ``path`` is broken."""
        with self._lock:
            state = _read_control(self.control) or {"generation": self._served.generation}
            served = Served.load(path, max(state["generation"], self._served.generation) + 1)
            _write_control(self.control, {"path": served.path, "generation": served.generation})
            self._served, self._seen = served, self._stamp()
            return served

    def _catch_up(self, stamp) -> None:
        if not self._lock.acquire(blocking=False):  # a load is under way already
            return
        try:
            state = _read_control(self.control)
            self._seen = stamp
            if state is not None and state["generation"] > self._served.generation:
                self._served = Served.load(state["path"], state["generation"])
        except ModelFileError:  # checked by the worker that published it; keep answering
            pass
        finally:
            self._lock.release()

    def _stamp(self):
        try:
            st = os.stat(self.control)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)


def _read_control(path: Path) -> dict | None:
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not isinstance(state.get("generation"), int) or "path" not in state:
        return None
    return state


def _write_control(path: Path, state: dict) -> None:
    with atomic_open(path) as f:
        f.write(json.dumps(state))
