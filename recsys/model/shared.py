"""What refits of one model may share within an evaluation: the same inputs, the same result.

An evaluation fits the profile model many ways on the same ratings — its grid's penalties, a
control that changes the neighbourhoods, an ablation of the score's terms, the lists without their
blend — and each refit learnt the same co-clusters, neighbourhoods and item model again.  Within
:func:`shared_fits`, a step computed by :func:`remembered` under a key it met before returns the
first result (the same object: nobody writes to what a fit learnt); outside it nothing is kept and
no key is made (hashing a large input costs time).  The oldest results go when the kept ones pass
:data:`SHARED_BYTES`.

>>> calls = []
>>> with shared_fits():
...     a = remembered(lambda: ("double", 2), lambda: calls.append(1) or np.arange(2) * 2, lambda v: v.nbytes)
...     b = remembered(lambda: ("double", 2), lambda: calls.append(1) or np.arange(2) * 2, lambda v: v.nbytes)
>>> a is b, len(calls)
(True, 1)
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from .csr import Csr

SHARED_BYTES = 2 << 30
_MEMO: ContextVar[OrderedDict | None] = ContextVar("shared_fits", default=None)


@contextmanager
def shared_fits() -> Iterator[None]:
    """Within this block, :func:`remembered` steps with the same key are computed once."""
    token = _MEMO.set(OrderedDict())
    try:
        yield
    finally:
        _MEMO.reset(token)


def remembered(key_of: Callable[[], tuple], compute: Callable[[], object], nbytes: Callable[[object], int]):
    """``compute()``, or what a call with the key ``key_of()`` gave within :func:`shared_fits`;
    ``nbytes(value)``: what a kept value holds."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    key = key_of()
    if key in memo:
        memo.move_to_end(key)
        return memo[key][0]
    value = compute()
    memo[key] = (value, int(nbytes(value)))
    while len(memo) > 1 and sum(size for _, size in memo.values()) > SHARED_BYTES:
        memo.popitem(last=False)
    return value


def digest(*arrays) -> str:
    """A digest of arrays' types, shapes and bytes."""
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def csr_digest(m: Csr) -> str:
    values = np.ones(0) if m.values is None else m.values
    return digest(m.ptr, m.idx, values, np.asarray(m.shape), np.asarray([m.values is None]))


def csr_bytes(m: Csr) -> int:
    return m.ptr.nbytes + m.idx.nbytes + (0 if m.values is None else m.values.nbytes)


def frame_digest(frame, columns: list[str]) -> str:
    """A digest of a DataFrame's ``columns`` (those it has), row by row in order; of None, a constant."""
    import pandas as pd

    if frame is None:
        return "none"
    present = [c for c in columns if c in frame.columns]
    rows = pd.util.hash_pandas_object(frame[present], index=False).to_numpy()
    return f"{present}:{digest(rows)}"
