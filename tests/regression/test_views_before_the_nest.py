"""Issue 16: a view of memory taken before the ``tc.parallel`` nest was refused.

``At = A.T`` (or ``A.permute(...)``, or an ``A.tile(...)`` window) written at
function level, ahead of ``for p in tc.parallel(...)``, was a
``TileSyntaxError`` ("a view of an array ... is taken per program"). A view
reads and writes nothing, so capture now accepts it and moves a copy into
every nest that uses it (``frontend/nest_sinking.py``): the Candidate IR is
the one the kernel written with the view inside its nest gives, on every
target. What a top-level statement cannot do is still refused at its source:
reading memory there (a window used as a value) is tile work, and a view
whose value leaves through a top-level ``if`` cannot be moved. The GPU run is
``tests/device/test_cuda_views_before_the_nest.py``.

Tile constants (``tc.zeros``) and coordinate tiles (``tc.arange``) named before the
nest move the same way: GPU lowering ran no tile code outside its one nest, and
``tc.simulate`` failed on a top-level ``tc.zeros`` with an internal ``KeyError``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from paths import (
    CUBIN_ARCHS,
    CUDA_TARGETS,
    HOST_PATHS,
    PATHS,
    assert_located,
    cubin,
    cuda_source,
    needs_nvrtc,
    poisoned,
    run,
)


@tc.kernel
def transposed_before(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                      BK: tc.constexpr = 8):
    """C = A @ B.T with ``Bt = B.T`` taken before the nest."""
    M, K = A.shape
    N = B.shape[0]
    Bt = B.T
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = Bt.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def transposed_inside(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 16,
                      BK: tc.constexpr = 8):
    """The same kernel with the view taken in the nest (what the first one means)."""
    M, K = A.shape
    N = B.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        Bt = B.T
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = Bt.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def chained(X, Out, off, BM: tc.constexpr = 4, BN: tc.constexpr = 8):
    """A chain of views at function level: a permuted 3-D array, a window of it at a runtime
    origin, its unit-axis reshape; the nest windows the window and loads it (elements outside
    any level read the load's fill, -2)."""
    P = X.permute(2, 0, 1)  # [c, a, b]
    W = P.tile((off, 0, 0), (1, 2 * BM, BN), fill=-1.0)
    W2 = W.reshape(2 * BM, BN)
    for p in tc.parallel(2):
        x = W2.tile((p * BM, 0), (BM, BN), fill=-2.0).load()
        Out.tile((p * BM, 0), (BM, BN)).store(x * 2.0 + 1.0)


@tc.kernel
def unused_view(X, Out, BM: tc.constexpr = 4):
    """A view nothing reads: dropped."""
    Xt = X.T  # noqa: F841
    for p in tc.parallel(2):
        Out.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)) + 1.0)


@tc.kernel
def two_nests(X, Out, BM: tc.constexpr = 4):
    """One view before two nests (reference and cpu run a top level): each nest takes its own
    copy; the second reads what the first wrote through it."""
    Ot = Out.T
    Xt = X.T
    for p in tc.parallel(2):
        Ot.tile((p * BM, 0), (BM, 2 * BM)).store(Xt.tile((p * BM, 0), (BM, 2 * BM)))
    for q in tc.parallel(2):
        y = Ot.tile((q * BM, 0), (BM, 2 * BM)).load()
        Ot.tile((q * BM, 0), (BM, 2 * BM)).store(y * 10.0)


@tc.kernel
def constants_before(X, Out, BM: tc.constexpr = 4):
    """Tile constants named before the nest (tc.simulate failed with an internal KeyError:
    GPU lowering runs no tile code outside the nest)."""
    zero = tc.zeros((BM,))
    half = tc.full((BM,), 0.5)
    for p in tc.parallel(2):
        Out.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,)) * half + zero + p)


def _views_in_nests(compiled: Any) -> list[int]:
    """How many ``view`` operations each top-level nest of the captured function holds (no
    other top-level operation may hold any)."""
    fn = compiled.module.lookup(compiled.fn_name)
    counts = []
    for op in fn.entry:
        n = sum(1 for o in op.walk() if o.name == "view")
        assert n == 0 or op.name == "parallel", op.name
        if op.name == "parallel":
            counts.append(n)
    return counts


def test_the_ir_is_that_of_the_view_inside_the_nest() -> None:
    specs = (tc.array((None, None), np.float32),) * 3
    before = tc.compile(transposed_before, *specs, target="reference").ir
    inside = tc.compile(transposed_inside, *specs, target="reference").ir
    assert before == inside.replace("@transposed_inside", "@transposed_before")
    for target in CUDA_TARGETS:  # the same CUDA, but for the source lines in comments
        a = cuda_source(transposed_before, *specs, target=target).text
        b = cuda_source(transposed_inside, *specs, target=target).text
        assert _code(a) == _code(b.replace("transposed_inside", "transposed_before"))


