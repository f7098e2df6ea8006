"""``pow`` is C99 ``pow`` on every path, special cases included, bit for bit.

TileIR defines ``pow`` as the f64 C99 / IEEE 754 ``pow`` rounded to the type
(docs/design/tileir.md). Three paths differed:

* the reference interpreter (and so every SIMT simulator) called ``np.power`` with the
  exponent as one value, and numpy then computes ``sqrt`` for 0.5: ``pow(-inf, 0.5)``
  was NaN and ``pow(-0.0, 0.5)`` was -0.0 (C99: +inf and +0.0);
* the C target agreed with numpy only where GCC vectorized the loop (its vectorizer
  turns ``pow(x, 0.5)`` into ``sqrt(x)``) and gave C99 elsewhere, e.g. after a reduction;
* capture wrote a float ``x ** 3`` as ``x * x * x``, which rounds twice.

The table crosses signed zeros, infinities, NaN, one, negative bases and exact powers
with exponents ±0, ±0.5, ±1, 2, 3, -2, ±1.5, ±inf and NaN. Each exponent is tried as a
tile (one exponent per element), as a compile-time constant (the form numpy and GCC
shortcut) on a tile, and on a scalar that comes out of a reduction; on the reference,
cpu and the three simulators, in every float type. Expected values are Python's
``math.pow`` (the C library's ``pow``), with NaN where it reports a domain error and the
C99 signed infinity where it reports a pole. The GPU run is
``tests/device/test_cuda_pow_special_cases.py``.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec import lower
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.cuda.compiler import nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda

PATHS = ("reference", "cpu", "cuda:sm_90", "cuda:sm_80", "metal:m1")
"""The two executable paths, then the simulator of each hardware profile."""
FLOATS = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
          "float64": np.float64}
"""Float types: name -> numpy dtype."""
INF, NAN = math.inf, math.nan
BASES = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 4.0, 0.25, -2.0, -0.5, -4.0]
"""Bases: the special values, and values whose powers in the table are exact in f16."""
EXPONENTS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, -2.0, 1.5, -1.5, INF, -INF, NAN]
"""Exponents: the ones with shortcuts (0, ±0.5, ±1, 2, 3), other integers and non-integers."""
CONSTANTS = [*EXPONENTS, 0, 1, -1, 2, 3]
"""Compile-time exponents: every float exponent and the Python ints capture may treat apart."""
N = 24
_NVRTC = nvrtc_available()
"""Elements per tile: the bases twice (the C compiler vectorizes loops of this length)."""


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


def c99_pow(x: float, y: float) -> float:
    """C99 ``pow`` through ``math.pow``, whose ``ValueError`` covers two C99 cases."""
    try:
        return math.pow(x, y)
    except ValueError:
        if x == 0.0:  # a pole: pow(±0, y < 0) is ±inf for an odd integer y, else +inf
            odd = y.is_integer() and y % 2 == 1
            return math.copysign(INF, x) if odd else INF
        return NAN  # a domain error: a negative finite base, a non-integer exponent


def want(x: np.ndarray, e: np.ndarray | float) -> np.ndarray:
    """C99 ``pow`` of each pair in f64, rounded once to ``x``'s type."""
    ee = np.broadcast_to(np.asarray(e, np.float64), x.shape)
    r = [c99_pow(float(a), float(b)) for a, b in zip(x.astype(np.float64), ee)]
    return np.array(r, np.float64).astype(x.dtype)


def same(got: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """Bit equality, any NaN matching any NaN."""
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.itemsize]
    nan = np.isnan(got.astype(np.float64)) & np.isnan(exp.astype(np.float64))
    return nan | (got.view(u) == exp.view(u))


def check(x: np.ndarray, e: Any, got: np.ndarray, what: str) -> None:
    exp = want(x, e)
    ok = same(got, exp)
    bad = np.flatnonzero(~ok)
    ee = np.broadcast_to(np.asarray(e, np.float64), x.shape)
    assert not bad.size, what + ": " + ", ".join(
        f"pow({x[i]}, {ee[i]}) = {got[i]}, want {exp[i]}" for i in bad[:8])


