"""The model a server answers with, and how it is swapped for another without dropping requests.

A request takes :meth:`ModelSlot.current` once and works on that :class:`Served` model to the end,
so a reload never changes a model under a request in flight: the old one is dropped when the last
request holding it finishes.  A new model directory is loaded and checked completely (a few
predictions) before it replaces the old one; a broken directory raises and changes nothing.  A
directory replaced while it is read (``recsys train --out`` renames a new one into place) gives the
model of one directory or the other, never a mixture (:func:`recsys.store.load_with_hash`).

With several worker processes each holds its own slot.  The worker that is asked to reload writes
the new directory, the hash of its content and a generation number to a small control file shared
by the workers (written atomically), holding a lock on it that the other workers' reloads wait
for, so that two reloads at once are taken one after the other.  Every worker compares the file
before each request (one ``stat``) and loads the published model in the background when it differs
from its own, answering with its old one meanwhile; a load that fails (or finds other content than
was published) is tried again later, with growing pauses, until the worker has the model.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelFileError
from ..files import atomic_open
from .starters import varied_popular

try:  # POSIX; elsewhere reloads in several workers at once are not serialised
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

STARTERS = 24  # popular, varied items kept for new people (GET /items/starters)
WORKER = secrets.token_hex(4)  # names this process in /health without giving its pid away
log = logging.getLogger("recsys.serve")


@dataclass(frozen=True, eq=False)
class Served:
    """A loaded model and what the service says about it."""

    model: object  # a fitted ProfileRecommender
    path: str
    content: str  # sha256 of the files it was loaded from
    generation: int
    titles_lower: list = field(repr=False)  # search keys, one per item
    popularity: np.ndarray = field(repr=False)  # training ratings per item
    starters: np.ndarray = field(repr=False)  # popular items of varied genres, for a new person to rate first

    @property
    def model_id(self) -> str:
        return self.content[:12]

    @classmethod
    def load(cls, path: str | Path, generation: int) -> Served:
        """Load and check the model directory ``path``; :class:`~recsys.errors.ModelFileError` if broken."""
        from ..store import load_with_hash

        try:
            path = Path(path).resolve()
        except (OSError, ValueError) as exc:  # a NUL in it, a loop of links
            raise ModelFileError(f"{path!r} is not a usable directory name ({exc})") from None
        model, content = load_with_hash(path)  # one directory's files, even if it is replaced meanwhile
        try:
            _smoke_test(model)
        except Exception as exc:  # any failure of a loaded model is a broken directory
            raise ModelFileError(f"{path}: the model loads but cannot answer ({type(exc).__name__}: {exc})") from None
        fp = model.profiles_
        titles = [f"{t} {i}".lower() for t, i in zip(fp.item_titles.tolist() or [""] * fp.n_items, fp.items.tolist())]
        popularity = np.bincount(fp.ratings.idx, minlength=fp.n_items)
        starters = varied_popular(popularity, fp.item_attributes, fp.attributes, STARTERS)
        return cls(model, str(path), content, generation, titles, popularity, starters)

    def health(self) -> dict:
        fp = self.model.profiles_
        manifest = getattr(self.model, "manifest_", {})
        prov = manifest.get("provenance", {})
        return {
            "status": "ok",
            "model": {
                "id": self.model_id,
                "created": manifest.get("created"),
                "commit": prov.get("commit"),
                "dataset": prov.get("dataset"),
                "split": prov.get("split"),
            },
            "generation": self.generation,
            "worker": WORKER,
            "feedback": fp.feedback,
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
        model.recommend({r["item"]: float(fp.ratings.values.max()) for r in recs}, 10)


class ModelSlot:
    """The current :class:`Served` model of one worker process, swapped atomically.

    ``control`` is the file the workers of one server share (see the module's docstring).
    """

    RETRY_FIRST, RETRY_MAX = 0.5, 30.0  # seconds before a failed catch-up is tried again

    def __init__(self, path: str | Path, control: str | Path):
        self.control = Path(control)
        self._lock = threading.Lock()
        self._failures, self._retry_at = 0, 0.0
        with self._all_workers():
            # the stamp of the state read, taken before loading: a reload published by another
            # worker while this one loads shows as a change at the first request, and is caught up
            # with then
            self._seen = self._stamp()
            state = _read_control(self.control)
            if state is None:  # the first worker to start publishes the initial model
                self._served = Served.load(path, 0)
                self._publish(self._served)
                return
        served = Served.load(state["path"], state["generation"])
        if served.content != state["content"]:  # replaced since it was published: try again later
            self._seen = None
        self._served = served

    def current(self) -> Served:
        """The model to answer one request with.  When another worker has published a reload, the
        new model is loaded in the background and this one keeps answering until it is ready."""
        stamp = self._stamp()
        if stamp != self._seen and not self._lock.locked() and time.monotonic() >= self._retry_at:
            threading.Thread(target=self._catch_up, args=(stamp,), daemon=True).start()
        return self._served

    def reload(self, path: str | Path) -> Served:
        """Load ``path``, check it, make it current here and in every other worker; the old model
        stays if ``path`` is broken.  Reloads in several workers at once are taken in turn."""
        with self._lock, self._all_workers():
            state = _read_control(self.control) or {"generation": self._served.generation}
            served = Served.load(path, max(state["generation"], self._served.generation) + 1)
            self._publish(served)
            self._served, self._failures, self._retry_at = served, 0, 0.0
            return served

    def _publish(self, served: Served) -> None:
        _write_control(self.control, {"path": served.path, "generation": served.generation, "content": served.content})
        self._seen = self._stamp()

    def _catch_up(self, stamp) -> None:
        if not self._lock.acquire(blocking=False):  # a load is under way already
            return
        try:
            state = _read_control(self.control)
            if state is None:
                raise ModelFileError(f"{self.control}: the workers' control file cannot be read")
            if (state["generation"], state["content"]) != (self._served.generation, self._served.content):
                served = Served.load(state["path"], state["generation"])
                if served.content != state["content"]:
                    raise ModelFileError(f"{served.path}: its content changed since another worker loaded it")
                self._served = served
            self._seen, self._failures, self._retry_at = stamp, 0, 0.0
        except ModelFileError as exc:  # keep answering with the old model; try again later
            self._failures += 1
            pause = min(self.RETRY_MAX, self.RETRY_FIRST * 2 ** (self._failures - 1))
            self._retry_at = time.monotonic() + pause
            log.warning("recsys serve: catching up with a reload failed (%s); trying again in %.1f s", exc, pause)
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _all_workers(self):
        """Held by one worker process at a time: around publishing a model."""
        if fcntl is None:  # pragma: no cover
            yield
            return
        with open(self.control.with_name(self.control.name + ".lock"), "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

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
    if not isinstance(state, dict) or not isinstance(state.get("generation"), int):
        return None
    if not isinstance(state.get("path"), str) or not isinstance(state.get("content"), str):
        return None
    return state


def _write_control(path: Path, state: dict) -> None:
    with atomic_open(path) as f:
        f.write(json.dumps(state))
