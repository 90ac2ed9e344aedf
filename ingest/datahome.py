"""The data home: where data sets live, which remote files are known, and fetching them.

``RECSYS_DATA`` (default ``~/recsys_data``) holds one folder per data set, laid out as the
publisher's archive unpacks (``ml-100k/u.data``, ``ml-latest-small/ratings.csv``, …).
Downloads go through :mod:`pooch`: cached, checksummed, with a progress bar; a download
whose checksum does not match is deleted and reported.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataRequestError, DownloadError, MissingDataError

ENV = "RECSYS_DATA"


def data_home(home: str | Path | None = None) -> Path:
    """The data home: ``home`` if given, else ``$RECSYS_DATA``, else ``~/recsys_data``."""
    if home is not None:
        return Path(home).expanduser()
    return Path(os.environ.get(ENV, Path.home() / "recsys_data")).expanduser()


@dataclass(frozen=True)
class RemoteFile:
    """One downloadable file: URL, checksum (``sha256:…``/``md5:…`` or None) and size in bytes."""

    url: str
    known_hash: str | None
    size: int | None = None
    archive: bool = True  # a zip to unpack into the data home


@dataclass(frozen=True)
class Dataset:
    """A data set of the registry: its folder in the data home and where to get it."""

    name: str
    folder: str
    files: tuple[RemoteFile, ...]
    marker: str  # a file whose presence means the data set is in place
    description: str = ""
    note: str = ""
    members: dict = field(default_factory=dict)


_GL = "https://files.grouplens.org/datasets/movielens/"
_IMDB = "https://datasets.imdbws.com/"

REGISTRY: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset(
            "ml-100k",
            "ml-100k",
            (
                RemoteFile(
                    _GL + "ml-100k.zip",
                    "sha256:50d2a982c66986937beb9ffb3aa76efe955bf3d5c6b761f4e3a7cd717c6a3229",
                    4_924_029,
                ),
            ),
            "u.data",
            "MovieLens 100K: 100,000 ratings of 1,682 movies by 943 users, splits u1..u5, ua, ub",
        ),
        Dataset(
            "ml-100k-imdb",
            "ml-100k-imdb",
            (
                RemoteFile(
                    "https://raw.githubusercontent.com/manfredmichael/movielens-details/"
                    "deca05a31f7d5a53a75a3ac335d4dfc5e9d9ea63/movielens100k_details.json",
                    "sha256:91797362fe45e38b385e817b81eb53604af7f20596b50a594b6f07ca66c102c5",
                    2_441_794,
                    archive=False,
                ),
            ),
            "movielens100k_details.json",
            "IMDb director, writer and cast of the MovieLens 100K movies (scraped from IMDb title pages, "
            "manfredmichael/movielens-details)",
        ),
        Dataset(
            "ml-1m",
            "ml-1m",
            (RemoteFile(_GL + "ml-1m.zip", "md5:c4d9eecfca2ab87c1945afe126590906"),),
            "ratings.dat",
            "MovieLens 1M: 1,000,209 ratings (:: separated .dat files)",
        ),
        Dataset(
            "ml-latest-small",
            "ml-latest-small",
            (
                RemoteFile(
                    _GL + "ml-latest-small.zip",
                    "sha256:696d65a3dfceac7c45750ad32df2c259311949efec81f0f144fdfb91ebc9e436",
                ),
            ),
            "ratings.csv",
            "MovieLens latest small: 100,836 ratings, CSV release with links.csv",
        ),
        Dataset(
            "ml-25m",
            "ml-25m",
            (RemoteFile(_GL + "ml-25m.zip", "md5:6b51fb2759a8657d3bfcbfc42b592ada"),),
            "ratings.csv",
            "MovieLens 25M (CSV release)",
        ),
        Dataset(
            "imdb",
            "imdb",
            tuple(
                RemoteFile(_IMDB + f, None, archive=False)
                for f in ("title.basics.tsv.gz", "title.principals.tsv.gz", "name.basics.tsv.gz")
            ),
            "title.principals.tsv.gz",
            "IMDb non-commercial TSV dumps (genres, principals, names)",
            note="IMDb regenerates these dumps daily, so no fixed checksum exists; the files are "
            "checked to be gzip TSV with the expected header when read.",
        ),
    ]
}


def dataset(name: str) -> Dataset:
    try:
        return REGISTRY[name]
    except KeyError:
        raise DataRequestError(f"unknown data set {name!r}; known: {', '.join(REGISTRY)}") from None


def require(path: str | Path, name: str | None = None) -> Path:
    """Return ``path`` if it exists, else raise a FileNotFoundError saying where to get it."""
    path = Path(path)
    if path.exists():
        return path
    msg = f"missing data file {path}"
    if name in REGISTRY:
        ds = REGISTRY[name]
        urls = ", ".join(f.url for f in ds.files)
        msg += f": run `recsys fetch {name}` or download {urls} and unpack it so that this file exists"
    raise MissingDataError(msg)


class DownloadBar:
    """A one-line download progress bar on stderr, in the interface pooch drives (``total``,
    ``update``, ``reset``, ``close``): no extra dependency."""

    def __init__(self, name: str, stream=None):
        self.name, self.total, self.done = name, 0, 0
        self.stream = stream if stream is not None else sys.stderr
        self._shown = -1

    def update(self, n: int) -> None:
        self.done += n
        pct = int(100 * min(self.done, self.total) / self.total) if self.total else 0
        if pct != self._shown:
            self._shown = pct
            size = (
                f"{min(self.done, self.total or self.done) / 1e6:.1f}/{self.total / 1e6:.1f} MB" if self.total else ""
            )
            self.stream.write(f"\rdownloading {self.name} {pct:3d}% {size}")
            self.stream.flush()

    def reset(self) -> None:
        self.done, self._shown = 0, -1

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _retrieve(remote: RemoteFile, cache: Path, progress: bool) -> Path:
    import pooch

    fname = remote.url.rsplit("/", 1)[-1]
    downloader = pooch.HTTPDownloader(progressbar=DownloadBar(fname) if progress else False)
    try:
        return Path(
            pooch.retrieve(remote.url, known_hash=remote.known_hash, fname=fname, path=cache, downloader=downloader)
        )
    except ValueError as exc:  # pooch: hash mismatch; it has already removed the download
        raise DownloadError(f"download of {remote.url} rejected: {exc}") from None
    except OSError as exc:
        raise DownloadError(f"download of {remote.url} failed: {exc}") from None


def fetch(name: str, home: str | Path | None = None, progress: bool = True) -> Path:
    """Download data set ``name`` into the data home (a no-op when it is already there).

    Archives are verified against their checksum, then unpacked into a temporary folder and
    moved into place, so an interrupted or rejected fetch leaves nothing half-written.
    Returns the data set's folder.
    """
    ds = dataset(name)
    home = data_home(home)
    target = home / ds.folder
    if (target / ds.marker).exists():
        return target
    home.mkdir(parents=True, exist_ok=True)
    cache = home / ".downloads"
    with tempfile.TemporaryDirectory(dir=home, prefix=f".{ds.folder}-") as tmp:
        staging = Path(tmp) / ds.folder
        staging.mkdir()
        for remote in ds.files:
            got = _retrieve(remote, cache, progress)
            if remote.archive:
                _unpack(got, staging, ds.folder)
            else:
                shutil.copy2(got, staging / got.name)
        if not (staging / ds.marker).exists():
            raise DownloadError(f"{name}: the download does not contain {ds.marker}")
        if target.exists():  # a partial folder from an older layout: keep the user's files
            for item in staging.iterdir():
                dest = target / item.name
                if not dest.exists():
                    os.replace(item, dest)
        else:
            os.replace(staging, target)
    return target


def _unpack(archive: Path, dest: Path, folder: str) -> None:
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                parts = Path(info.filename).parts
                if info.is_dir() or not parts or ".." in parts or Path(info.filename).is_absolute():
                    continue
                rel = Path(*parts[1:]) if parts[0] == folder and len(parts) > 1 else Path(*parts)
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                with z.open(info) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
    except zipfile.BadZipFile:
        raise DownloadError(f"{archive} is not a valid zip archive") from None