def run(kernel: Any, target: str, *args: Any, **constexprs: Any) -> None:
    """Run ``kernel`` on a path (the simulator for hardware profiles); arrays in place."""
    if target in ("reference", "cpu"):
        if target == "cpu" and c_compiler_problem() is not None:
            pytest.skip(f"no C compiler: {c_compiler_problem()}")
        tc.compile(kernel, *args, target=target, **constexprs)(*args)
    else:
        _no_f64_on_metal(target, args)
        tc.simulate(kernel, *args, target=target, **constexprs)


def _no_f64_on_metal(target: str, args: Any) -> None:
    """metal:m1 has no f64: its simulator refuses f64 programs as the target does (checked
    elsewhere), so those cases skip."""
    if target == "metal:m1" and any(getattr(a, "dtype", None) == np.float64 for a in args):
        pytest.skip("metal:m1 has no f64 (refused by the lowering, as by the target)")


@tc.kernel
def pow_tiles(X, E, Y, NX: tc.constexpr):
    for _p in tc.parallel(1):
        Y.tile((0,), (NX,)).store(X.tile((0,), (NX,)) ** E.tile((0,), (NX,)))


@tc.kernel
def pow_constants(X, Y, PS: tc.constexpr, NX: tc.constexpr):
    for _p in tc.parallel(1):
        x = X.tile((0,), (NX,))
        for k in tc.static_range(len(PS)):
            Y.tile((k, 0), (1, NX)).store((x ** PS[k]).reshape((1, NX)))


@tc.kernel
def pow_reduced(X, Z, PS: tc.constexpr):
    for q in tc.parallel(X.shape[0]):
        s = X.tile((q,), (1,)).load().min(axis=None)  # a 0-d tile
        for k in tc.static_range(len(PS)):
            Z.tile((k, q), (1, 1)).store(tc.broadcast_to(s ** PS[k], (1, 1)))


@tc.kernel
def pow_scalars(Z, b, e, P: tc.constexpr):
    for _p in tc.parallel(1):
        Z.tile((0,), (2,)).store(tc.where(tc.full((2,), 1) == tc.ones((2,), tc.int32),
                                          tc.full((2,), b ** P), tc.full((2,), b ** e)))


@tc.kernel
def pow_scalars64(Z, b: tc.float64, e: tc.float64, P: tc.constexpr):
    for _p in tc.parallel(1):
        Z.tile((0,), (1,)).store(tc.full((1,), b ** P))
        Z.tile((1,), (1,)).store(tc.full((1,), b ** e))


@tc.kernel
def cube(X, Y, NX: tc.constexpr):
    for _p in tc.parallel(1):
        Y.tile((0,), (NX,)).store(X.tile((0,), (NX,)) ** 3)


