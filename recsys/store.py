"""Model directories: ``manifest.json`` (format version, parameters, data fingerprint, learned
weights), ``vocab.json`` (user, item and attribute ids) and ``arrays.npz`` (sparse matrices as
their CSR parts).  No pickle: loading never executes anything from the directory.  Saving
writes a temporary directory beside the target and renames it into place.
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
import pandas as pd
import scipy.sparse as sp

from .baselines import SVDFactors
from .model import ProfileRecommender, _Core
from .profiles import Profiles

FORMAT = "recsys-profile-model"
FORMAT_VERSION = 1
_MATRICES = (
    "item_attrs",
    "like_support",
    "dislike_support",
    "like_members",
    "dislike_members",
    "like_features",
    "dislike_features",
    "rated_like",
    "rated_dislike",
)


def fingerprint(ratings: pd.DataFrame, attributes: pd.DataFrame) -> str:
    """A SHA-256 of the training ratings and item attributes (order-independent)."""
    h = hashlib.sha256()
    for df, cols in ((ratings, ["user", "item", "rating"]), (attributes, ["item", "kind", "value"])):
        row_hashes = pd.util.hash_pandas_object(df[cols].astype(str), index=False).to_numpy()
        h.update(np.sort(row_hashes).tobytes())
    return h.hexdigest()


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def _ids(index) -> list:
    return [x.item() if isinstance(x, np.generic) else x for x in index]


def save(model: ProfileRecommender, path: str | Path, data_fingerprint: str | None = None, extra: dict | None = None):
    """Write ``model`` to the directory ``path`` (replaced atomically if it exists)."""
    model._check_fitted()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    core = model.core_
    mats = {
        "item_attrs": core.item_attrs,
        "like_support": core.profiles.like_support,
        "dislike_support": core.profiles.dislike_support,
        "like_members": core.profiles.like_members,
        "dislike_members": core.profiles.dislike_members,
        "like_features": core.profiles.like_features,
        "dislike_features": core.profiles.dislike_features,
        "rated_like": core.rated_like,
        "rated_dislike": core.rated_dislike,
    }
    arrays = {}
    for name, m in mats.items():
        m = sp.csr_matrix(m)
        # 0/1 matrices (memberships, features, ratings) need no data array: it is all ones
        if not (m.data == 1).all():
            arrays[f"{name}__data"] = m.data.astype(np.float32)
        arrays[f"{name}__indices"] = m.indices.astype(np.int32)
        arrays[f"{name}__indptr"] = m.indptr.astype(np.int64)
        arrays[f"{name}__shape"] = np.array(m.shape)
    if hasattr(model, "svd_"):
        arrays.update(
            {
                k: (np.asarray(v, dtype=object).astype(str) if v.dtype == object else v)
                for k, v in model.svd_.arrays().items()
            }
        )
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "params": _jsonable(model.get_params()),
        "data_fingerprint": data_fingerprint,
        "like_rate": core.like_rate,
        "counts": _jsonable(core.counts),
        "relations": _jsonable(model.relations_summary_),
        "scored": None
        if not hasattr(model, "weights_")
        else {
            "weights": model.weights_,
            "intercept": model.intercept_,
            "term_means": model.term_means_,
            "decision_threshold": model.decision_threshold_,
        },
        "has_svd": hasattr(model, "svd_"),
        "timings": _jsonable(model.timings_),
        **(extra or {}),
    }
    vocab = {"users": _ids(core.users), "items": _ids(core.items), "attributes": [str(a) for a in core.attrs]}
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}-"))
    try:
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2))
        (tmp / "vocab.json").write_text(json.dumps(vocab))
        np.savez_compressed(tmp / "arrays.npz", **arrays)
        if path.exists():
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
        raise FileNotFoundError(f"no model directory at {path}: train one with `recsys train --out {path}`")
    mf = path / "manifest.json"
    if not mf.exists():
        raise FileNotFoundError(f"{path} is not a model directory (no manifest.json)")
    try:
        manifest = json.loads(mf.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{mf}: corrupt manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"{mf}: not a recsys profile model")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(
            f"{path}: model format version {version} is newer than this recsys supports ({FORMAT_VERSION}); "
            "upgrade recsys or retrain the model"
        )
    return manifest


def load(path: str | Path) -> ProfileRecommender:
    """Load a model directory written by :func:`save`."""
    path = Path(path)
    manifest = read_manifest(path)
    try:
        vocab = json.loads((path / "vocab.json").read_text())
        with np.load(path / "arrays.npz", allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except FileNotFoundError as exc:
        raise ValueError(f"{path}: incomplete model directory ({exc.filename} missing)") from None
    except (json.JSONDecodeError, UnicodeDecodeError, zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ValueError(f"{path}: corrupt model files ({exc})") from None
    try:
        mats = {}
        for name in _MATRICES:
            indices = arrays[f"{name}__indices"]
            data = arrays.get(f"{name}__data", np.ones(len(indices), dtype=np.float32))
            mats[name] = sp.csr_matrix(
                (data, indices, arrays[f"{name}__indptr"]), shape=tuple(arrays[f"{name}__shape"])
            )
        profiles = Profiles(
            mats["like_support"],
            mats["dislike_support"],
            mats["like_members"],
            mats["dislike_members"],
            mats["like_features"],
            mats["dislike_features"],
        )
        core = _Core(
            pd.Index(vocab["users"]),
            pd.Index(vocab["items"]),
            np.asarray(vocab["attributes"], dtype=object),
            mats["item_attrs"],
            profiles,
            mats["rated_like"],
            mats["rated_dislike"],
            float(manifest["like_rate"]),
            manifest.get("counts", {}),
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"{path}: corrupt model arrays ({exc})") from None
    model = ProfileRecommender(**manifest["params"])
    model.core_ = core
    model.relations_summary_ = manifest.get("relations", {})
    model.timings_ = manifest.get("timings", {})
    if manifest.get("scored"):
        s = manifest["scored"]
        model.weights_, model.intercept_ = s["weights"], s["intercept"]
        model.term_means_, model.decision_threshold_ = s["term_means"], s["decision_threshold"]
    if manifest.get("has_svd"):
        svd_arrays = dict(arrays)
        for k in ("svd_users", "svd_items"):
            svd_arrays[k] = _restore_ids(arrays[k], vocab)
        model.svd_ = SVDFactors.from_arrays(svd_arrays)
    model.manifest_ = manifest
    return model


def _restore_ids(values: np.ndarray, vocab: dict) -> np.ndarray:
    # ids were stored as their string form when they were Python objects; map back via the vocabulary
    if values.dtype.kind not in "US":
        return values
    lookup = {str(x): x for x in vocab["users"] + vocab["items"]}
    return np.array([lookup.get(v, v) for v in values.tolist()], dtype=object)
