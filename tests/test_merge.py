"""Step 6: merged co-clusters are tightened back to ``min_density`` exactly as specified."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from coclust.relax import _tighten


def _tighten_reference(X, r_ptr, rows, c_ptr, cols, groups, density):
    """The rule, one group at a time: drop the sparsest row (ties: the later one) while the
    density of rows × cols is below ``density``; the kept rows sorted."""
    X = X.toarray()
    rows = rows.copy()
    new_len = np.diff(r_ptr)
    for g in groups:
        rg = list(rows[r_ptr[g] : r_ptr[g + 1]])
        cg = cols[c_ptr[g] : c_ptr[g + 1]]
        ones = {r: int(X[r, cg].sum()) for r in rg}
        by_density = sorted(rg, key=lambda r: (-ones[r], rg.index(r)))
        n = len(rg)
        while n > 0 and sum(ones[r] for r in by_density[:n]) < density * n * len(cg) - 1e-9:
            n -= 1
        rows[r_ptr[g] : r_ptr[g] + n] = sorted(by_density[:n])
        new_len[g] = n
    return new_len, rows


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.3, 0.5, 0.8, 1.0]), st.sampled_from([4, 12, 40]))
def test_tighten_matches_the_rule(seed, density, n_cols):
    # few columns: the ones are counted along the group's rows; many: along its columns
    rng = np.random.default_rng(seed)
    n_rows, n_groups = 30, int(rng.integers(1, 6))
    X = sp.csr_matrix((rng.random((n_rows, n_cols)) < 0.5).astype(np.int8))
    row_sets = [np.sort(rng.choice(n_rows, rng.integers(1, 12), replace=False)) for _ in range(n_groups)]
    col_sets = [np.sort(rng.choice(n_cols, rng.integers(1, min(n_cols, 6)), replace=False)) for _ in range(n_groups)]
    r_ptr = np.r_[0, np.cumsum([len(r) for r in row_sets])].astype(np.int64)
    c_ptr = np.r_[0, np.cumsum([len(c) for c in col_sets])].astype(np.int64)
    rows, cols = np.concatenate(row_sets).astype(np.int64), np.concatenate(col_sets).astype(np.int64)
    groups = np.flatnonzero(rng.random(n_groups) < 0.7).astype(np.int64)
    want_len, want_rows = _tighten_reference(X, r_ptr, rows, c_ptr, cols, groups, density)
    got_rows = rows.copy()
    Xc = X.tocsc()
    got_len = _tighten(X.indptr, X.indices, Xc.indptr, Xc.indices, r_ptr, got_rows, c_ptr, cols, groups, density)
    assert got_len.tolist() == want_len.tolist()
    for g in range(n_groups):
        kept = slice(r_ptr[g], r_ptr[g] + want_len[g])
        assert got_rows[kept].tolist() == want_rows[kept].tolist()


def _merge_reference(X, rows, cols, density, min_rows):
    """Step 6 by its definition: co-clusters with the same column set, in the order their first
    member came, become one with the union of their rows (tightened when several were united),
    kept with at least ``min_rows`` rows."""
    groups: dict[tuple, list[int]] = {}
    for k, c in enumerate(cols):
        groups.setdefault(tuple(c), []).append(k)
    out = []
    for c, members in groups.items():
        united = np.unique(np.concatenate([rows[k] for k in members])).astype(np.int64)
        if len(members) > 1 and density < 1.0:
            c_arr = np.asarray(c, dtype=np.int64)
            n, kept = _tighten_reference(
                X, np.array([0, len(united)]), united, np.array([0, len(c)]), c_arr, [0], density
            )
            united = kept[: n[0]]
        if len(united) >= min_rows:
            out.append((united.tolist(), list(c)))
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.5, 0.8, 1.0]), st.integers(1, 4))
def test_equal_column_sets_are_merged_as_defined(seed, density, min_rows):
    from coclust.blocks import Blocks
    from coclust.relax import merge_equal_columns

    rng = np.random.default_rng(seed)
    n_rows, n_cols = 30, 10
    X = sp.csr_matrix((rng.random((n_rows, n_cols)) < 0.6).astype(np.int8))
    pool = [np.sort(rng.choice(n_cols, rng.integers(1, 5), replace=False)) for _ in range(int(rng.integers(1, 6)))]
    k = int(rng.integers(0, 16))
    rows = [np.sort(rng.choice(n_rows, rng.integers(1, 10), replace=False)) for _ in range(k)]
    cols = [pool[int(rng.integers(len(pool)))] for _ in range(k)]
    got = merge_equal_columns(X, X.T.tocsr(), Blocks.from_lists(rows, cols), density, min_rows)
    as_lists = [
        (
            got.row_idx[got.row_ptr[i] : got.row_ptr[i + 1]].tolist(),
            got.col_idx[got.col_ptr[i] : got.col_ptr[i + 1]].tolist(),
        )
        for i in range(len(got))
    ]
    assert as_lists == _merge_reference(X, rows, cols, density, min_rows)


blocks_lists = st.lists(
    st.tuples(st.lists(st.integers(0, 50), max_size=6), st.lists(st.integers(0, 50), max_size=6)), max_size=8
)


@given(blocks_lists, blocks_lists, st.data())
def test_select_of_two_is_concat_then_select(a_lists, b_lists, data):
    """Step 6 picks its blocks from the co-clusters and the united groups without copying both into one."""
    from coclust.blocks import Blocks, select_of_two

    a, b = (Blocks.from_lists([r for r, _ in x], [c for _, c in x]) for x in (a_lists, b_lists))
    n = len(a) + len(b)
    which = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=12) if n else st.just([])), dtype=np.int64)
    got, expected = select_of_two(a, b, which), Blocks.concat([a, b]).select(which)
    for field in ("row_ptr", "row_idx", "col_ptr", "col_idx"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
