"""Issue: an integer division by zero was a different thing on every path.

TileIR says it is a runtime error. The reference raised an ``InterpretError``
(the simulator too, and also for registers that hold no tile element, so a
correct elementwise division failed there); the cpu target raised a plain
``ZeroDivisionError`` only after the program had stored the quotients it
computed as 0; CUDA's helpers returned 0 silently. Now every path raises
``tc.KernelArithmeticError`` (a ``ZeroDivisionError``) at the division's
``file:line`` naming the operation, and a program stores nothing after its
failed division (``docs/design/tileir.md``). The GPU run of the same cases is
``tests/device/test_cuda_division_by_zero.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from paths import (
    CUBIN_ARCHS,
    HOST_PATHS,
    PATHS,
    SIMULATED,
    FakeDeviceArray,
    cubin,
    cuda_source,
    fake_driver,
    launchable,
    line_of,
    needs_nvrtc,
    one_error,
    poisoned,
    raises,
    run,
    unwritten,
)


def _raises(path: str, kernel: Any, *args: Any, **constexprs: Any) -> tc.KernelArithmeticError:
    return raises(tc.KernelArithmeticError, path, kernel, *args, **constexprs)


# ------------------------------------------------------ the nest, scalar divisors


@tc.kernel
def step_floordiv(P, Out, d, BM: tc.constexpr = 4):
    """The issue's nest: ``Out[p, k] = (P[p] + k) // (d - 3 * p - k)``, zero at one step."""
    M = P.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            x = P.tile((p * BM,), (BM,), fill=0)
            q = (x + k) // (d - 3 * p - k)
            Out.tile((p, k * BM), (1, BM)).store(q[None, :])


@tc.kernel
def step_rem(P, Out, d, BM: tc.constexpr = 4):
    M = P.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            x = P.tile((p * BM,), (BM,), fill=0)
            q = (x + k) % (d - 3 * p - k)
            Out.tile((p, k * BM), (1, BM)).store(q[None, :])


@tc.kernel
def step_cdiv(P, Out, d, BM: tc.constexpr = 4):
    M = P.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            n = tc.cdiv(p + k + 5, d - 3 * p - k)
            x = P.tile((p * BM,), (BM,), fill=0)
            Out.tile((p, k * BM), (1, BM)).store((x + n)[None, :])


