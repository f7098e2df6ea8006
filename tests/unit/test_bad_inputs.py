"""The bad-input catalogue: every way a user can call tilec wrongly, and what they get.

Each case is a mistake (wrong rank, dtype or device, aliasing, non-contiguous or
read-only arrays, zero-size arrays, shape mismatches, unsupported syntax, illegal tile
shapes, unknown targets ...) and either the error it must raise — its type, fragments of
its message, its source location when the mistake is in kernel code, and a traceback
that holds at most the one public tilec entry point the user called — or the documented
behaviour it must have. Argument mistakes run on every CPU-side path: ``cpu``,
``reference`` and the simulator (``tc.simulate``).
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc

PACKAGE = Path(tc.__file__).resolve().parent
PATHS = ("cpu", "reference", "simt")


def run_on(path: str, fn: Any, *args: Any, **constexprs: Any) -> None:
    """Compile ``fn`` for ``path`` and call it (the simulator through ``tc.simulate``)."""
    if path == "simt":
        tc.simulate(fn, *args, target="cuda:sm_90", **constexprs)
    else:
        tc.compile(fn, *args, target=path, **constexprs)(*args)


def assert_user_error(call: Callable[[], Any], etype: type[BaseException], *fragments: str,
                      at: Any = None) -> BaseException:
    """``call()`` raises ``etype`` whose message holds ``fragments``, with no compiler frames.

    ``at``: a kernel whose ``# err`` line the error must name (``file:line:``)."""
    with pytest.raises(etype) as info:
        call()
    e = info.value
    text = str(e)
    for frag in fragments:
        assert frag in text, f"{frag!r} not in {text!r}"
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if PACKAGE in Path(f.filename).resolve().parents]
    assert len(ours) <= 1, "compiler frames in the traceback: " + ", ".join(
        f"{Path(f.filename).name}:{f.name}" for f in ours)
    assert e.__cause__ is None
    if at is not None:
        lines, start = inspect.getsourcelines(at.fn)
        line = start + next(k for k, ln in enumerate(lines) if "# err" in ln)
        assert f"{Path(inspect.getsourcefile(at.fn)).name}:{line}:" in text, text
    return e


# ----------------------------------------------------------------------------- kernels


@tc.kernel
def copy2d(X, Y, B: tc.constexpr = 4):
    M, N = X.shape  # err
    for i, j in tc.parallel(tc.cdiv(M, B), tc.cdiv(N, B)):
        Y.tile((i * B, j * B), (B, B)).store(X.tile((i * B, j * B), (B, B), fill=0.0))


@tc.kernel
def scale(X, Y, s, B: tc.constexpr = 4):
    N = X.shape[0]
    for i in tc.parallel(tc.cdiv(N, B)):  # err
        Y.tile((i * B,), (B,)).store(X.tile((i * B,), (B,), fill=0.0) * s)


@tc.kernel
def iscale(X, Y, s: tc.int32, B: tc.constexpr = 4):
    N = X.shape[0]
    for i in tc.parallel(tc.cdiv(N, B)):
        Y.tile((i * B,), (B,)).store(X.tile((i * B,), (B,), fill=0) * s)


@tc.kernel
def needs_constexpr(X, Y, B: tc.constexpr):
    for _i in tc.parallel(1):
        Y.tile((0,), (B,)).store(X.tile((0,), (B,)))


@tc.kernel
def zero_extent(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (0,)).store(X.tile((0,), (0,)))  # err


@tc.kernel
def negative_extent(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (-2,)).store(X.tile((0,), (-2,)))  # err


@tc.kernel
def origin_rank(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (4, 4)).store(X.tile((0,), (4, 4)))  # err


@tc.kernel
def bad_reshape(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (4,)).load().reshape(3))  # err


@tc.kernel
def index_out_of_tile(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (1,)).store(X.tile((0,), (4,)).load()[5])  # err


@tc.kernel
def zero_step(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (8,)).load()[::0])  # err


@tc.kernel
def reduce_bad_axis(X, Y):
    for _i in tc.parallel(1):
        Y.tile((0,), (4,)).store(tc.sum(X.tile((0,), (4,)), axis=3))  # err


