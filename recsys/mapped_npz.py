"""The arrays of an ``np.savez`` archive read in place: views of the file mapped in memory.

``np.load`` copies every array out of the archive into new memory.  A model of a million ratings
holds 170 MB of arrays, and on this project's machines (virtual ones) memory a process touches for
the first time costs more than reading the file: ``np.load`` took 0.23-0.64 s for such a model,
mapping it 0.01 s, and the lists then read the pages from the page cache.  ``np.savez`` stores its
members uncompressed, each a ``.npy`` file (a header, then the array's bytes), so each array is a
view of the mapping at its offset.  The mapping is copy-on-write (``ACCESS_COPY``): an array
written to gets private pages, the file never changes.

Every member's CRC-32 is still checked (as ``zipfile`` does when ``np.load`` reads it; 0.07 s for
170 MB), so a corrupt archive fails here.  A mapped file must not be rewritten in place while it is
mapped (reading a truncated page raises SIGBUS): ``recsys.store.save`` replaces a model by renaming
a new directory into place, which leaves the mapped file as it was.
"""

from __future__ import annotations

import io
import mmap
import zipfile
import zlib
from typing import BinaryIO

import numpy as np
from numpy.lib import format as npy

_LOCAL_HEADER = 30  # bytes of a zip member's local header before its name and extra field
_NPY_HEADERS = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}


class CannotMap(OSError):
    """The file could not be mapped in memory; nothing says it is corrupt."""


def read_arrays(file: BinaryIO) -> dict[str, np.ndarray]:
    """The arrays of the uncompressed ``.npz`` open as ``file`` (``np.savez``'s), by name, as
    copy-on-write views of the file mapped in memory.  Raises :class:`CannotMap` when ``file``
    cannot be mapped, ``ValueError`` (or ``zipfile.BadZipFile``) for anything else: an empty file,
    a compressed or corrupt member, an object array."""
    try:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)
    except io.UnsupportedOperation as exc:  # no file descriptor (also a ValueError: caught first)
        raise CannotMap(f"no file to map ({exc})") from exc
    except OSError as exc:  # ENODEV and the like; an empty file is a ValueError, and corrupt
        raise CannotMap(f"cannot be mapped ({exc})") from exc
    with zipfile.ZipFile(file) as archive:
        members = archive.infolist()
    arrays = {}
    for info in members:
        if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
            raise ValueError(f"{info.filename}: not a stored .npy member")
        start = _data_start(mapped, info)
        if start + info.file_size > len(mapped):
            raise ValueError(f"{info.filename}: truncated")
        with memoryview(mapped)[start : start + info.file_size] as data:
            if zlib.crc32(data) != info.CRC:
                raise ValueError(f"{info.filename}: bad CRC-32")
        arrays[info.filename[: -len(".npy")]] = _npy_view(mapped, start, info.file_size)
    return arrays


def _data_start(mapped: mmap.mmap, info: zipfile.ZipInfo) -> int:
    """Where a member's bytes start: after its local header, name and extra field (whose lengths
    may differ from the central directory's)."""
    at = info.header_offset
    header = mapped[at : at + _LOCAL_HEADER]
    if len(header) < _LOCAL_HEADER or header[:4] != b"PK\x03\x04":
        raise ValueError(f"{info.filename}: bad local header")
    name_len = int.from_bytes(header[26:28], "little")
    extra_len = int.from_bytes(header[28:30], "little")
    return at + _LOCAL_HEADER + name_len + extra_len


def _npy_view(mapped: mmap.mmap, start: int, size: int) -> np.ndarray:
    """The array of the ``.npy`` bytes ``mapped[start : start + size]``, a view of them."""
    version = npy.read_magic(io.BytesIO(mapped[start : start + 8]))
    if version not in _NPY_HEADERS:
        raise ValueError(f".npy format version {version} is not read in place")
    # the header's length follows the magic: 2 bytes in version 1.0, 4 in 2.0 (little-endian)
    width = 2 if version == (1, 0) else 4
    header_len = int.from_bytes(mapped[start + 8 : start + 8 + width], "little")
    head = io.BytesIO(mapped[start : start + min(size, 8 + width + header_len)])
    head.seek(8)  # past the magic, where the header readers start
    shape, fortran, dtype = _NPY_HEADERS[version](head)
    if dtype.hasobject:
        raise ValueError("object arrays are not read (they would need pickle)")
    count = int(np.prod(shape, dtype=np.int64))
    offset = start + head.tell()
    if offset + count * dtype.itemsize > start + size:
        raise ValueError("array larger than its member")
    if count == 0:
        return np.empty(shape, dtype=dtype)
    flat = np.frombuffer(mapped, dtype=dtype, count=count, offset=offset)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
