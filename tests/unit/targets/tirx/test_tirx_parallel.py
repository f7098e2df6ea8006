"""``tirx:llvm`` runs the outermost ``parallel`` on TVM's threads where that is exact.

Differential against the reference interpreter and the ``cpu`` target (outputs poisoned
first): grids of rank 1 to 3 with ragged and empty extents run as one ``T.parallel`` loop
over the flattened coordinates; bodies with atomics, scatters, failures, scalar carries or
an enclosing parallel stay serial (``threads.serial_reason`` says why) and keep the
reference's exact results and errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.targets.clike import UnsupportedError

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from paths import poisoned  # noqa: E402

TARGET = "tirx:llvm"


def _run_all(kernel, args, outs, poison=True, **cx):
    """Outputs ``outs`` of ``kernel`` on the reference, cpu and tirx:llvm (each on its own
    copies, outputs poisoned unless ``poison`` is False) and the tirx:llvm kernel."""
    results, compiled = {}, None
    for path in ("reference", "cpu", TARGET):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for i in outs if poison else ():
            a[i] = poisoned(*a[i].shape, dtype=a[i].dtype)
        if path == "reference":
            tc.interpret(kernel, *a, **cx)
        else:
            c = tc.compile(kernel, *a, target=path, **cx)
            c(*a)
            if path == TARGET:
                compiled = c
        results[path] = [a[i] for i in outs]
    return results, compiled


def _same(results):
    ref = results["reference"]
    for path in ("cpu", TARGET):
        for r, t in zip(ref, results[path]):
            np.testing.assert_array_equal(np.asarray(r, np.float64), np.asarray(t, np.float64),
                                          err_msg=path)


def _parallel_ops(compiled):
    from tilec.targets.tirx.threads import serial_reason

    return [serial_reason(op) for op in compiled.module.walk() if op.name == "parallel"]


# ------------------------------------------------------------------ threaded grids


@tc.kernel
def grid1(X, Y, B: tc.constexpr = 8):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        Y.tile((p * B,), (B,)).store(x * 3.0 - 1.0)


@tc.kernel
def grid2(X, Y, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        x = X.tile((pm * BM, pn * BN), (BM, BN), fill=0.0)
        Y.tile((pm * BM, pn * BN), (BM, BN)).store(x + tc.cast(pm * 100 + pn, tc.float32))


@tc.kernel
def grid3(X, Y, BN: tc.constexpr = 4):
    A, M, N = X.shape
    for a, m, pn in tc.parallel(A, M, tc.cdiv(N, BN)):
        x = X.tile((a, m, pn * BN), (1, 1, BN), fill=0.0)
        Y.tile((a, m, pn * BN), (1, 1, BN)).store(
            x * 2.0 + tc.cast(a * 10000 + m * 100 + pn, tc.float32))


@tc.kernel
def grid_n(X, Y, n, B: tc.constexpr = 4):
    for p in tc.parallel(n):
        Y.tile((p * B,), (B,)).store(X.tile((p * B,), (B,), fill=0.0) + 1.0)


@pytest.mark.parametrize("n", [1, 7, 8, 37, 200])
def test_rank1_grid_on_threads(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    results, c = _run_all(grid1, [x, np.zeros_like(x)], [1])
    _same(results)
    assert "T.parallel" in c.source and _parallel_ops(c) == [None]


@pytest.mark.parametrize("shape", [(1, 1), (5, 9), (13, 31), (16, 16)])
def test_rank2_grid_decodes_row_major(shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    results, c = _run_all(grid2, [x, np.zeros_like(x)], [1])
    _same(results)
    assert c.source.count("T.parallel") == 1


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 1, 9), (1, 4, 4)])
def test_rank3_grid_decodes_row_major(shape):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    results, c = _run_all(grid3, [x, np.zeros_like(x)], [1])
    _same(results)
    assert c.source.count("T.parallel") == 1


@pytest.mark.parametrize("n", [0, -3, 5])
def test_empty_and_negative_extents_run_nothing(n):
    x = np.arange(20, dtype=np.float32)
    results, _ = _run_all(grid_n, [x, np.zeros_like(x), n], [1])
    _same(results)


# ------------------------------------------------------------------ serial fallbacks


@tc.kernel
def counter(C, n, B: tc.constexpr = 8):
    for _ in tc.parallel(n):
        C.tile((0,), (B,)).atomic_add(tc.full((B,), 1, tc.int32))


@tc.kernel
def checked_grid(X, k, B: tc.constexpr = 4):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, B)):
        assert p < k, "instance past k"
        X.tile((p * B,), (B,)).store(X.tile((p * B,), (B,)).load() + 1)


@tc.kernel
def divided(X, d, B: tc.constexpr = 4):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, B)):
        X.tile((p * B,), (B,)).store(X.tile((p * B,), (B,)).load() // (d - p))


@tc.kernel
def nested(X, Y, B: tc.constexpr = 8):
    M, N = X.shape
    for m in tc.parallel(M):
        acc = tc.zeros((1, 2 * B), tc.float32)
        for i in tc.parallel(2, level="group"):
            acc[0:1, i * B:(i + 1) * B] = X.tile((m, i * B), (1, B), fill=0.0) * 2.0
        Y.tile((m, 0), (1, 2 * B)).store(acc)


def test_atomics_across_instances_stay_serial_and_count_exactly():
    c0 = np.zeros(8, np.int32)
    results, c = _run_all(counter, [c0, 3000], [0], poison=False)
    assert int(results[TARGET][0][0]) == 3000
    _same(results)
    assert "T.parallel" not in c.source
    assert "read-modify-write" in _parallel_ops(c)[0]


def test_failing_instances_report_the_first_in_row_major_order():
    x = np.zeros(64, np.int64)
    texts = []
    for path in ("reference", TARGET):
        a = x.copy()
        with pytest.raises(tc.KernelAssertionError) as info:
            if path == "reference":
                tc.interpret(checked_grid, a, 3)
            else:
                c = tc.compile(checked_grid, a, 3, target=TARGET)
                c(a, 3)
        texts.append(str(info.value))
        if path == TARGET:
            assert "T.parallel" not in c.source
            assert "check that may fail" in _parallel_ops(c)[0]
    assert texts[0] == texts[1]


def test_division_by_a_runtime_value_stays_serial():
    x = np.arange(16, dtype=np.int32)
    results, c = _run_all(divided, [x, 9], [0])
    _same(results)
    assert "integer division" in _parallel_ops(c)[0]
    with pytest.raises(tc.KernelArithmeticError):
        c(np.arange(16, dtype=np.int32), 2)


def test_nested_parallel_runs_inside_the_outer_threads():
    x = np.random.default_rng(3).standard_normal((6, 16)).astype(np.float32)
    results, c = _run_all(nested, [x, np.zeros_like(x)], [1])
    _same(results)
    assert c.source.count("T.parallel") == 1
    reasons = _parallel_ops(c)
    assert reasons[0] is None and "nested" in reasons[1]


def test_scalar_carry_stays_serial():
    m = ir.parse("""