def _code(cuda: str) -> str:
    """CUDA source without its comments (which cite source lines)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", cuda, flags=re.S)


@pytest.mark.parametrize("target", PATHS)
def test_a_transposed_operand_taken_before_the_nest(target: str) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (40, 24)).astype(np.float32)  # exact in any summation order
    b = rng.integers(-4, 5, (20, 24)).astype(np.float32)
    want = poisoned(40, 20)
    tc.interpret(transposed_inside, a, b, want)
    np.testing.assert_array_equal(want, a @ b.T)
    out = poisoned(40, 20)
    run(target, transposed_before, a, b, out)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", PATHS)
@pytest.mark.parametrize("off", [0, 2, 3], ids=lambda o: f"off{o}")
def test_a_chain_of_views_with_a_runtime_origin(target: str, off: int) -> None:
    x = np.arange(6 * 8 * 3, dtype=np.float32).reshape(6, 8, 3)
    want = poisoned(8, 8)
    # W: a window of x.transpose(2, 0, 1); what leaves it reads the fill of the load
    view = np.full((1, 8, 8), -2.0, np.float32)
    if off < 3:
        view[0, :6] = x.transpose(2, 0, 1)[off]
    want[:] = view[0] * 2.0 + 1.0
    ref = poisoned(8, 8)
    tc.interpret(chained, x, ref, off)
    np.testing.assert_array_equal(ref, want)
    out = poisoned(8, 8)
    run(target, chained, x, out, off)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", PATHS)
def test_an_unused_view_is_dropped(target: str) -> None:
    x = np.arange(8, dtype=np.float32)
    assert _views_in_nests(tc.compile(unused_view, x, x, target="reference")) == [2]
    out = poisoned(8)
    run(target, unused_view, x, out)
    np.testing.assert_array_equal(out, x + 1.0)


@pytest.mark.parametrize("target", PATHS)
def test_tile_constants_before_the_nest(target: str) -> None:
    x = np.arange(8, dtype=np.float32)
    fn = tc.compile(constants_before, x, x, target="reference").module.lookup("constants_before")
    assert not any(op.name == "constant" and isinstance(op.result.type, ir.TileType)
                   for op in fn.entry)
    out = poisoned(8)
    run(target, constants_before, x, out)
    np.testing.assert_array_equal(out, x * 0.5 + np.repeat([0.0, 1.0], 4).astype(np.float32))


@pytest.mark.parametrize("target", HOST_PATHS)
def test_each_nest_takes_its_own_copy(target: str) -> None:
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    compiled = tc.compile(two_nests, x, x, target="reference")
    assert _views_in_nests(compiled) == [4, 3]  # Ot (and Xt), then their windows
    out = poisoned(8, 8)
    run(target, two_nests, x, out)
    np.testing.assert_array_equal(out, x * 10.0)


def test_every_view_of_the_kernels_is_inside_a_nest() -> None:
    x3 = tc.array((None, None, None), np.float32)
    m = tc.array((None, None), np.float32)
    _views_in_nests(tc.compile(chained, x3, m, tc.int32, target="reference"))
    _views_in_nests(tc.compile(transposed_before, m, m, m, target="reference"))


@pytest.mark.parametrize("target", CUDA_TARGETS)
def test_cuda_emits_the_chain(target: str) -> None:
    src = cuda_source(chained, tc.array((None, None, None), np.float32),
                      tc.array((None, None), np.float32), tc.int32, target=target)
    assert src.kernel in src.text and src.checks == []


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
def test_the_kernels_compile_to_cubins(target: str, arch: str) -> None:
    m = tc.array((None, None), np.float32)
    cubin(cuda_source(transposed_before, m, m, m, target=target), arch)
    cubin(cuda_source(chained, tc.array((None, None, None), np.float32), m, tc.int32,
                      target=target), arch)


# ----------------------------------------------------------------------- refused


@tc.kernel
def read_before_the_nest(X, Y):
    x = X.tile((0, 0), (4, 4))
    t = x.T  # err
    for _p in tc.parallel(1):
        Y.tile((0, 0), (4, 4)).store(t)


@tc.kernel
def view_through_an_if(X, Y, c):
    A = X
    if c > 0:
        A = X.T  # err
    for _p in tc.parallel(1):
        Y.tile((0, 0), (4, 4)).store(A.tile((0, 0), (4, 4)))


def test_reading_memory_before_the_nest_is_refused_at_the_read() -> None:
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.interpret(read_before_the_nest, x, x)
    assert_located(info.value, read_before_the_nest, "x.T",
                   ["reading memory (an array or window used as a value) is tile work",
                    "inside a tc.parallel nest"])


def test_a_view_carried_out_of_a_top_level_if_is_refused_at_the_view() -> None:
    x = np.zeros((4, 4), np.float32)
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(view_through_an_if, x, x, 1, target="reference", static_shapes=True)
    assert_located(info.value, view_through_an_if, "X.T",
                   ["this view of an array is taken outside a tc.parallel nest",
                    "passed on by a top-level 'yield'",
                    "take it inside the loop body of the nest that uses it"])
