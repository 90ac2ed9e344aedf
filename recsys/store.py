"""Model directories: ``manifest.json`` (format, parameters, evidence weights, counts, where the
data came from) and ``arrays.npz`` (:meth:`FittedProfiles.to_arrays`, numbers and strings only).

No pickle: loading never executes anything from the directory (``allow_pickle=False``), and
every array is checked before use, so a corrupt model fails at load with one clear message.
Saving writes a temporary directory beside the target and renames it into place.
"""

from __future__ import annotations

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
from .files import jsonable
from .model import ProfileRecommender
from .model.list_blend import ListBlend
from .model.profiles import FittedProfiles
from .model.terms import Weights

FORMAT = "recsys-profile-model"
FORMAT_VERSION = 3


def fingerprint(ratings, attributes=None) -> str:
    """A SHA-256 of the training ratings and item attributes (independent of row order)."""
    import pandas as pd

    h = hashlib.sha256()
    for df, cols in ((ratings, ["user", "item", "rating"]), (attributes, ["item", "kind", "value"])):
        if df is None or len(df) == 0:
            continue
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
        "weights": jsonable(model.weights_.to_dict()),
        "new_item_weights": jsonable(w.to_dict()) if (w := getattr(model, "new_item_weights_", None)) else None,
        "list_blend": jsonable(b.to_dict()) if (b := getattr(model, "list_blend_", None)) else None,
        "report": jsonable(model.report_),
        "provenance": jsonable(provenance or {}),
    }
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}-"))
    try:
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
    path = Path(path)
    if not path.is_dir():
        raise ModelFileError(f"no model directory at {path}: train one with `recsys train --out {path}`")
    mf = path / "manifest.json"
    if not mf.exists():
        raise ModelFileError(f"{path} is not a model directory (no manifest.json)")
    try:
        manifest = json.loads(mf.read_text())
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


def load(path: str | Path) -> ProfileRecommender:
    """Load a model directory written by :func:`save`."""
    path = Path(path)
    manifest = read_manifest(path)
    try:
        with np.load(path / "arrays.npz", allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except FileNotFoundError as exc:
        raise ModelFileError(f"{path}: incomplete model directory ({exc.filename} missing)") from None
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ModelFileError(f"{path}: corrupt model files ({exc})") from None
    try:
        profiles = FittedProfiles.from_arrays(arrays)
        model = ProfileRecommender(**{k: _param(k, v) for k, v in manifest["params"].items()})
        weights = Weights.from_dict(manifest["weights"])
        new_item = manifest.get("new_item_weights")  # absent from models written before new items were scored
        new_item_weights = Weights.from_dict(new_item) if new_item else None
        list_blend = ListBlend.from_dict(manifest.get("list_blend"))  # absent before lists blended: none
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise ModelFileError(f"{path}: corrupt model ({type(exc).__name__}: {exc})") from None
    model.profiles_ = profiles
    model.weights_ = weights
    model.new_item_weights_ = new_item_weights
    model.list_blend_ = list_blend
    model.report_ = manifest.get("report", {})
    model.manifest_ = manifest
    return model


def _param(name: str, value):
    # JSON has no tuples
    return tuple(value) if name == "evidence" and isinstance(value, list) else value
