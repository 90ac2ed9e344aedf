"""recsys.mapped_npz: np.savez archives read as views of the mapped file, the same arrays as
np.load gives, and every corruption np.load would catch caught."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from recsys.mapped_npz import read_arrays

DTYPES = st.sampled_from([np.int64, np.int32, np.uint32, np.float64, np.float32, np.bool_, "<U7"])


def _read(path):
    with open(path, "rb") as f:
        return read_arrays(f)


def _np_load(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


@settings(max_examples=40, deadline=None)
@given(
    arrays=st.lists(
        DTYPES.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))),
        min_size=1,
        max_size=4,
    ),
    fortran=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_same_arrays_as_np_load(tmp_path_factory, arrays, fortran):
    path = tmp_path_factory.mktemp("npz") / "a.npz"
    named = {f"a{k}": (np.asfortranarray(a) if f else a) for k, (a, f) in enumerate(zip(arrays, fortran, strict=False))}
    np.savez(path, **named)
    got, want = _read(path), _np_load(path)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
        np.testing.assert_array_equal(got[k], want[k])


def test_views_are_copy_on_write(tmp_path):
    path = tmp_path / "a.npz"
    np.savez(path, x=np.arange(1000, dtype=np.int64))
    before = path.read_bytes()
    x = _read(path)["x"]
    assert not x.flags.owndata  # a view of the mapping, not a copy
    x[:] = -1  # writable, privately
    assert path.read_bytes() == before
    np.testing.assert_array_equal(_read(path)["x"], np.arange(1000))


def _corrupt_byte(path, at_from_array_end: int) -> None:
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("x.npy")
    # a byte inside the member's data (its last bytes are the array's)
    local = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[local + info.file_size - at_from_array_end] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_flipped_byte_fails_the_crc(tmp_path):
    path = tmp_path / "a.npz"
    np.savez(path, x=np.arange(1000, dtype=np.int64))
    _corrupt_byte(path, 8)
    with pytest.raises(zipfile.BadZipFile):  # np.load's own error for it
        _np_load(path)
    with pytest.raises(ValueError, match="CRC"):
        _read(path)


@pytest.mark.parametrize("keep", [0, 10, 200, -30])
def test_truncated_or_empty_files_fail(tmp_path, keep):
    path = tmp_path / "a.npz"
    np.savez(path, x=np.arange(1000, dtype=np.int64))
    data = path.read_bytes()
    path.write_bytes(data[: keep if keep >= 0 else len(data) + keep])
    with pytest.raises((ValueError, zipfile.BadZipFile)):
        _read(path)


def test_compressed_members_and_object_arrays_are_refused(tmp_path):
    packed = tmp_path / "c.npz"
    np.savez_compressed(packed, x=np.arange(1000))
    with pytest.raises(ValueError, match="not a stored"):
        _read(packed)
    objects = tmp_path / "o.npz"
    np.savez(objects, x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="object arrays"):
        _read(objects)


@pytest.mark.filterwarnings("ignore:Stored array in format 2.0")
def test_a_header_numpy_would_not_read_is_refused(tmp_path):
    # a structured dtype of many fields: a header past np.load's safe size (and past 64 KiB, so
    # np.save writes it in .npy version 2.0)
    dtype = np.dtype([(f"field_{k}", "<i1") for k in range(6000)])
    path = tmp_path / "wide.npz"
    np.savez(path, x=np.zeros(3, dtype=dtype))
    with zipfile.ZipFile(path) as z, z.open("x.npy") as member:
        assert np.lib.format.read_magic(member) == (2, 0)
    with pytest.raises(ValueError, match="large"):
        _np_load(path)
    with pytest.raises(ValueError, match="large"):
        _read(path)


def test_a_file_that_cannot_be_mapped_says_so(tmp_path):
    """No file descriptor (an in-memory file): CannotMap, an OSError that is not a ValueError (the
    callers read ValueError as corrupt)."""
    import io

    from recsys.mapped_npz import CannotMap

    np.savez(tmp_path / "a.npz", x=np.arange(3))
    with pytest.raises(CannotMap) as caught:
        read_arrays(io.BytesIO((tmp_path / "a.npz").read_bytes()))
    assert not isinstance(caught.value, ValueError)