def _step_expected(kernel: Any, p: np.ndarray, d: int) -> np.ndarray:
    out = np.zeros((4, 12), np.float32)
    for prog in range(4):
        for k in range(3):
            x = p[prog * 4:(prog + 1) * 4].astype(np.int64)
            div = d - 3 * prog - k
            if div == 0:
                continue
            q = {step_floordiv: (x + k) // div, step_rem: (x + k) % div,
                 step_cdiv: x + -(-(prog + k + 5) // div)}[kernel]
            out[prog, k * 4:(k + 1) * 4] = q
    return out


STEPS = [(step_floordiv, "'//' (floordiv)", "q = (x + k) //"),
         (step_rem, "'%' (rem)", "q = (x + k) %"),
         (step_cdiv, "tc.cdiv (cdiv)", "n = tc.cdiv(")]


@pytest.mark.parametrize("kernel,what,text", STEPS, ids=["floordiv", "rem", "cdiv"])
@pytest.mark.parametrize("target", PATHS)
def test_zero_scalar_divisor_raises_at_the_division_and_stops_its_program(
        target: str, kernel: Any, what: str, text: str) -> None:
    p = np.arange(1, 17, dtype=np.int32) * 5
    out = poisoned(4, 12)
    e = _raises(target, kernel, p, out, 7)  # program 2, step 1 divides by 7 - 6 - 1 = 0
    line = line_of(kernel.fn, text)
    assert str(e).startswith(f"{__file__}:{line}:"), str(e)
    assert f"integer division by zero in @{kernel.__name__}: {what} has a zero divisor" in str(e)
    assert isinstance(e, ZeroDivisionError) and isinstance(e, tc.UserError)
    assert (e.filename, e.lineno, e.kernel) == (__file__, line, kernel.__name__)
    want = _step_expected(kernel, p, 7)
    # programs 0 and 1 ran whole on every path; program 2 stored step 0 and nothing after
    np.testing.assert_array_equal(out[:2], want[:2])
    np.testing.assert_array_equal(out[2, :4], want[2, :4])
    assert unwritten(out[2, 4:]), out[2]


@pytest.mark.parametrize("kernel,what,text", STEPS, ids=["floordiv", "rem", "cdiv"])
def test_the_error_is_the_same_on_every_path(kernel: Any, what: str, text: str) -> None:
    one_error(tc.KernelArithmeticError, kernel, np.arange(16, dtype=np.int32), poisoned(4, 12), 7)


@pytest.mark.parametrize("target", PATHS)
def test_nonzero_scalar_divisors_compute_python_division(target: str) -> None:
    p = (np.arange(16, dtype=np.int32) - 8) * 7
    for kernel, _, _ in STEPS:
        for d in (100, -100, 2):  # d = 2: divisors 2, 1, 0 ... -9; one of them is zero
            out = poisoned(4, 12)
            if d == 2:
                _raises(target, kernel, p, out, d)  # program 0, step 2
                continue
            run(target, kernel, p, out, d)
            np.testing.assert_array_equal(out, _step_expected(kernel, p, d))


# ------------------------------------------------------------- elementwise divisors


@tc.kernel
def tile_quotient(X, Y, Out, BM: tc.constexpr = 8):
    """``Out = X // Y`` and ``X % Y`` blockwise (a tile divisor)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM,), (BM,))
        y = Y.tile((p * BM,), (BM,))
        Out.tile((0, p * BM), (1, BM)).store((x // y)[None, :])
        Out.tile((1, p * BM), (1, BM)).store((x % y)[None, :])


@pytest.mark.parametrize("target", PATHS)
def test_zero_element_of_a_tile_divisor_stops_its_program(target: str) -> None:
    x = np.arange(32, dtype=np.int32) * 3 - 40
    y = np.where(np.arange(32) % 5 == 0, 3, -4).astype(np.int32)
    y[21] = 0  # program 2, element 5
    out = poisoned(2, 32)
    e = _raises(target, tile_quotient, x, y, out)
    line = line_of(tile_quotient.fn, "store((x // y)")
    assert str(e).startswith(f"{__file__}:{line}:"), str(e)
    assert "'//' (floordiv) has a zero divisor" in str(e)
    np.testing.assert_array_equal(out[0, :16], x[:16] // y[:16])
    np.testing.assert_array_equal(out[1, :16], x[:16] % y[:16])
    assert unwritten(out[:, 16:24]), "program 2 stored after its failed division"


@pytest.mark.parametrize("target", PATHS)
def test_elementwise_division_with_every_divisor_nonzero(target: str) -> None:
    """An 8-element tile over a group of 32 threads: most registers hold no element (their
    contents are unspecified, 0 here); they must not count as zero divisors."""
    x = np.arange(32, dtype=np.int32) * 7 - 100
    y = np.where(np.arange(32) % 3 == 0, 5, -3).astype(np.int32)
    out = poisoned(2, 32)
    run(target, tile_quotient, x, y, out)
    np.testing.assert_array_equal(out[0], x // y)
    np.testing.assert_array_equal(out[1], x % y)


def test_elementwise_error_is_the_same_on_every_path() -> None:
    x = np.ones(32, np.int32)
    y = np.ones(32, np.int32)
    y[9] = 0
    one_error(tc.KernelArithmeticError, tile_quotient, x, y, poisoned(2, 32))


@tc.kernel
def product_quotient(A, B, Y, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32,
                     BK: tc.constexpr = 32):
    """``C = (A @ B) // Y`` on int8 operands: the divided tile is a matrix accumulator, held
    in one register array per matrix atom on GPU targets."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.int32)
        for k in tc.serial(tc.cdiv(K, BK)):
            acc = tc.mma(A.tile((pm * BM, k * BK), (BM, BK), fill=0),
                         B.tile((k * BK, pn * BN), (BK, BN), fill=0), acc)
        y = Y.tile((pm * BM, pn * BN), (BM, BN), fill=1)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc // y)


@pytest.mark.parametrize("target", PATHS)
def test_division_of_a_matrix_accumulator(target: str) -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (64, 32)).astype(np.int8)
    b = rng.integers(-5, 5, (32, 32)).astype(np.int8)
    y = (rng.integers(1, 5, (64, 32)) * np.where(rng.random((64, 32)) < .5, 1, -1)
         ).astype(np.int32)
    want = (a.astype(np.int32) @ b.astype(np.int32)) // y
    c = poisoned(64, 32)
    run(target, product_quotient, a, b, y, c)
    np.testing.assert_array_equal(c, want)
    y[40, 7] = 0  # program 1
    c = poisoned(64, 32)
    _raises(target, product_quotient, a, b, y, c)
    assert unwritten(c[32:])
    np.testing.assert_array_equal(c[:32], want[:32])


# ----------------------------------------------------------------- top level, reductions


@tc.kernel
def blocks_of(X, Out, d):
    """A top-level division: the program count."""
    M = X.shape[0]
    per = M // d
    for p in tc.parallel(per):
        Out.tile((p,), (1,)).store(X.tile((p * d,), (1,)))


@pytest.mark.parametrize("target", PATHS)
def test_top_level_division_raises_before_anything_runs(target: str) -> None:
    x = np.arange(12, dtype=np.float32)
    out = poisoned(12)
    e = _raises(target, blocks_of, x, out, 0)
    assert f":{line_of(blocks_of.fn, 'per = M // d')}:" in str(e).splitlines()[0]
    assert unwritten(out)
    run(target, blocks_of, x, out, 3)
    np.testing.assert_array_equal(out[:4], x[::3])


@tc.kernel
def row_quotients(X, Out, d, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """``Out[i] = sum_j X[i, j] // d`` (a division in the reduction update, by a scalar)."""
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=0)
        Out.tile((p * BM,), (BM,)).store(tc.reduce(x, 1, 0, lambda s, v: s + v // d))


@pytest.mark.parametrize("target", PATHS)
def test_division_by_a_scalar_in_a_reduction_update(target: str) -> None:
    x = np.arange(64, dtype=np.int32).reshape(8, 8) - 20
    out = poisoned(8)
    run(target, row_quotients, x, out, 3)
    np.testing.assert_array_equal(out, (x // 3).sum(1))
    out = poisoned(8)
    e = _raises(target, row_quotients, x, out, 0)
    assert f":{line_of(row_quotients.fn, 'lambda s, v: s + v // d')}:" in str(e)
    assert unwritten(out)


@tc.kernel
def row_inverse_sums(X, Out, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """``Out[i] = sum_j 1000 // X[i, j]``: a divisor that is the reduced element."""
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((p * BM, 0), (BM, BN), fill=1)
        Out.tile((p * BM,), (BM,)).store(tc.reduce(x, 1, 0, lambda s, v: s + 1000 // v))


@pytest.mark.parametrize("target", HOST_PATHS)
def test_element_divisor_in_a_reduction_update_on_cpu(target: str) -> None:
    x = np.arange(1, 65, dtype=np.int32).reshape(8, 8)
    out = poisoned(8)
    run(target, row_inverse_sums, x, out)
    np.testing.assert_array_equal(out, (1000 // x).sum(1))
    x[5, 3] = 0
    _raises(target, row_inverse_sums, x, poisoned(8))


@pytest.mark.parametrize("target", SIMULATED)
def test_element_divisor_in_a_reduction_update_is_refused_on_gpus(target: str) -> None:
    x = np.arange(1, 65, dtype=np.int32).reshape(8, 8)
    with pytest.raises(tc.UserError, match="divide before the reduction") as info:
        run(target, row_inverse_sums, x, poisoned(8))
    assert f":{line_of(row_inverse_sums.fn, '1000 // v')}:" in str(info.value)


@tc.kernel
def staged_steps(A, B, Out, n, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                 BK: tc.constexpr = 16):
    """A K loop whose operand origin divides by ``n - k`` (zero at step ``n``) and that stores
    its running product every step: GPU targets fetch a step's operands one step ahead."""
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            kk = ((n - k) * k * BK) // (n - k)
            a = A.tile((pm * BM, kk), (BM, BK), fill=0.0)
            b = B.tile((kk, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
            Out.tile((pm * BM, k * BN), (BM, BN)).store(acc)


@pytest.mark.parametrize("target", PATHS)
def test_a_step_fetched_ahead_fails_in_its_own_step(target: str) -> None:
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (16, 48)).astype(np.float32)
    b = rng.integers(-3, 4, (48, 16)).astype(np.float32)
    out = poisoned(16, 48)
    e = _raises(target, staged_steps, a, b, out, 2)  # steps 0 and 1 store, step 2 fails
    assert f":{line_of(staged_steps.fn, 'kk = ((n - k)')}:" in str(e).splitlines()[0]
    for k in (0, 1):
        want = a[:, :16 * (k + 1)] @ b[:16 * (k + 1)]
        np.testing.assert_array_equal(out[:, 16 * k:16 * (k + 1)], want)
    assert unwritten(out[:, 32:])
    run(target, staged_steps, a, b, out, 5)
    np.testing.assert_array_equal(out[:, 32:], a @ b)


# ------------------------------------------------ what a division costs in generated code


@tc.kernel
def safe_divisions(X, Out, BM: tc.constexpr = 16):
    """Divisors that are constants or provably nonzero (a loop counter plus one)."""
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(2):
            x = X.tile((p * BM,), (BM,), fill=0)
            Out.tile((k * M + p * BM,), (BM,)).store(x // 4 + x % 3 + tc.cdiv(p, k + 1)
                                                     + x // (k + 1))


def test_provably_nonzero_divisors_cost_nothing() -> None:
    v = tc.array((None,), np.int32)
    c_src = tc.compile(safe_divisions, v, v, target="cpu").source
    assert "TC_ERR_ZERODIV, " not in c_src.split("tilec_entry")[-1]
    cuda = cuda_source(safe_divisions, v, v)
    assert cuda.checks == [] and "tc_check" not in cuda.text  # launched asynchronously
    x = np.arange(64, dtype=np.int32) - 30
    programs = np.repeat(np.arange(4), 16)
    want = np.concatenate([x // 4 + x % 3 - (-programs // k) + x // k
                           for k in (1, 2)]).astype(np.float32)
    for target in PATHS:
        out = poisoned(128)
        run(target, safe_divisions, x, out)
        np.testing.assert_array_equal(out, want, err_msg=target)


def test_division_by_a_runtime_value_is_a_device_check_in_cuda() -> None:
    v = tc.array((None,), np.int32)
    scalar = cuda_source(step_floordiv, v, tc.array((None, None), np.float32), tc.int32)
    assert [(c.kind, c.message) for c in scalar.checks] == [("zerodiv", "floordiv")]
    assert "__syncthreads_or" not in scalar.text  # a uniform divisor needs no vote
    tile = cuda_source(tile_quotient, v, v, tc.array((None, None), np.float32))
    assert [(c.kind, c.message) for c in tile.checks] == [("zerodiv", "floordiv"),
                                                          ("zerodiv", "rem")]
    assert tile.text.count("__syncthreads_or(") == 2
    assert "unsigned long long *__restrict__ tc_check)" in tile.text


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("case", ["scalar", "tile", "reduce", "staged"])
def test_guarded_divisions_compile_to_cubins(target: str, arch: str, case: str) -> None:
    v, f2 = tc.array((None,), np.int32), tc.array((None, None), np.float32)
    kernel, specs = {"scalar": (step_floordiv, (v, f2, tc.int32)),
                     "tile": (tile_quotient, (v, v, f2)),
                     "reduce": (row_quotients, (tc.array((None, None), np.int32),
                                                tc.array((None,), np.float32), tc.int32)),
                     "staged": (staged_steps, (f2, f2, f2, tc.int32))}[case]
    src = cuda_source(kernel, *specs, target=target)
    assert src.checks and all(c.kind == "zerodiv" for c in src.checks)
    r = cubin(src, arch).resources
    assert r.spill_stores == 0 and r.spill_loads == 0, str(r)


def test_grid_sizing_on_the_host_raises_the_same_error() -> None:
    v = tc.array((None,), np.float32)
    src = cuda_source(blocks_of, v, v, tc.int32)
    with pytest.raises(tc.KernelArithmeticError) as info:
        src.grid([0, 0, 0, 12, 12])  # X, Out (addresses), d, then the shape symbols
    want = _raises("reference", blocks_of, np.zeros(12, np.float32), poisoned(12), 0)
    assert str(info.value) == str(want)


def test_the_error_survives_pickling() -> None:
    import pickle

    raised = _raises("reference", blocks_of, np.zeros(12, np.float32), poisoned(12), 0)
    e = pickle.loads(pickle.dumps(raised))
    assert type(e) is tc.KernelArithmeticError and str(e) == str(raised)
    assert e.operation == "floordiv" and e.kernel == "blocks_of"


@needs_nvrtc
def test_cuda_launcher_raises_a_recorded_division(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host side of a device division check, with the driver faked: the launch is waited
    for, the record decodes to the reference's error, and it is cleared."""
    record = np.zeros(4, np.uint64)  # stands in for the device record
    # the kernel: d = 7 fails its check number 1
    fake_driver(monkeypatch, record, lambda args: [1] if int(args[2]) == 7 else None)
    want = str(_raises("reference", step_floordiv, np.zeros(16, np.int32), poisoned(4, 12), 7))
    exe = launchable(step_floordiv, tc.array((None,), np.int32),
                     tc.array((None, None), np.float32), tc.int32)
    args = (FakeDeviceArray(0x10000, (16,), "<i4"), FakeDeviceArray(0x20000, (4, 12)))
    with pytest.raises(tc.KernelArithmeticError) as info:
        exe(*args, 7)
    assert str(info.value) == want
    assert not record.any(), "the record was not cleared"
    exe(*args, 100)  # passes