module {
  func @last(%x: index) -> (index) {
    %z = constant() {value = 0} : index
    %n = constant() {value = 5} : index
    %r = parallel(%n, %z) {rank = 1} ({
    ^bb0(%p: index, %s: index):
      yield(%p)
    }) : (index)
    return(%r)
  }
}
""")
    from tilec.targets.tirx.backend import make_backend
    from tilec.targets.tirx.threads import serial_reason

    op = next(o for o in m.walk() if o.name == "parallel")
    assert "carries scalars" in serial_reason(op)
    assert "T.parallel" not in make_backend().emit(m, "last").text


def test_a_missed_conflict_is_an_internal_error_not_a_race(monkeypatch):
    import tilec.targets.tirx.ops as ops

    monkeypatch.setattr(ops, "serial_reason", lambda op: None)
    with pytest.raises(UnsupportedError, match="internal error: an atomic"):
        _ = tc.compile(counter, np.zeros(8, np.int32), 4, target=TARGET, B=4).source


@tc.kernel
def joined(X, Y, B: tc.constexpr = 8):
    acc = tc.full((4 * B + 3,), -2.0, tc.float32)
    for i in tc.parallel(4):
        acc[i * B:(i + 1) * B] = X.tile((i * B,), (B,), fill=0.0) * 2.0
    for _ in tc.parallel(1):
        Y.tile((0,), (4 * B + 3,)).store(acc + 1.0)


def test_threaded_instances_patch_a_tile_defined_outside_the_nest():
    x = np.random.default_rng(4).standard_normal(35).astype(np.float32)
    results, c = _run_all(joined, [x, np.zeros_like(x)], [1])
    _same(results)
    assert c.source.count("T.parallel") == 2