def bases(fname: str, n: int = N) -> np.ndarray:
    """``n`` elements cycling through ``BASES``."""
    return np.array((BASES * (n // len(BASES) + 1))[:n], np.float64).astype(FLOATS[fname])


def poisoned(like: np.ndarray) -> np.ndarray:
    return np.full(like.shape, np.nan, like.dtype)


@pytest.mark.parametrize("fname", sorted(FLOATS))
@pytest.mark.parametrize("target", PATHS)
def test_every_pair_of_the_table(target: str, fname: str) -> None:
    """Bases x exponents, one exponent per element."""
    x = np.repeat(np.array(BASES, np.float64), len(EXPONENTS)).astype(FLOATS[fname])
    e = np.tile(np.array(EXPONENTS, np.float64), len(BASES)).astype(FLOATS[fname])
    y = poisoned(x)
    run(pow_tiles, target, x, e, y, NX=x.size)
    check(x, e, y, f"{target} {fname}")


@pytest.mark.parametrize("fname", sorted(FLOATS))
@pytest.mark.parametrize("target", PATHS)
def test_constant_exponents(target: str, fname: str) -> None:
    """``x ** p`` on a tile and on a reduced 0-d tile, ``p`` a compile-time number."""
    x = bases(fname)
    y = np.full((len(CONSTANTS), N), np.nan, x.dtype)
    z = np.full((len(CONSTANTS), N), np.nan, x.dtype)
    run(pow_constants, target, x, y, PS=tuple(CONSTANTS), NX=N)
    run(pow_reduced, target, x, z, PS=tuple(CONSTANTS))
    for k, p in enumerate(CONSTANTS):
        check(x, float(p), y[k], f"x ** {p!r} on {target}")
        check(x, float(p), z[k], f"reduced ** {p!r} on {target}")


@pytest.mark.parametrize("p", [0.5, -0.5, 3.0], ids=repr)
@pytest.mark.parametrize("fname", ["float32", "float64"])
@pytest.mark.parametrize("target", PATHS)
def test_scalar_arguments(target: str, fname: str, p: float) -> None:
    """``b ** p`` and ``b ** e`` on scalar arguments (scalar ``arith``, not a ``map``)."""
    kernel = pow_scalars if fname == "float32" else pow_scalars64
    dt = FLOATS[fname]
    if target in ("reference", "cpu") and not (target == "cpu" and c_compiler_problem()):
        z = np.full(2, np.nan, dt)
        exe = tc.compile(kernel, z, 1.0, 1.0, P=p, target=target)
    for b in BASES:
        z = np.full(2, np.nan, dt)
        if target in ("reference", "cpu"):
            if target == "cpu" and c_compiler_problem() is not None:
                pytest.skip(f"no C compiler: {c_compiler_problem()}")
            exe(z, b, p)
        else:
            _no_f64_on_metal(target, [z])
            tc.simulate(kernel, z, b, p, target=target, P=p)
        check(np.full(2, b, dt), p, z, f"pow({b}, {p}) on {target}")


@pytest.mark.parametrize("target", PATHS)
def test_a_float_cube_is_one_rounding(target: str) -> None:
    """``x ** 3`` is ``pow`` rounded once, which ``x * x * x`` is not for these values."""
    x = np.linspace(1.0, 2.0, N, dtype=np.float32)
    assert ((x * x) * x != want(x, 3.0)).any()  # the inputs tell the two apart
    y = poisoned(x)
    run(cube, target, x, y, NX=N)
    check(x, 3.0, y, target)


@pytest.mark.skipif(_NVRTC is not None, reason=f"NVRTC unavailable: {_NVRTC}")
@pytest.mark.parametrize("fname", ["float32", "float64"])
def test_cuda_keeps_pow_a_library_call(fname: str) -> None:
    """The CUDA source calls pow for ``x ** 0.5`` and NVRTC does not make it a ``sqrt``."""
    from test_float_int_round_trip import ptx_of

    x = bases(fname)
    y = np.full((2, N), np.nan, x.dtype)
    comp = tc.compile(pow_constants, x, y, PS=(0.5, -0.5), NX=N, target="reference")
    src = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90"), comp.fn_name)
    body = src.text[src.text.index("__global__"):]
    assert body.count(f"tc_pow_{fname.replace('float', 'f')}(") >= 2, body
    assert "sqrt" not in ptx_of(src.text, "sm_90")


def test_the_issue_cases() -> None:
    """``x ** 0.5`` of ``[-inf, -0.0]``, directly and after a reduction, is ``[+inf, +0.0]``."""

    @tc.kernel
    def direct(X, Y):
        for _p in tc.parallel(1):
            Y.tile((0,), (2,)).store(X.tile((0,), (2,)) ** 0.5)

    @tc.kernel
    def reduced(X, Y):
        for _p in tc.parallel(1):
            Y.tile((0,), (2,)).store(tc.load(X.tile((0,), (2,))).min(axis=None) ** 0.5
                                     + tc.zeros((2,)))

    for target in ("reference", "cpu", "cuda:sm_90"):
        x = np.array([-np.inf, -0.0], np.float32)
        y = poisoned(x)
        run(direct, target, x, y)
        assert y.tolist() == [np.inf, 0.0] and not np.signbit(y).any(), (target, y)
        y = poisoned(x)
        run(reduced, target, x, y)
        assert y.tolist() == [np.inf, np.inf], (target, y)
