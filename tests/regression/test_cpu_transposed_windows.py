"""Issue: on cpu, a window of a transposed array view failed where it crossed an edge.

``X.T`` is a ``total`` view of ``X`` and ``X.T.tile(...)`` a ``bounded`` window of
it. The C access writer checked the total level on every element of the window,
so a window crossing the edge of ``X.T`` reported that ``X.T`` leaves ``X``,
although those elements are invalid in the window and never reach ``X.T``. As in
the reference interpreter, a total level now checks only the elements valid in
every bounded level cut from it later, in the box form and in the per-element
form. Swept here: loads, stores and atomics through ``.T`` and ``.permute`` of 2-D
and 3-D arrays, negative origins, windows of windows, scratch memory, and
hand-written chains in both forms where the total view really does leave its
base for some elements (an error on both paths) or only for unreached ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.targets.cpu.backend import make_backend as c_backend
from tilec.targets.cpu.backend import probe
from tilec.targets.reference.backend import make_backend as reference_backend

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no C compiler: {probe()}")

SIMULATED = ["cuda:sm_90", "cuda:sm_80", "metal:m1"]


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


def _run(kernel, target: str, x: np.ndarray, y: np.ndarray, **constexprs: Any) -> np.ndarray:
    y = y.copy()
    if target == "reference":
        tc.interpret(kernel, x, y, **constexprs)
    elif target == "cpu":
        tc.compile(kernel, x, y, target="cpu", **constexprs)(x, y)
    else:
        tc.simulate(kernel, x, y, target=target, **constexprs)
    return y


def _check(kernel, x: np.ndarray, y0: np.ndarray, want: np.ndarray, targets: list[str],
           **constexprs: Any) -> None:
    """Every target, the reference interpreter and numpy (``want``) agree exactly."""
    for target in ["reference", *targets]:
        got = _run(kernel, target, x, y0, **constexprs)
        np.testing.assert_array_equal(got, want, err_msg=target)


@tc.kernel
def issue_load(X, Y, BB: tc.constexpr = 4):
    M, N = Y.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB), tc.cdiv(N, BB)):
        t = X.T.tile((pm * BB, pn * BB), (BB, BB), fill=0.0)
        Y.tile((pm * BB, pn * BB), (BB, BB)).store(t)


@tc.kernel
def issue_store(X, Y, BB: tc.constexpr = 4):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB), tc.cdiv(N, BB)):
        Y.T.tile((pm * BB, pn * BB), (BB, BB)).store(X.tile((pm * BB, pn * BB), (BB, BB)))


def _x2() -> np.ndarray:
    return np.random.default_rng(3).integers(-5, 6, (5, 7)).astype(np.float32)


def _nan(shape: tuple[int, ...]) -> np.ndarray:
    return np.full(shape, np.nan, np.float32)


def test_the_issue_cases() -> None:
    x = _x2()
    _check(issue_load, x, _nan((7, 5)), x.T, ["cpu", *SIMULATED])
    _check(issue_store, x, _nan((7, 5)), x.T, ["cpu", *SIMULATED])


# Every kernel below runs one program more than the array needs along each swept axis,
# and shifts its windows back by OFF: windows cross both edges, origins go negative.

@tc.kernel
def t_load(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    M, N = Y.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB) + 1, tc.cdiv(N, BB) + 1):
        t = X.T.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB), fill=-1.0)
        Y.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB)).store(t + 1.0)


@tc.kernel
def t_store(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB) + 1, tc.cdiv(N, BB) + 1):
        t = X.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB), fill=0.0)
        Y.T.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB)).store(t * 2.0)


@tc.kernel
def t_atomic_add(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB) + 1, tc.cdiv(N, BB) + 1):
        t = X.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB), fill=0.0)
        Y.T.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB)).atomic_add(t)


@tc.kernel
def t_atomic_max(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    M, N = X.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB) + 1, tc.cdiv(N, BB) + 1):
        t = X.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB), fill=0.0)
        Y.T.tile((pm * BB - OFF, pn * BB - OFF), (BB, BB)).atomic_max(t)


@tc.kernel
def permute_load_3d(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    C, A, B = Y.shape
    for pc, pa, pb in tc.parallel(tc.cdiv(C, BB) + 1, A, tc.cdiv(B, BB)):
        t = X.permute(2, 0, 1).tile((pc * BB - OFF, pa, pb * BB), (BB, 1, BB), fill=7.0)
        Y.tile((pc * BB - OFF, pa, pb * BB), (BB, 1, BB)).store(t)


@tc.kernel
def transpose_3d(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    C, B, A = Y.shape
    for pc, pb, pa in tc.parallel(tc.cdiv(C, BB), tc.cdiv(B, BB) + 1, A):
        t = X.T.tile((pc * BB, pb * BB - OFF, pa), (BB, BB, 1), fill=7.0)
        Y.T.T.tile((pc * BB, pb * BB - OFF, pa), (BB, BB, 1)).store(t)


@tc.kernel
def permute_store_3d(X, Y, BB: tc.constexpr = 4, OFF: tc.constexpr = 0):
    A, B, C = X.shape
    for pa, pb, pc in tc.parallel(A, tc.cdiv(B, BB) + 1, tc.cdiv(C, BB) + 1):
        t = X.tile((pa, pb * BB - OFF, pc * BB - OFF), (1, BB, BB), fill=0.0)
        Y.permute(1, 2, 0).tile((pa, pb * BB - OFF, pc * BB - OFF), (1, BB, BB)).store(t)


def _x3() -> np.ndarray:
    return np.random.default_rng(4).integers(-5, 6, (3, 6, 5)).astype(np.float32)


CASES = {
    "load": (t_load, _x2, lambda x: _nan(x.T.shape), lambda x: x.T + 1),
    "store": (t_store, _x2, lambda x: _nan(x.T.shape), lambda x: x.T * 2),
    "atomic_add": (t_atomic_add, _x2, lambda x: np.ones(x.T.shape, np.float32),
                   lambda x: x.T + 1),
    "atomic_max": (t_atomic_max, _x2, lambda x: np.ones(x.T.shape, np.float32),
                   lambda x: np.maximum(x.T, 1)),
    "permute_load_3d": (permute_load_3d, _x3, lambda x: _nan((5, 3, 6)),
                        lambda x: x.transpose(2, 0, 1)),
    "transpose_3d": (transpose_3d, _x3, lambda x: _nan((5, 6, 3)), lambda x: x.T),
    "permute_store_3d": (permute_store_3d, _x3, lambda x: _nan((5, 3, 6)),
                         lambda x: x.transpose(2, 0, 1)),
}


@pytest.mark.parametrize("off", [0, 1, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_permuted_windows_at_every_edge(case: str, off: int) -> None:
    kernel, make_x, make_y, want = CASES[case]
    x = make_x()
    # The simulators run the 2-D cases; the 3-D ones are checked on cpu and the reference.
    targets = ["cpu", *SIMULATED] if x.ndim == 2 and off == 1 else ["cpu"]
    if case.startswith("atomic"):  # the metal profile has no atomic operations
        targets = [t for t in targets if not t.startswith("metal")]
    _check(kernel, x, make_y(x), want(x), targets, OFF=off)


@tc.kernel
def window_of_transposed_window(X, Y, BB: tc.constexpr = 4):
    M, N = Y.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB), tc.cdiv(N, BB)):
        w = X.T.tile((pm * BB - 1, pn * BB), (BB, BB), fill=-1.0)
        Y.tile((pm * BB - 1, pn * BB), (BB, BB)).store(w.tile((1, 1), (BB, BB), fill=-2.0))


@tc.kernel
def transposed_scratch(X, Y, BB: tc.constexpr = 4):
    M, N = Y.shape
    for pm, pn in tc.parallel(tc.cdiv(M, BB), tc.cdiv(N, BB)):
        s = tc.memory((BB, BB), tc.float32)
        s.tile((0, 0), (BB, BB)).store(X.tile((pn * BB, pm * BB), (BB, BB), fill=0.0))
        Y.tile((pm * BB, pn * BB), (BB, BB)).store(s.T.tile((1, 1), (BB, BB), fill=-3.0))


def _nested_windows_want(x: np.ndarray) -> np.ndarray:
    """Y[i, j] is X.T[i + 1, j + 1] where that lies in the outer window and in X.T."""
    xt = x.T
    y = np.full(xt.shape, -2.0, np.float32)  # the load's fill: the outer one is never read
    for i in range(xt.shape[0]):
        for j in range(xt.shape[1]):
            in_outer = (i + 1) % 4 != 3 and j % 4 != 3
            if in_outer and i + 1 < xt.shape[0] and j + 1 < xt.shape[1]:
                y[i, j] = xt[i + 1, j + 1]
    return y


def _scratch_want(x: np.ndarray) -> np.ndarray:
    """Y[i, j] is X.T[i + 1, j + 1] inside the 4x4 scratch block (0 past X), else -3."""
    xt = x.T
    y = np.full(xt.shape, -3.0, np.float32)
    for i in range(xt.shape[0]):
        for j in range(xt.shape[1]):
            if i % 4 != 3 and j % 4 != 3:
                inside = i + 1 < xt.shape[0] and j + 1 < xt.shape[1]
                y[i, j] = xt[i + 1, j + 1] if inside else 0.0
    return y


def test_windows_of_windows_and_scratch() -> None:
    x = _x2()
    _check(window_of_transposed_window, x, _nan((7, 5)), _nested_windows_want(x),
           ["cpu", *SIMULATED])
    _check(transposed_scratch, x, _nan((7, 5)), _scratch_want(x), ["cpu"])


# Hand-written chains: a total view that does leave its base (X has N = 10 elements; the
# view reaches 12), and a bounded window of it. Only elements the window reaches may fail.

OFFSET_CHAIN = """module {
  func @chain(%X: mem<Nxf32, global>, %Y: mem<4xf32, global>, %o: index, %N: index) -> ()
      {kernel = true, param_names = ["X", "Y", "o"], shape_bindings = [[0, 0]],
       shape_symbols = ["N"]} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb1(%p: index):
      %c4 = constant() {value = 4} : index
      %v = view(%X, %c4) {bounds = "total", map = #map<(d0)[s0] -> (d0 + s0)>} : mem<8xf32, global>
      %w = view(%v, %o) {bounds = "bounded", map = #map<(d0)[s0] -> (d0 + s0)>} : mem<4xf32, global>
      %t = load(%w) {fill = -1.0} : tile<4xf32>
      store(%Y, %t)
      yield()
    })
    return()
  }
}
"""

FLAT_CHAIN = """module {
  func @chain(%X: mem<Nxf32, global>, %Y: mem<2x2xf32, global>, %o0: index, %o1: index,
             %N: index) -> ()
      {kernel = true, param_names = ["X", "Y", "o0", "o1"], shape_bindings = [[0, 0]],
       shape_symbols = ["N"]} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb1(%p: index):
      %v = view(%X) {bounds = "total", map = #map<(d0, d1) -> (d0 * 4 + d1)>} : mem<3x4xf32, global>
      %w = view(%v, %o0, %o1) {bounds = "bounded",
                               map = #map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>}
        : mem<2x2xf32, global>
      %t = load(%w) {fill = -1.0} : tile<2x2xf32>
      store(%Y, %t)
      yield()
    })
    return()
  }
}
"""


def _both(text: str, shape: tuple[int, ...], *origin: int) -> list[Any]:
    """The result of the chain on cpu and on the reference, or the error class each raised."""
    module = ir.parse(text)
    out: list[Any] = []
    for make in (c_backend("cpu"), reference_backend("reference")):
        exe = make.compile(module, "chain")
        y = _nan(shape)
        try:
            exe(np.arange(10, dtype=np.float32), y, *(np.int64(o) for o in origin))
            out.append(y.tolist())
        except tc.KernelIndexError as e:
            out.append(("error", "leaves the view's base" in str(e)))
    return out


@pytest.mark.parametrize("origin,want", [
    (-3, [-1, -1, -1, 4]), (2, [6, 7, 8, 9]), (9, [-1, -1, -1, -1]),
    (4, ("error", True)), (6, ("error", True)),
])
def test_offset_chain_box_form(origin: int, want: Any) -> None:
    got_c, got_ref = _both(OFFSET_CHAIN, (4,), origin)
    assert got_ref == want
    assert got_c == want


@pytest.mark.parametrize("origin,want", [
    ((0, -1), [[-1, 0], [-1, 4]]), ((2, 4), [[-1, -1], [-1, -1]]),
    ((-2, 0), [[-1, -1], [-1, -1]]), ((2, 0), [[8, 9], [-1, -1]]),
    ((1, 2), ("error", True)), ((2, 1), ("error", True)),
])
def test_flattening_chain_element_form(origin: tuple[int, int], want: Any) -> None:
    got_c, got_ref = _both(FLAT_CHAIN, (2, 2), *origin)
    assert got_ref == want
    assert got_c == want