@tc.kernel
def with_statement(X, Y):
    with open("x"):  # err
        pass


@tc.kernel
def comprehension(X, Y):
    a = [i for i in range(3)]  # err  # noqa: F841


@tc.kernel
def try_statement(X, Y):
    try:  # err
        pass
    except Exception:
        pass


@tc.kernel
def fstring(X, Y):
    s = f"{X}"  # err  # noqa: F841


@tc.kernel
def mma_mixed(A, B, C):
    for _i in tc.parallel(1):
        acc = tc.mma(A.tile((0, 0), (16, 16)), B.tile((0, 0), (16, 16)), tc.zeros((16, 16)))  # err
        C.tile((0, 0), (16, 16)).store(acc)


@tc.kernel
def mma_rank1(A, B, C):
    for _i in tc.parallel(1):
        acc = tc.mma(A.tile((0,), (16,)), B.tile((0,), (16,)), tc.zeros((16,)))  # err
        C.tile((0,), (16,)).store(acc)


@tc.kernel
def varargs(*X):  # err
    pass


@tc.kernel
def list_constexpr(X, Y, L: tc.constexpr = 3):  # err
    for _i in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (4,)))


@tc.kernel
def threads_request(X, Y, T: tc.constexpr = 64):
    N = X.shape[0]
    for i in tc.parallel(tc.cdiv(N, 256), threads=T):  # err
        Y.tile((i * 256,), (256,)).store(X.tile((i * 256,), (256,), fill=0.0) + 1.0)


@tc.kernel
def tile_condition(X, Y):
    for _i in tc.parallel(1):
        x = X.tile((0,), (4,)).load()
        if x > 0.0:  # err
            Y.tile((0,), (4,)).store(x)


@tc.func
def helper(x):
    return x + 1.0


class FakeDeviceArray:
    """An object that says it lives on a CUDA device (``__cuda_array_interface__``)."""

    def __init__(self, a: np.ndarray) -> None:
        self.shape, self.dtype = a.shape, a.dtype

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self.shape, "typestr": "<f4", "data": (1 << 20, False), "version": 3,
                "strides": None}


def f32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1.0


# ------------------------------------------------------------------- argument mistakes


@dataclass(frozen=True)
class ArgCase:
    """A call with bad arguments: ``make()`` gives ``(kernel, args, constexprs)``."""

    name: str
    make: Callable[[], tuple[Any, tuple, dict]]
    etype: type[BaseException]
    fragments: tuple[str, ...]
    at: Any = None


def _readonly() -> np.ndarray:
    y = np.zeros((6, 6), np.float32)
    y.flags.writeable = False
    return y


def _aliased() -> tuple:
    x = f32(6, 6)
    return copy2d, (x, x), {}


def _overlapping() -> tuple:
    base = f32(12, 6)
    return copy2d, (base[:6], base[3:9]), {}


