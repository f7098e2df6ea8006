"""Float -> integer -> float of a value that truncates to 0 is +0.0 on every path.

TileIR's ``cast`` truncates a float toward zero to an integer, and an integer converts to
the float of the same value: ``-0.5 -> 0 -> +0.0`` (docs/design/tileir.md, "cast"). The C
target gave ``-0.0``: with ``-fno-trapping-math`` GCC rewrites ``(float)(int)x`` as
``truncf(x)``, which keeps the sign of a zero. The C helper now converts a value with
``|x| < 1`` as ``+0.0``, so wherever the compiler applies that rewrite its operand is never
a value that truncates to a negative zero. NVRTC keeps the two conversions (checked on the
PTX below); the GPU run of the same kernels is
``tests/device/test_cuda_float_int_round_trip.py``.

Every float source type goes through every integer width and back, both through an explicit
``.to(...)`` and through the conversion a store makes, in a 64-element tile (the loops the C
compiler vectorizes) and a 3-element one (scalar code). Outputs are poisoned with NaN;
results are compared bit for bit with TileIR's rule computed here in Python.
"""

from __future__ import annotations

import math
import re
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec import lower
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda

PATHS = ("reference", "cpu", "cuda:sm_90", "cuda:sm_80", "metal:m1")
"""The two executable paths, then the simulator of each hardware profile."""
FLOATS = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
          "float64": np.float64}
"""Source (and destination) float types: name -> numpy dtype."""
INTS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
"""Integer types: name -> width."""
SPECIAL = [-0.5, -0.0, 0.0, -0.9375, -2.0 ** -20, 0.5, 0.9375, -1.0, -1.5, 1.5, 2.5, -3.75,
           200.0, -200.0, 1e30, -1e30, math.inf, -math.inf, math.nan]
"""Values around the zero that truncation reaches from both sides, plus saturating ones."""
_NVRTC = nvrtc_available()


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


@tc.kernel
def round_trip(X, Y, Z, IT: tc.constexpr, N: tc.constexpr):
    for _p in tc.parallel(1):
        x = X.tile((0,), (N,))
        Y.tile((0,), (N,)).store(x.to(IT))  # the store converts back to Y's type
        Z.tile((0,), (N,)).store(x.to(IT).to(x.dtype))


def inputs(fname: str, n: int) -> np.ndarray:
    """``n`` values of ``fname`` cycling through ``SPECIAL`` (rounded to the type)."""
    vals = (SPECIAL * (n // len(SPECIAL) + 1))[:n]
    with np.errstate(over="ignore"):  # 1e30 is inf in the narrow types
        return np.array(vals, np.float64).astype(FLOATS[fname])


def expected(x: np.ndarray, bits: int) -> np.ndarray:
    """TileIR's rule, computed here: truncate, saturate, NaN -> 0, then the integer's float."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    out = []
    for v in x.astype(np.float64):
        r = 0 if math.isnan(v) else hi if v >= hi + 1 else lo if v < lo else math.trunc(v)
        out.append(float(r))  # an integer's float: never -0.0
    with np.errstate(over="ignore"):  # a saturated i32/i64 is inf in f16
        return np.array(out, np.float64).astype(x.dtype)


def bits_of(a: np.ndarray) -> np.ndarray:
    """The bit patterns of a float array (so -0.0 and +0.0 differ)."""
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def run(target: str, fname: str, iname: str, n: int) -> tuple[np.ndarray, ...]:
    """Run ``round_trip`` on a path; returns the input and both outputs."""
    x = inputs(fname, n)
    y, z = np.full(n, np.nan, x.dtype), np.full(n, np.nan, x.dtype)
    it = getattr(tc, iname)
    if target in ("reference", "cpu"):
        if target == "cpu" and c_compiler_problem() is not None:
            pytest.skip(f"no C compiler: {c_compiler_problem()}")
        tc.compile(round_trip, x, y, z, IT=it, N=n, target=target)(x, y, z)
    elif target == "metal:m1" and x.dtype == np.float64:
        with pytest.raises(tc.UserError, match="metal:m1 has no 64-bit floating point"):
            tc.simulate(round_trip, x, y, z, IT=it, N=n, target=target)
        pytest.skip("metal:m1 has no f64: the simulator refuses it as the target does")
    else:
        tc.simulate(round_trip, x, y, z, IT=it, N=n, target=target)
    return x, y, z


@pytest.mark.parametrize("n", [64, 3])
@pytest.mark.parametrize("iname", sorted(INTS))
@pytest.mark.parametrize("fname", sorted(FLOATS))
@pytest.mark.parametrize("target", PATHS)
def test_a_value_that_truncates_to_zero_comes_back_as_plus_zero(target: str, fname: str,
                                                                 iname: str, n: int) -> None:
    x, y, z = run(target, fname, iname, n)
    want = expected(x, INTS[iname])
    assert not np.signbit(want[np.asarray(want == 0)]).any()
    for name, got in (("store", y), ("to", z)):
        bad = np.flatnonzero(bits_of(got) != bits_of(want))
        assert not bad.size, (f"{name} on {target}: x={x[bad][:6]} got={got[bad][:6]} "
                              f"want={want[bad][:6]}")


def test_the_issue_case() -> None:
    """``tc.full((2,), s).to(tc.int8)`` with ``s = -0.5`` stored to f32 is ``[+0, +0]``."""

    @tc.kernel
    def k(Y, s):
        for _p in tc.parallel(1):
            Y.tile((0,), (2,)).store(tc.full((2,), s, tc.float32).to(tc.int8))

    for target in ("reference", "cpu"):
        y = np.full(2, np.nan, np.float32)
        tc.compile(k, y, -0.5, target=target)(y, -0.5)
        assert (bits_of(y) == 0).all(), (target, y)


def ptx_of(source: str, arch: str) -> str:
    """The PTX NVRTC makes of ``source`` (no driver needed), with the kernels' options."""
    from cuda.bindings import nvrtc

    from tilec.targets.cuda.compiler import OPTIONS

    _, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"k.cu", 0, [], [])
    opts = [o.encode() for o in OPTIONS if not o.startswith("--ptxas")]
    opts.append(f"-arch=compute_{arch.removeprefix('sm_')}".encode())
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    assert int(err) == 0, err
    _, n = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetPTX(prog, buf)
    nvrtc.nvrtcDestroyProgram(prog)
    return buf.decode(errors="replace")


@pytest.mark.skipif(_NVRTC is not None, reason=f"NVRTC unavailable: {_NVRTC}")
@pytest.mark.parametrize("fname", ["float32", "float64"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_cuda_converts_through_the_integer(arch: str, fname: str) -> None:
    """NVRTC keeps the float -> i32 -> float round trip two conversions (never a float
    truncation, which would keep a zero's sign), and the kernel compiles to a cubin."""
    x = inputs(fname, 64)
    y = np.full(64, np.nan, x.dtype)
    comp = tc.compile(round_trip, x, y, y, IT=tc.int32, N=64, target="reference")
    src = emit_cuda(lower.lower_to_machine(comp.module, f"cuda:{arch}"), comp.fn_name)
    assert "tc_f2i_i32(" in src.text[src.text.index("__global__"):]
    ptx = ptx_of(src.text, arch)
    f = {"float32": "f32", "float64": "f64"}[fname]
    assert re.search(r"cvt\.rzi\.s32\.f64", ptx) and re.search(rf"cvt\.rn\.{f}\.s32", ptx), ptx
    assert not re.search(rf"cvt\.rzi\.{f}\.{f}", ptx), "a float -> int -> float became trunc"
    cub = compile_cubin(src.text, arch + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF"
