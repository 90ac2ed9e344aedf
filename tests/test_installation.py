"""What ``pip install .`` installed is this checkout, file for file: every module of the packages,
every template and kernel list, byte for byte (the installation's RECORD hashes), and nothing else of them. The
suite imports the checkout, and the README's commands run it too (tests/test_quickstart.py): this
is what makes them tests of the installation."""

from __future__ import annotations

import base64
import hashlib
import json
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("coclust", "ingest", "recsys")


def _checkout_files() -> dict[str, Path]:
    """The files a wheel of the checkout holds: the packages' modules, recsys.present's templates and
    the kernel lists of the first use (recsys/kernels)."""
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    files += [p for p in (ROOT / "recsys" / "present" / "templates").iterdir() if p.is_file()]
    files += list((ROOT / "recsys" / "kernels").glob("*.txt"))
    return {p.relative_to(ROOT).as_posix(): p for p in files}


def _record_hash(path: Path) -> str:
    """A file's hash as a wheel's RECORD writes it: sha256, urlsafe base64 without padding."""
    digest = hashlib.sha256(path.read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_the_installation_is_the_checkout():
    # the installation's own record (a build leaves an egg-info in the checkout, without hashes)
    installed_dists = [d for d in metadata.distributions(name="hblcoclust") if d.read_text("RECORD")]
    if not installed_dists:
        pytest.skip("hblcoclust is not installed")
    (dist,) = installed_dists
    direct = dist.read_text("direct_url.json")
    if direct and json.loads(direct).get("dir_info", {}).get("editable"):
        pytest.skip("an editable install: the installation is the checkout itself")
    installed = {
        f.as_posix(): f"{f.hash.mode}={f.hash.value}" if f.hash else None
        for f in dist.files or []
        if f.parts[0] in PACKAGES
        and (f.suffix == ".py" or "templates" in f.parts or f.parts[:2] == ("recsys", "kernels"))
    }
    checkout = _checkout_files()
    assert sorted(installed) == sorted(checkout), "the installation's files are not the checkout's"
    differ = [name for name, path in checkout.items() if installed[name] != _record_hash(path)]
    assert not differ, f"installed files that differ from the checkout: {differ}"


def test_every_kernel_ci_compiles_first_still_exists():
    """``.ci/kernels.py`` compiles the kernels of ``.ci/kernels.txt`` before the suite: a kernel renamed
    or removed since the list was recorded would be compiled by the tests again (record it anew)."""
    import importlib

    import numba

    listed = {line.split("\t")[0] for line in (ROOT / ".ci" / "kernels.txt").read_text().splitlines()}
    missing = []
    for kernel in sorted(listed):
        module, name = kernel.split(":")
        found = getattr(importlib.import_module(module), name, None)
        if not isinstance(found, numba.core.registry.CPUDispatcher):
            missing.append(kernel)
    assert len(listed) > 40 and not missing, missing
