"""Issue 8: index arithmetic wrapped in 32 bits.

``X.tile((off * 65536,), (16,), fill=0.0)`` with an ``int`` argument ``off = 65536`` read
``X[0:16]`` on every target: ``off`` is an ``i32``, capture computed ``off * 65536`` in
``i32`` (numpy rules), where it wraps to 0, and only then converted the result to
``index``. Capture now recomputes an integer expression that feeds an index position in
``index`` from its sources (``frontend/tiles.widen_index``). The C emitter also multiplied
constant coordinates by static strides, and static extents with each other, in ``int``;
the CUDA launcher sized grids without wrapping narrowing conversions as the device does.

Every path runs here: the reference interpreter, the C backend, and the SIMT simulator of
each profile (the CUDA source is compiled to cubins; ``tests/device`` runs it on a GPU).
Without huge arrays a wrap shows as a window that lands back in range: ``off * M`` is
``2**32`` (0 in ``i32``) or ``2**31`` (negative in ``i32``), so a small array must read
``fill`` and a store must write nothing; and ``(off * M) // M - off + c`` is ``c`` in 64
bits but far out of range when wrapped, so in-range data must be read. Arrays beyond 2**31
elements are lazily allocated zeros (the kernel touches a few pages only).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
import tilec.lower as lower
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda

PATHS = ("reference", "cpu", "cuda:sm_90", "cuda:sm_80", "metal:m1")
"""The two executable paths, then the simulator of each hardware profile."""
OFF = 65536
"""The ``int`` argument (an ``i32`` in the kernel)."""
MULS = (65536, 32768)
"""``OFF * M`` is ``2**32`` (0 when wrapped) or ``2**31`` (``-2**31`` when wrapped)."""

_NVRTC = nvrtc_available()


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


def compiled(kernel: Any, target: str, *args: Any, **options: Any) -> Any:
    """``tc.compile`` for ``target``; the C backend skips (with the reason) without a compiler."""
    if target == "cpu" and c_compiler_problem() is not None:
        pytest.skip(f"no C compiler: {c_compiler_problem()}")
    return tc.compile(kernel, *args, target=target, **options)


def run(kernel: Any, target: str, *args: Any, **constexprs: Any) -> None:
    """Run ``kernel`` on a path (the simulator for hardware profiles); arrays in place."""
    if target in ("reference", "cpu"):
        compiled(kernel, target, *args, **constexprs)(*args)
    else:
        tc.simulate(kernel, *args, target=target, **constexprs)


def poisoned(n: int | tuple[int, ...], dt: Any = np.float32) -> np.ndarray:
    """An output whose unwritten elements show: NaN for floats, -7 for integers."""
    return np.full(n, np.nan if np.dtype(dt).kind == "f" else -7, dt)


# ------------------------------------------------------------------------------ kernels


@tc.kernel
def load_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((off * M,), (16,), fill=-1.0))


@tc.kernel
def load_round_trip(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile(((off * M) // M - off + 3,), (16,), fill=-1.0))


@tc.kernel
def store_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((0,), (16,)))
        Y.tile((off * M,), (16,)).store(tc.zeros((16,)))


@tc.kernel
def atomic_at(Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((off * M,), (16,)).atomic_add(tc.ones((16,)))
        Y.tile(((off * M) // M - off,), (16,)).atomic_add(tc.full((16,), 2.0))


@tc.kernel
def load_rows_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0, 0), (4, 16)).store(X.tile((off * M, 0), (4, 16), fill=-1.0))


@tc.kernel
def load_cols_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0, 0), (4, 16)).store(X.tile((1, off * M - 1), (4, 16), fill=-1.0))


@tc.kernel
def loop_from(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        acc = tc.zeros((16,))
        for i in tc.serial(off * M, off * M + 2):
            acc = acc + X.tile((i,), (16,), fill=1.0)
        Y.tile((0,), (16,)).store(acc)


@tc.kernel
def loop_round_trip(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        acc = tc.zeros((16,))
        for i in tc.serial((off * M) // M - off, (off * M) // M - off + 3):
            acc = acc + X.tile((i * 16,), (16,), fill=100.0)
        Y.tile((0,), (16,)).store(acc)


@tc.kernel
def programs(X, Y, off, M: tc.constexpr = 65536):
    for p in tc.parallel((off * M) // M - off + 2):
        Y.tile((p * 16,), (16,)).store(X.tile((p * 16,), (16,)))


@tc.kernel
def slice_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        t = X.tile((0,), (32,))
        s = (off * M) // M - off + 1
        Y.tile((0,), (8,)).store(t[s * 8:(s + 1) * 8])


@tc.kernel
def update_at(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        acc = tc.zeros((16,))
        for i in tc.parallel(2, level="group"):
            acc = tc.update(acc, ((off * M) // M - off + i * 8,), X.tile((i * 8,), (8,)))
        Y.tile((0,), (16,)).store(acc)


@tc.kernel
def compare_with_extent(X, Y, off, M: tc.constexpr = 65536):
    n = X.shape[0]
    for _p in tc.parallel(1):
        v = 1.0
        if off * M > n:
            v = 2.0
        Y.tile((0,), (16,)).store(tc.full((16,), v))


@tc.kernel
def value_and_index(Y, Z, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(tc.full((4,), off * M))
        Z.tile((off * M,), (4,)).store(tc.full((4,), 5))


@tc.kernel
def carried_offset(X, Y, off, M: tc.constexpr = 65536):
    for _p in tc.parallel(1):
        o = tc.index(off * M)
        acc = tc.zeros((16,))
        for _k in tc.serial(2):
            acc = acc + X.tile((o,), (16,), fill=1.0)
            o = o + 16
        Y.tile((0,), (16,)).store(acc)


def _f32(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float32)


def _wrap32(v: int) -> int:
    """``v`` wrapped to ``i32`` as numpy computes it."""
    return int(np.array([v], np.int64).astype(np.int32)[0])


# (kernel, make args, check(M, *args)) per index position; ``off`` is appended to the args
CASES: dict[str, tuple[Any, Any, Any]] = {
    "load": (load_at, lambda: (_f32(16), poisoned(16)), lambda m, X, Y: (Y == -1).all()),
    "load_round_trip": (load_round_trip, lambda: (_f32(32), poisoned(16)),
                        lambda m, X, Y: (Y == X[3:19]).all()),
    "store": (store_at, lambda: (_f32(16), poisoned(16)), lambda m, X, Y: (Y == X).all()),
    "atomic": (atomic_at, lambda: (np.zeros(16, np.float32),), lambda m, Y: (Y == 2).all()),
    "rows_2d": (load_rows_at, lambda: (np.ones((4, 16), np.float32), poisoned((4, 16))),
                lambda m, X, Y: (Y == -1).all()),
    "cols_2d": (load_cols_at, lambda: (np.ones((8, 16), np.float32), poisoned((4, 16))),
                lambda m, X, Y: (Y == -1).all()),
    "loop_bounds": (loop_from, lambda: (_f32(16), poisoned(16)),
                    lambda m, X, Y: (Y == 2).all()),
    "loop_induction": (loop_round_trip, lambda: (_f32(48), poisoned(16)),
                       lambda m, X, Y: (Y == X[:16] + X[16:32] + X[32:]).all()),
    "parallel_extent": (programs, lambda: (_f32(32), poisoned(32)),
                        lambda m, X, Y: (Y == X).all()),
    "slice_start": (slice_at, lambda: (_f32(32), poisoned(8)),
                    lambda m, X, Y: (Y == X[8:16]).all()),
    "update_origin": (update_at, lambda: (_f32(16), poisoned(16)),
                      lambda m, X, Y: (Y == X).all()),
    "compare": (compare_with_extent, lambda: (_f32(16), poisoned(16)),
                lambda m, X, Y: (Y == 2).all()),
    "value_and_index": (value_and_index, lambda: (poisoned(4, np.int32), poisoned(4, np.int32)),
                        lambda m, Y, Z: (Y == _wrap32(OFF * m)).all() and (Z == -7).all()),
    "carried_index": (carried_offset, lambda: (_f32(16), poisoned(16)),
                      lambda m, X, Y: (Y == 2).all()),
}

WRAPS_TO_ZERO = {"load", "store", "rows_2d", "cols_2d", "loop_bounds", "value_and_index",
                 "carried_index"}
"""Cases that need the wrapped origin back in range: a negative one reads ``fill`` too."""
RUNS = [(case, m) for case in sorted(CASES) for m in MULS
        if m == 65536 or case not in WRAPS_TO_ZERO]


# ------------------------------------------------------------------------------ every path


@pytest.mark.parametrize("target", PATHS)
@pytest.mark.parametrize("case,mul", RUNS)
def test_index_positions_do_not_wrap(case: str, mul: int, target: str) -> None:
    kernel, make, check = CASES[case]
    args = make()
    if case == "atomic" and target.startswith("metal"):
        # the metal profile has no atomic operations: the program is refused, named
        with pytest.raises(tc.UserError, match="metal:m1 has no atomic operations"):
            run(kernel, target, *args, OFF, M=mul)
        return
    run(kernel, target, *args, OFF, M=mul)
    assert check(mul, *args), f"{case} on {target}: {[a.ravel()[:16] for a in args]}"


def test_the_issue_case_on_every_path() -> None:
    X = _f32(16)
    for target in PATHS:
        Y = poisoned(16)
        run(load_at, target, X, Y, OFF, M=65536)
        np.testing.assert_array_equal(Y, np.full(16, -1.0, np.float32), err_msg=target)


def test_capture_widens_at_the_source() -> None:
    """The origin is ``cast(off) * 65536 : index``; no ``i32`` arithmetic is left."""
    comp = tc.compile(load_at, _f32(16), poisoned(16), OFF, target="reference")
    fn = comp.module.lookup(comp.fn_name)
    view = next(op for op in fn.walk() if op.name == "view" and op.num_operands == 2)
    mul = view.operand(1).defining_op
    assert (mul.name, mul.attr("fn"), mul.result.type) == ("arith", "mul", ir.index)
    casts = [v.defining_op for v in mul.operands if v.defining_op.name == "arith"]
    assert [c.attr("fn") for c in casts] == ["cast"] and casts[0].operand(0) is fn.args[2]
    assert not [op for op in fn.walk() if op.name == "arith" and op.result.type is ir.i32]


def test_runtime_slice_of_an_int_argument_is_accepted() -> None:
    """``t[o * 8:(o + 1) * 8]`` with an ``int`` ``o``: both bounds are index positions."""

    @tc.kernel
    def k(X, Y, o):
        for _p in tc.parallel(1):
            t = X.tile((0,), (32,))
            Y.tile((0,), (8,)).store(t[o * 8:(o + 1) * 8])

    X, Y = _f32(32), poisoned(8)
    tc.interpret(k, X, Y, 2)
    np.testing.assert_array_equal(Y, X[16:24])


# ------------------------------------------------------------------------------ CUDA source


def _cuda(kernel: Any, args: tuple, target: str, **cx: Any) -> Any:
    comp = tc.compile(kernel, *args, OFF, target="reference", **cx)
    return emit_cuda(lower.lower_to_machine(comp.module, target), comp.fn_name, target)


def test_cuda_source_multiplies_the_argument_in_64_bits() -> None:
    text = _cuda(load_at, (_f32(16), poisoned(16)), "cuda:sm_90").text
    body = text[text.index("__global__"):]
    off = re.search(r"int32_t (\w+_off)\b", body).group(1)  # type: ignore[union-attr]
    assert not re.search(rf"int32_t\)\({off} \*", body), "off * 65536 computed in 32 bits"
    assert re.search(r"const int64_t \w+ = .*\(int64_t\)\w+ \* \(int64_t\)65536", body)


def test_cuda_stride_of_static_extents_is_64_bit() -> None:
    """``65536 * 65536 * X_3`` would be an ``int`` product (0) before the ``int64_t`` factor."""
    comp = tc.compile(copy_first_column, tc.array((2, 65536, 65536, None), tc.int8),
                      tc.array((2, 1, 1, 1), tc.int8), target="reference")
    text = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90"), comp.fn_name).text
    strides = re.findall(r"const int64_t \w+_s\d+ = (.*);", text)
    assert strides and all(not s.startswith("65536") for s in strides), strides


@pytest.mark.skipif(_NVRTC is not None, reason=f"NVRTC unavailable: {_NVRTC}")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_cuda_source_compiles(case: str, arch: str) -> None:
    kernel, make, _ = CASES[case]
    src = _cuda(kernel, make(), f"cuda:{arch}")
    cub = compile_cubin(src.text, arch + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF"


def test_cuda_grid_size_wraps_narrowing_like_the_device() -> None:
    """The launcher evaluates grid extents on the host: ``int8(258)`` programs are 2."""

    @tc.kernel
    def k(Y, n: tc.int64):
        for p in tc.parallel(tc.int8(n)):
            Y.tile((p,), (1,)).store(tc.full((1,), 1.0))

    Y = np.zeros(300, np.float32)
    tc.interpret(k, Y, 258)
    assert Y.sum() == 2
    comp = tc.compile(k, Y, 258, target="reference")
    src = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90"), comp.fn_name)
    assert src.grid([0, 258, Y.shape[0]]) == (2,)


# ------------------------------------------------------------------------------ big arrays


def lazy_zeros(shape: tuple[int, ...], dt: Any = np.int8) -> np.ndarray:
    """Zeros whose pages are committed only when touched (a skip where that is refused)."""
    try:
        return np.zeros(shape, dt)
    except MemoryError:
        pytest.skip(f"cannot reserve a lazily allocated {shape} array here")


@tc.kernel
def copy_windows(X, Y, base):
    for p in tc.parallel(2):
        Y.tile((p * 32,), (32,)).store(X.tile((base + p * 32,), (32,), fill=-1))


@tc.kernel
def copy_rows(X, Y, row):
    for p in tc.parallel(2):
        Y.tile((p, 0), (1, 64)).store(X.tile((row + p, 64 * p), (1, 64), fill=-1))


@tc.kernel
def copy_past_2_32(X, Y, off):
    for p in tc.parallel(4):
        Y.tile((p * 64,), (64,)).store(X.tile((off * 65536 + (p * 64 - 128),), (64,), fill=-1))


@tc.kernel
def copy_constant_row(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0, 0), (1, 16)).store(X.tile((4, 0), (1, 16), fill=-1))


@tc.kernel
def copy_first_column(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0, 0, 0, 0), (2, 1, 1, 1)).store(X.tile((0, 0, 0, 0), (2, 1, 1, 1), fill=-1))


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_reads_across_2_31(target: str) -> None:
    lo = 2**31 - 32
    X = lazy_zeros((2**31 + 64,))
    X[lo:lo + 64] = np.arange(1, 65, dtype=np.int8)
    Y = poisoned(64, np.int8)
    compiled(copy_windows, target, X, Y, lo)(X, Y, lo)
    np.testing.assert_array_equal(Y, np.arange(1, 65, dtype=np.int8))


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_row_times_stride_beyond_2_31(target: str) -> None:
    rows, cols = 2**16 + 1, 2**15  # row 2**16 starts at element 2**31
    X = lazy_zeros((rows, cols))
    X[rows - 2, :] = 5
    X[rows - 1, :] = 7
    Y = poisoned((2, 64), np.int8)
    compiled(copy_rows, target, X, Y, rows - 2)(X, Y, rows - 2)
    np.testing.assert_array_equal(Y, np.array([[5] * 64, [7] * 64], np.int8))


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_int_offset_reads_across_2_32(target: str) -> None:
    """``off * 65536 + ...`` with an ``int`` ``off``: real data on both sides of ``2**32``."""
    X = lazy_zeros((2**32 + 128,))
    X[:128] = 99  # where a wrapped origin would read
    want = (np.arange(256) % 100).astype(np.int8)
    X[2**32 - 128:] = want
    Y = poisoned(256, np.int8)
    compiled(copy_past_2_32, target, X, Y, OFF)(X, Y, OFF)
    np.testing.assert_array_equal(Y, want)


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_constant_origin_times_static_stride(target: str) -> None:
    """Static shapes: row 4 of a ``5 x 2**30`` array starts at ``2**32`` (0 in ``int``)."""
    X = lazy_zeros((5, 2**30))
    X[0, :16] = 3
    X[4, :16] = 9
    Y = poisoned((1, 16), np.int8)
    compiled(copy_constant_row, target, X, Y, static_shapes=True)(X, Y)
    np.testing.assert_array_equal(Y, np.full((1, 16), 9, np.int8))


@pytest.mark.parametrize("target", ["reference", "cpu"])
def test_product_of_static_extents_beyond_int(target: str) -> None:
    """A stride ``65536 * 65536 * X_3`` (two static extents, one symbolic) is ``2**32``."""
    X = lazy_zeros((2, 65536, 65536, 1))
    X[0, 0, 0, 0] = 3
    X[1, 0, 0, 0] = 9
    Y = poisoned((2, 1, 1, 1), np.int8)
    specs = (tc.array((2, 65536, 65536, None), tc.int8), tc.array((2, 1, 1, 1), tc.int8))
    compiled(copy_first_column, target, *specs)(X, Y)
    np.testing.assert_array_equal(Y.ravel(), [3, 9])
