"""Model directories: ``manifest.json`` (format, parameters, evidence weights, counts, where the
data came from) and ``arrays.npz`` (:meth:`FittedProfiles.to_arrays`, numbers and strings only).

No pickle: loading never executes anything from the directory (``allow_pickle=False``), and
every array is checked before use, so a corrupt model fails at load with one clear message.
Saving writes a temporary directory beside the target and renames it into place.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from .errors import ModelFileError
from .files import jsonable, umask
from .mapped_npz import CannotMap, read_arrays
from .model import ProfileRecommender
from .model.list_blend import ListBlend
from .model.profiles import FittedProfiles
from .model.state import Fitted
from .model.terms import Weights

FORMAT = "recsys-profile-model"
FORMAT_VERSION = 3
MODEL_FILES = ("manifest.json", "arrays.npz")  # what a model directory holds


def fingerprint(ratings, attributes=None) -> str:
    """A SHA-256 of the training ratings and item attributes (independent of row order)."""
    import pandas as pd

    h = hashlib.sha256()
    for df, cols in ((ratings, ["user", "item", "rating"]), (attributes, ["item", "kind", "value"])):
        if df is None or len(df) == 0:
            continue
        cols = [c for c in cols if c in df.columns]  # interactions have no rating
        row_hashes = pd.util.hash_pandas_object(df[cols], index=False).to_numpy()
        h.update(np.sort(row_hashes).tobytes())
    return h.hexdigest()


def save(model: ProfileRecommender, path: str | Path, provenance: dict | None = None) -> Path:
    """Write the fitted ``model`` to the directory ``path`` (replaced atomically if it exists)."""
    model.check_fitted()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "params": jsonable(model.get_params()),
        # none for a model fitted for the paper's rule only (scored=False): it loads as it was saved
        "weights": jsonable(w.to_dict()) if (w := getattr(model, "weights_", None)) else None,
        "new_item_weights": jsonable(w.to_dict()) if (w := getattr(model, "new_item_weights_", None)) else None,
        "list_blend": jsonable(b.to_dict()) if (b := getattr(model, "list_blend_", None)) else None,
        "report": jsonable(model.report_),
        "provenance": jsonable(provenance or {}),
    }
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}-"))
    try:
        tmp.chmod(0o777 & ~umask())  # mkdtemp's 0700 would keep the model from a colleague or a web server
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
        np.savez(tmp / "arrays.npz", **model.profiles_.to_arrays())
        if path.exists():
            if not (path / "manifest.json").exists() and any(path.iterdir()):
                raise ModelFileError(f"{path} exists and is not a model directory; choose another --out")
            old = path.with_name(f".{path.name}-old-{os.getpid()}")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def read_manifest(path: str | Path) -> dict:
    """The checked manifest of the model directory ``path``."""
    with _model_files(Path(path), ("manifest.json",)) as files:
        return _manifest(Path(path), files["manifest.json"].read())


def _manifest(path: Path, raw: bytes) -> dict:
    mf = path / "manifest.json"
    try:
        manifest = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{mf}: corrupt manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(f"{mf}: not a recsys profile model")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: model format version {version} is newer than this recsys supports ({FORMAT_VERSION}); "
            "upgrade recsys or retrain the model"
        )
    if version < FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: model format version {version} is from an older recsys; retrain it with `recsys train`"
        )
    return manifest


@contextlib.contextmanager
def _model_files(path: Path, names: tuple[str, ...] = MODEL_FILES):
    """The files ``names`` of the model directory ``path``, open for reading, all of one directory.

    They are opened relative to the directory itself (``dir_fd``), not by their paths: when
    ``recsys train`` replaces the directory while it is read (it renames a new one into place), the
    files read are still those of the directory opened, never a manifest of one model with the
    arrays of another."""
    if not path.is_dir():
        raise ModelFileError(f"no model directory at {path}: train one with `recsys train --out {path}`")
    with contextlib.ExitStack() as stack:
        opener = None
        if os.open in os.supports_dir_fd:
            try:
                dir_fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError as exc:
                raise ModelFileError(f"{path}: cannot read the model directory ({exc.strerror})") from None
            stack.callback(os.close, dir_fd)

            def opener(name, flags):
                return os.open(name, flags, dir_fd=dir_fd)

        files = {}
        for name in names:
            try:
                files[name] = stack.enter_context(open(name if opener else path / name, "rb", opener=opener))
            except FileNotFoundError:
                if name == "manifest.json":
                    raise ModelFileError(f"{path} is not a model directory (no manifest.json)") from None
                raise ModelFileError(f"{path}: incomplete model directory ({path / name} missing)") from None
            except OSError as exc:
                raise ModelFileError(f"{path / name}: cannot be read ({exc.strerror})") from None
        yield files


def load(path: str | Path) -> ProfileRecommender:
    """Load a model directory written by :func:`save`: its arrays are views of the file mapped in
    memory (:mod:`recsys.mapped_npz`), for the commands that load a model, use it and exit."""
    return load_with_hash(path, hashed=False, mapped=True)[0]


def _arrays(file, mapped: bool) -> dict[str, np.ndarray]:
    """The model's arrays: views of the mapped file if ``mapped`` and it can be mapped, else copies."""
    if mapped:
        try:
            return read_arrays(file)
        except CannotMap:  # a file system without mmap, say: the copies np.load makes
            file.seek(0)
    with np.load(file, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def load_with_hash(
    path: str | Path, hashed: bool = True, mapped: bool = False
) -> tuple[ProfileRecommender, str | None]:
    """Load a model directory written by :func:`save`, and the SHA-256 of the files it was loaded
    from (their names and bytes; ``None`` unless ``hashed``).  ``mapped``: the arrays are views of
    the file mapped in memory instead of copies (a long-lived process, the service, copies them:
    its model files may then be rewritten in place without harm)."""
    path = Path(path)
    with _model_files(path) as files:
        digest = None
        if hashed:
            h = hashlib.sha256()
            for name in MODEL_FILES:
                h.update(name.encode() + b"\0")
                for chunk in iter(lambda f=files[name]: f.read(1 << 20), b""):
                    h.update(chunk)
                files[name].seek(0)
            digest = h.hexdigest()
        manifest = _manifest(path, files["manifest.json"].read())
        try:
            arrays = _arrays(files["arrays.npz"], mapped)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise ModelFileError(f"{path}: corrupt model files ({exc})") from None
    try:
        profiles = FittedProfiles.from_arrays(arrays)
        model = ProfileRecommender(**{k: _param(k, v) for k, v in manifest["params"].items()})
        weights = Weights.from_dict(manifest["weights"]) if manifest["weights"] is not None else None
        new_item = manifest.get("new_item_weights")  # absent from models written before new items were scored
        new_item_weights = Weights.from_dict(new_item) if new_item else None
        list_blend = ListBlend.from_dict(manifest.get("list_blend"))  # absent before lists blended: none
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise ModelFileError(f"{path}: corrupt model ({type(exc).__name__}: {exc})") from None
    model.fitted_ = Fitted(profiles, manifest.get("report", {}), weights, new_item_weights, list_blend)
    model.manifest_ = manifest
    return model, digest


def _param(name: str, value):
    # JSON has no tuples
    return tuple(value) if name == "evidence" and isinstance(value, list) else value