ARG_CASES = [
    ArgCase("rank too low for the kernel's unpacking", lambda: (copy2d, (f32(6), f32(6, 6)), {}),
            tc.TileSyntaxError, ("cannot unpack 1 values into 2 names",), copy2d),
    ArgCase("unsupported element type", lambda: (copy2d, (f32(2, 2).astype(np.complex64),
                                                          f32(2, 2)), {}),
            tc.ArgumentError, ("argument X", "complex64 are not supported")),
    ArgCase("object array", lambda: (copy2d, (f32(2, 2).astype(object), f32(2, 2)), {}),
            tc.ArgumentError, ("argument X", "object are not supported")),
    ArgCase("a list for an array", lambda: (copy2d, ([[1.0]], f32(2, 2)), {}),
            tc.ArgumentError, ("argument X", "expected an array or a scalar", "list")),
    ArgCase("None for an array", lambda: (copy2d, (None, f32(2, 2)), {}),
            tc.ArgumentError, ("argument X", "NoneType")),
    ArgCase("a string for a scalar", lambda: (scale, (f32(4), f32(4), "2"), {}),
            tc.ArgumentError, ("argument s", "str")),
    ArgCase("an array for a scalar", lambda: (scale, (f32(4), f32(4), f32(2, 2)), {}),
            tc.TileSyntaxError, ("cannot load",)),
    ArgCase("too few arguments", lambda: (scale, (f32(4), f32(4)), {}),
            tc.ArgumentError, ("takes 3 runtime arguments (X, Y, s), got 2",)),
    ArgCase("too many arguments", lambda: (scale, (f32(4), f32(4), 2.0, 3.0), {}),
            tc.ArgumentError, ("takes 3 runtime arguments", "got 4")),
    ArgCase("unknown keyword", lambda: (scale, (f32(4), f32(4), 2.0), {"BB": 3}),
            tc.ArgumentError, ("'BB' is not a parameter",)),
    ArgCase("runtime parameter by keyword", lambda: (scale, (f32(4), f32(4), 2.0), {"s": 3}),
            tc.ArgumentError, ("'s' is a runtime parameter",)),
    ArgCase("missing constexpr", lambda: (needs_constexpr, (f32(4), f32(4)), {}),
            tc.ArgumentError, ("missing constexpr 'B'",)),
    ArgCase("constexpr of the wrong kind", lambda: (list_constexpr, (f32(4), f32(4)),
                                                    {"L": [1, 2]}),
            tc.TileSyntaxError, ("constexpr L must be a number", "got list"), list_constexpr),
    ArgCase("zero tile divisor", lambda: (scale, (f32(4), f32(4), 2.0), {"B": 0}),
            tc.TileSyntaxError, ("cdiv() needs a positive divisor, got 0",), scale),
    ArgCase("negative tile size", lambda: (scale, (f32(4), f32(4), 2.0), {"B": -4}),
            tc.TileSyntaxError, ("cdiv() needs a positive divisor, got -4",), scale),
    ArgCase("float tile size", lambda: (scale, (f32(4), f32(4), 2.0), {"B": 2.5}),
            tc.TileSyntaxError, ("cdiv() needs integer scalars",), scale),
    ArgCase("float for an int parameter", lambda: (iscale, (np.ones(4, np.int32),
                                                            np.ones(4, np.int32), 2.5), {}),
            tc.ArgumentError, ("argument s", "got a float")),
    ArgCase("int out of the parameter's range",
            lambda: (iscale, (np.ones(4, np.int32), np.ones(4, np.int32), 2 ** 40), {}),
            tc.ArgumentError, ("1099511627776", "does not fit", "32")),
    ArgCase("output is an input", _aliased, tc.ArgumentError, ("overlaps argument 0 ('X')",)),
    ArgCase("output overlaps an input", _overlapping, tc.ArgumentError, ("overlaps",)),
    ArgCase("read-only output", lambda: (copy2d, (f32(6, 6), _readonly()), {}),
            tc.ArgumentError, ("argument 1 ('Y')", "read-only but the kernel writes it")),
    ArgCase("an array on a CUDA device", lambda: (copy2d, (FakeDeviceArray(f32(2, 2)),
                                                           f32(2, 2)), {}),
            tc.ArgumentError, ("argument 0 ('X')", "FakeDeviceArray")),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", ARG_CASES, ids=lambda c: c.name)
def test_argument_mistakes(case: ArgCase, path: str) -> None:
    fn, args, cx = case.make()
    assert_user_error(lambda: run_on(path, fn, *args, **cx), case.etype, *case.fragments,
                      at=case.at)


# ------------------------------------------------- mistakes against a compiled kernel


@pytest.mark.parametrize("path", ["cpu", "reference"])
def test_calling_a_compiled_kernel_with_other_arrays(path: str) -> None:
    x, y = f32(6, 6), np.zeros((6, 6), np.float32)
    c = tc.compile(copy2d, x, y, target=path)
    assert_user_error(lambda: c(x.astype(np.float16), y), tc.ArgumentError,
                      "argument X: compiled for float32 arrays, got float16")
    assert_user_error(lambda: c(x[0], y), tc.ArgumentError, "compiled for rank 2")
    assert_user_error(lambda: c(x), tc.ArgumentError, "takes 2 runtime arguments")
    s = tc.compile(copy2d, x, y, target=path, static_shapes=True)
    assert_user_error(lambda: s(f32(5, 6), y), tc.ArgumentError,
                      "compiled for static shape (6, 6), got (5, 6)")


@pytest.mark.parametrize("path", ["cpu", "reference"])
def test_non_contiguous_arrays_are_taken_or_refused_by_name(path: str) -> None:
    """cpu (like cuda) takes row-major contiguous arrays and says so; the interpreter reads
    numpy arrays of any layout. Either way the answer is never wrong."""
    for x in (f32(6, 12)[:, ::2], np.asfortranarray(f32(6, 6))):
        y = np.full((6, 6), np.nan, np.float32)
        if path == "cpu":
            assert_user_error(lambda x=x, y=y: run_on(path, copy2d, x, y), tc.ArgumentError,
                              "argument 0 ('X')", "not C-contiguous")
        else:
            run_on(path, copy2d, x, y)
            np.testing.assert_array_equal(y, x)


# ---------------------------------------------------------------- documented behaviour


@pytest.mark.parametrize("path", PATHS)
def test_zero_size_arrays_run_no_program(path: str) -> None:
    x = np.zeros((0, 6), np.float32)
    y = np.zeros((0, 6), np.float32)
    run_on(path, copy2d, x, y)
    assert y.shape == (0, 6)


@pytest.mark.parametrize("path", PATHS)
def test_a_smaller_output_receives_the_in_range_elements(path: str) -> None:
    """Windows are bounded: a store outside the output array is dropped."""
    x = f32(6, 6)
    y = np.full((3, 3), np.nan, np.float32)
    run_on(path, copy2d, x, y)
    np.testing.assert_array_equal(y, x[:3, :3])


@pytest.mark.parametrize("path", PATHS)
def test_stores_convert_to_the_memory_element_type(path: str) -> None:
    x = f32(4, 4).astype(np.float64) + 0.25
    y = np.full((4, 4), np.nan, np.float32)
    run_on(path, copy2d, x, y)
    np.testing.assert_array_equal(y, x.astype(np.float32))


# ----------------------------------------------------------------- kernel-code mistakes


CODE_CASES = [
    (zero_extent, ("the shape of a tile view must have positive extents, got (0,)",)),
    (negative_extent, ("positive extents, got (-2,)",)),
    (origin_rank, ("needs 1 origin coordinates and 1 extents, got 1 and 2",)),
    (bad_reshape, ("cannot reshape a 4 tile to 3",)),
    (index_out_of_tile, ("index 5 is out of range for an axis of 4",)),
    (zero_step, ("positive step",)),
    (reduce_bad_axis, ("axis",)),
    (with_statement, ("unsupported Python syntax", "With")),
    (comprehension, ("unsupported Python syntax", "ListComp")),
    (try_statement, ("unsupported Python syntax", "Try")),
    (fstring, ("unsupported Python syntax",)),
    (varargs, ("*args, **kwargs and keyword-only parameters are not supported",)),
    (tile_condition, ("scalar condition",)),
]


@pytest.mark.parametrize("kernel,fragments", CODE_CASES, ids=lambda v: getattr(v, "__name__",
                                                                                 ""))
def test_kernel_code_mistakes_are_located(kernel: Any, fragments: tuple[str, ...]) -> None:
    v = np.zeros(8, np.float32)
    assert_user_error(lambda: tc.compile(kernel, v, v, target="cpu"), tc.TileSyntaxError,
                      *fragments, at=kernel)


def test_mma_operand_mistakes_are_located() -> None:
    a = np.ones((16, 16), np.int8)
    b = np.ones((16, 16), np.float32)
    assert_user_error(lambda: tc.compile(mma_mixed, a, b, b, target="cpu"), tc.TileSyntaxError,
                      "different element types (i8 and f32)", at=mma_mixed)
    v = np.ones(16, np.float32)
    assert_user_error(lambda: tc.compile(mma_rank1, v, v, v, target="cpu"), tc.TileSyntaxError,
                      "mma() takes rank-2 tiles", at=mma_rank1)


@pytest.mark.parametrize("target", ["cuda:sm_90", "metal:m1"])
def test_thread_requests_a_target_cannot_honour_are_refused(target: str) -> None:
    x = f32(1000)
    for t, fragment in ((48, "not a whole number of 32-lane subgroups"),
                        (2048, "exceed the")):
        y = np.zeros(1000, np.float32)
        assert_user_error(lambda t=t, y=y: tc.simulate(threads_request, x, y, target=target,
                                                       T=t),
                          tc.UserError, f"{t} threads per group", fragment, at=threads_request)


@pytest.mark.parametrize("target", ["cuda:sm_90", "metal:m1"])
def test_a_thread_request_is_honoured(target: str) -> None:
    from tilec.driver import lower_for

    x = f32(1000)
    for t in (64, 256):
        c = tc.compile(threads_request, x, x, target="reference", T=t)
        assert f"threads = {t}" in str(lower_for(c.module, c.fn_name, "simt:" + target))
        y = np.full(1000, np.nan, np.float32)
        tc.simulate(threads_request, x, y, target=target, T=t)
        np.testing.assert_array_equal(y, x + 1.0)


# ------------------------------------------------------------ targets and entry points


def test_unknown_targets_are_refused_where_they_are_named() -> None:
    x, y = f32(4, 4), f32(4, 4)
    for name, fragment in (("bogus", "unknown target 'bogus'"), ("gpu", "unknown target 'gpu'"),
                           ("cuda:sm_99", "unknown target 'cuda:sm_99'"),
                           ("simt:bogus", "unknown simulator profile 'bogus'")):
        e = assert_user_error(lambda name=name: tc.compile(copy2d, x, y, target=name),
                              tc.TargetUnavailable, fragment)
        assert "known targets: cpu" in str(e) or "known:" in str(e)
    assert_user_error(lambda: tc.compile(copy2d, x, y, target=3), tc.TargetUnavailable,
                      "a target is a name")
    assert_user_error(lambda: tc.simulate(copy2d, x, y, target="bogus"), tc.UserError,
                      "unknown target profile 'bogus'", "cuda:sm_90")


def test_an_unknown_default_target_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILEC_TARGET", "bogus")
    assert_user_error(lambda: copy2d(f32(4, 4), f32(4, 4)), tc.TargetUnavailable,
                      "unknown target 'bogus'")


def test_compile_takes_kernels_only() -> None:
    assert_user_error(lambda: tc.compile(3, f32(4)), tc.ArgumentError,
                      "expected a @tc.kernel function, got int")
    assert_user_error(lambda: tc.compile(helper, f32(4)), tc.ArgumentError,
                      "helper is a @tc.func helper, not a kernel")
    assert_user_error(lambda: tc.compile(lambda x: x, f32(4)), tc.TileSyntaxError,
                      "is not defined by a def statement")
    with pytest.raises(TypeError, match="call it from inside a @tc.kernel"):
        helper(1.0)


def test_the_catalogue_is_large() -> None:
    n = (len(ARG_CASES) * len(PATHS) + len(CODE_CASES) + 2 + 2 + 3 * len(PATHS) + 4 + 2 + 2
         + 7 + 1 + 4)
    assert len(ARG_CASES) + len(CODE_CASES) >= 30 and n >= 40


@tc.kernel
def store_scalar(Y, alpha):
    for _p in tc.parallel(1):
        Y.tile((0,), (1,)).store(alpha)


@pytest.mark.parametrize("path", PATHS)
def test_numpy_and_ml_dtypes_scalars_are_taken_on_every_path(path: str) -> None:
    import ml_dtypes

    for alpha in (ml_dtypes.bfloat16(1.5), np.float16(1.5), np.float32(1.5), np.int8(3)):
        y = np.full(1, np.nan, np.float32)
        run_on(path, store_scalar, y, alpha)
        assert y[0] == float(alpha)
