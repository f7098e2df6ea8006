"""Windows with unit axes reach the matrix path like 2-D windows.

``A.tile((b, i, k), (1, BM, BK)).reshape(BM, BK)`` (a batch index fixed by a unit
axis) is captured as one 2-D view of the 3-D array, not as a load followed by a
reshaping ``reindex``; storing a 2-D tile into a ``(1, BM, BN)`` window writes
through the same kind of view. So ``lib.batched_matmul`` is staged with 16-byte
asynchronous copies and realized with ``mma``/``wgmma`` atoms, and a batch index
outside the array still reads the fill (the copy guard checks the unit axes).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
import tilec.lower as lower
from tilec.lib.matmul import batched_matmul
from tilec.targets.reference.simt import simulate_module


def _ops(module: ir.Module, name: str) -> list[ir.Operation]:
    return [op for op in module.walk() if op.name == name]


def _catalog(module: ir.Module) -> set[str]:
    return {str(op.attr("catalog_id")) for op in _ops(module, "atom.call")}


def _bmm(nb: int, m: int, n: int, k: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((nb, m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((nb, k, n)).astype(ml_dtypes.bfloat16)
    c = np.full((nb, m, n), np.nan, np.float32)
    return a, b, c


def _want(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))


def test_a_squeezed_window_is_one_view_of_the_array() -> None:
    a, b, c = _bmm(2, 64, 64, 64, 0)
    comp = tc.compile(batched_matmul, a, b, c, target="reference", BM=64, BN=64, BK=32)
    mod = comp.module
    assert not _ops(mod, "reindex"), ir.print_module(mod)
    views = _ops(mod, "view")
    assert len(views) == 3 and all(v.operand(0).owner.parent_op is None for v in views)
    assert all(v.result.type.rank == 2 and v.attr("bounds") == "bounded" for v in views)
    first = views[0].attr("map")
    assert (first.n_dims, len(first.results)) == (2, 3)
    assert first.results[0] == ir.s(0) and first.results[1] == ir.d(0) + ir.s(1)
    store = _ops(mod, "store")[0]
    assert store.operand(0).type.rank == 2  # the 2-D accumulator is written unreshaped


@tc.kernel
def _reshapes(X, Y, Z):
    for _p in tc.parallel(1):
        t = X.tile((0, 0, 0), (1, 4, 8)).reshape(4, 8)  # a squeeze: still a window
        u = X.tile((0, 0, 0), (1, 4, 8)).reshape(32)  # a real reshape: load and reindex
        Y.tile((0, 0), (4, 8)).store(t)
        Z.tile((0,), (32,)).store(u)


def test_only_unit_axis_reshapes_stay_windows() -> None:
    x = np.arange(64, dtype=np.float32).reshape(2, 4, 8)
    y, z = np.zeros((4, 8), np.float32), np.zeros(32, np.float32)
    comp = tc.compile(_reshapes, x, y, z, target="reference")
    assert len(_ops(comp.module, "reindex")) == 1
    comp(x, y, z)
    assert (y == x[0]).all() and (z == x[0].reshape(32)).all()


@pytest.mark.parametrize("tile,atom", [((128, 128, 64), "wgmma.m64k16.bf16"),
                                       ((64, 64, 32), "mma.m16n8k16.bf16")],
                         ids=["wgmma", "mma"])
def test_batched_matmul_is_staged_and_realized_with_matrix_atoms(tile, atom) -> None:
    a, b, c = _bmm(3, 130, 136, 200, 1)
    comp = tc.compile(batched_matmul, a, b, c, target="reference", BM=tile[0], BN=tile[1],
                      BK=tile[2])
    machine = lower.lower_to_machine(comp.module, "cuda:sm_90")
    ids = _catalog(machine)
    assert atom in ids and "cp.async.16" in ids, sorted(ids)
    simulate_module(machine, comp.fn_name, [a, b, c], verify=True)
    want = _want(a, b)
    assert not np.isnan(c).any()
    assert np.abs(c - want).max() <= 1e-5 * float(np.abs(want).max())
    c2 = np.full_like(c, np.nan)
    tc.compile(batched_matmul, a, b, c2, target="cpu", BM=tile[0], BN=tile[1],
               BK=tile[2])(a, b, c2)
    assert np.abs(c2 - want).max() <= 1e-5 * float(np.abs(want).max())


@tc.kernel
def _past_the_batch(A, B, C, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                    BK: tc.constexpr = 32):
    NB, M, K = A.shape
    for b, pm in tc.parallel(NB + 1, tc.cdiv(M, BM)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((b, pm * BM, k * BK), (1, BM, BK), fill=0.0).reshape(BM, BK)
            w = B.tile((b, k * BK, 0), (1, BK, BN), fill=0.0).reshape(BK, BN)
            acc = tc.mma(a, w, acc)
        C.tile((b, pm * BM, 0), (1, BM, BN)).store(acc + 1.0)


def test_a_batch_index_past_the_array_reads_the_fill() -> None:
    """Program ``b = NB`` reads windows wholly outside A and B: the copy guard sends them to
    the filling copies (zeros), and its stores are clipped; the others are products."""
    a, b, _ = _bmm(2, 64, 64, 64, 2)
    c = np.full((3, 64, 64), np.nan, np.float32)  # C has the extra matrix
    comp = tc.compile(_past_the_batch, a, b, c, target="reference")
    machine = lower.lower_to_machine(comp.module, "cuda:sm_90")
    assert "cp.async.16" in _catalog(machine)
    simulate_module(machine, comp.fn_name, [a, b, c], verify=True)
    want = _want(a, b) + 1.0
    assert np.abs(c[:2] - want).max() <= 1e-4
    assert (c[2] == 1.0).all()
