"""Writing files atomically, and numpy values as plain Python for JSON: one definition each.

>>> jsonable({"n": np.int64(3), "x": np.array([0.5, 1.0]), "kinds": ("genre",)})
{'n': 3, 'x': [0.5, 1.0], 'kinds': ['genre']}
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import numpy as np


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = ""):
    """Open a temporary file for writing; it replaces ``path`` only if the block completes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp's 0600 would keep the file from the user's group and others
        kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def umask() -> int:
    """The process's umask (read by setting it and putting it back: there is no other way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def plain(x):
    """A numpy scalar as the Python scalar it holds; anything else unchanged."""
    return x.item() if isinstance(x, np.generic) else x


def jsonable(v):
    """``v`` with every numpy scalar and array (also inside dicts, lists and tuples) made plain."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return plain(v)


def json_default(x):
    """``default=`` of :func:`json.dump`: numpy values made plain, anything else as text."""
    if isinstance(x, (np.generic, np.ndarray)):
        return jsonable(x)
    return str(x)
