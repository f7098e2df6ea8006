"""Issue: a tile slice with a runtime start that left its tile was a different thing on every path.

``x[s * 8 + p * 8:s * 8 + p * 8 + 8]`` of a 16-element tile with ``s = 1``:
the reference raised an ``InterpretError`` (not a ``tc.UserError``), the cpu
target raised a ``KernelError`` only after its program had stored the slice
(NaN), and the simulators (so the GPU too) stored NaN without any error.
Composing views also lost the bound of an inner slice: ``x[s:s + 8][t:t + 4]``
read past the first slice, and a slice of a reshaped tile wrapped around
(``x.reshape(4, 4)[:, 3:5]`` read ``x[0]`` for ``x[16]``), on every path.

TileIR says a ``reindex`` without ``fill`` that reads outside its source is
an error (``docs/design/tileir.md``). Now every path raises
``tc.KernelIndexError`` (an ``IndexError``) at the slice's ``file:line``
with the axis, the extents and the offending start, before anything after
the slice is stored; a start that value ranges prove in range has no test.
An access leaving a ``bounds = "total"`` view (only hand-written IR makes
one that can) fails the same way. The GPU run is
``tests/device/test_cuda_out_of_range_slices.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from paths import (
    CUBIN_ARCHS,
    PATHS,
    FakeDeviceArray,
    cubin,
    cuda_source,
    fake_driver,
    launchable,
    needs_nvrtc,
    one_error,
    poisoned,
    raises,
    run,
    unwritten,
    where,
)
from tilec.lower import LoweringError, lower_to_machine
from tilec.targets.cpu.backend import make_backend as c_backend
from tilec.targets.reference.backend import make_backend as reference_backend
from tilec.targets.reference.simt import simulate_module


def _raises(path: str, kernel: Any, *args: Any, **constexprs: Any) -> tc.KernelIndexError:
    return raises(tc.KernelIndexError, path, kernel, *args, **constexprs)


# ---------------------------------------------------------------- the slice


@tc.kernel
def halves(X, Out, s):
    """The issue's kernel: program ``p`` stores ``x[8 * (s + p):8 * (s + p) + 8]``."""
    for p in tc.parallel(2):
        x = X.tile((0,), (16,))
        Out.tile((p * 8,), (8,)).store(x[s * 8 + p * 8: s * 8 + p * 8 + 8])


@pytest.mark.parametrize("target", PATHS)
def test_a_slice_past_the_tile_raises_at_the_slice_and_stores_nothing_after(target: str
                                                                             ) -> None:
    x = np.arange(16, dtype=np.float32)
    out = poisoned(16)
    e = _raises(target, halves, x, out, 1)  # program 1 starts at 16
    line, col = where(halves.fn, "x[s * 8 + p * 8")
    assert str(e).startswith(
        f"{__file__}:{line}:{col}: error: index out of range in @halves: a slice of extent 8 "
        "leaves axis 0 of the source tile, of extent 16 (start = 16)\n"), str(e)
    assert isinstance(e, IndexError) and isinstance(e, tc.UserError)
    assert (e.filename, e.lineno, e.kernel, e.values) == (__file__, line, "halves",
                                                           (("start", "16"),))
    np.testing.assert_array_equal(out[:8], x[8:])  # program 0 read inside the tile
    assert unwritten(out[8:]), out  # program 1 stored nothing


@pytest.mark.parametrize("target", PATHS)
def test_starts_inside_the_tile_read_the_slice(target: str) -> None:
    x = np.arange(16, dtype=np.float32) * 3 - 7
    out = poisoned(16)
    run(target, halves, x, out, 0)
    np.testing.assert_array_equal(out, x)
    out = poisoned(16)
    e = _raises(target, halves, x, out, -1)  # program 0 starts at -8
    assert "(start = -8)" in str(e)
    assert unwritten(out[:8])


def test_the_error_is_the_same_on_every_path() -> None:
    one_error(tc.KernelIndexError, halves, np.zeros(16, np.float32), poisoned(16), 1)


# ------------------------------------------------------------- indices, loops, 2-D


@tc.kernel
def pick(X, Out, i):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Out.tile((0,), (1,)).store(x[i])


@pytest.mark.parametrize("target", PATHS)
def test_a_runtime_index_outside_the_tile(target: str) -> None:
    x = np.arange(16, dtype=np.float32) + 1
    out = poisoned(1)
    run(target, pick, x, out, 5)
    assert out[0] == 6
    line, col = where(pick.fn, "x[i]")
    for i in (16, -1):  # a runtime index does not wrap like a Python one
        out = poisoned(1)
        e = _raises(target, pick, x, out, i)
        assert str(e).startswith(
            f"{__file__}:{line}:{col}: error: index out of range in @pick: an index is outside "
            f"axis 0 of the source tile, of extent 16 (index = {i})\n"), str(e)
        assert unwritten(out)


@tc.kernel
def steps(X, Out, n):
    """Program ``p`` step ``k`` stores ``x[4 * (k + p * n):4 * (k + p * n) + 4]``."""
    for p in tc.parallel(2):
        x = X.tile((p * 16,), (16,))
        for k in tc.serial(3):
            Out.tile((p, k * 4), (1, 4)).store(x[(k + p * n) * 4:(k + p * n) * 4 + 4][None, :])


@pytest.mark.parametrize("target", PATHS)
def test_a_loop_stops_at_the_step_that_leaves_the_tile(target: str) -> None:
    x = np.arange(32, dtype=np.float32)
    out = poisoned(2, 12)
    e = _raises(target, steps, x, out, 2)  # program 1 reads from 8, 12, then 16
    assert "(start = 16)" in str(e)
    np.testing.assert_array_equal(out[0], x[:12])
    np.testing.assert_array_equal(out[1, :8], x[24:32])
    assert unwritten(out[1, 8:]), "the failing step (or a later one) stored"
    out = poisoned(2, 12)
    run(target, steps, x, out, 1)
    np.testing.assert_array_equal(out, np.stack([x[:12], x[20:32]]))


@tc.kernel
def columns(X, Out, s):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8))
        Out.tile((0, 0), (4, 4)).store(x.T[s:s + 4])


@pytest.mark.parametrize("target", PATHS)
def test_a_slice_of_a_transposed_tile(target: str) -> None:
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = poisoned(4, 4)
    run(target, columns, x, out, 2)
    np.testing.assert_array_equal(out, x.T[2:6])
    out = poisoned(4, 4)
    e = _raises(target, columns, x, out, 6)
    assert "a slice of extent 4 leaves axis 1 of the source tile, of extent 8 (start = 6)" \
        in str(e)
    assert unwritten(out)


@tc.kernel
def rows(X, Out, s, BM: tc.constexpr = 64):
    """A 64 x 64 tile over 128 threads (a shared-memory repartition): rows ``s .. s + 15``."""
    M = X.shape[0]
    for pm in tc.parallel(tc.cdiv(M, BM), threads=128):
        x = X.tile((pm * BM, 0), (BM, 64), fill=0.0)
        Out.tile((pm * 16, 0), (16, 64)).store(x[s + pm:s + pm + 16, :] * 2.0)


@pytest.mark.parametrize("target", PATHS)
def test_a_group_of_several_subgroups_stops_together(target: str) -> None:
    x = np.arange(128 * 64, dtype=np.float32).reshape(128, 64) / 64
    out = poisoned(32, 64)
    run(target, rows, x, out, 40)
    np.testing.assert_array_equal(out, np.concatenate([x[40:56], x[64 + 41:64 + 57]]) * 2)
    out = poisoned(32, 64)
    e = _raises(target, rows, x, out, 48)  # program 1 reads rows 49 .. 64 of its 64
    assert "a slice of extent 16 leaves axis 0 of the source tile, of extent 64 (start = 49)" \
        in str(e)
    np.testing.assert_array_equal(out[:16], x[48:64] * 2)
    assert unwritten(out[16:])


# ------------------------------------------------- views composed with a runtime slice


@tc.kernel
def slice_of_slice(X, Out, s, t):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Out.tile((0,), (4,)).store(x[s:s + 8][t:t + 4])


@tc.kernel
def slice_of_reshape(X, Out, s):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Out.tile((0, 0), (4, 2)).store(x.reshape(4, 4)[:, s:s + 2])


@pytest.mark.parametrize("target", PATHS)
def test_a_slice_of_a_slice_keeps_the_inner_bound(target: str) -> None:
    x = np.arange(16, dtype=np.float32)
    out = poisoned(4)
    run(target, slice_of_slice, x, out, 4, 2)
    np.testing.assert_array_equal(out, x[6:10])
    out = poisoned(4)
    e = _raises(target, slice_of_slice, x, out, 0, 6)  # inside x, but past x[0:8]
    line, col = where(slice_of_slice.fn, "x[s:s + 8][t")
    assert str(e).startswith(f"{__file__}:{line}:{col}: error: index out of range in "
                             "@slice_of_slice: a slice of extent 4 leaves axis 0 of the source "
                             "tile, of extent 8 (start = 6)"), str(e)
    assert unwritten(out)


@pytest.mark.parametrize("target", PATHS)
def test_a_slice_of_a_reshaped_tile_does_not_wrap(target: str) -> None:
    x = np.arange(16, dtype=np.float32)
    out = poisoned(4, 2)
    run(target, slice_of_reshape, x, out, 1)
    np.testing.assert_array_equal(out, x.reshape(4, 4)[:, 1:3])
    out = poisoned(4, 2)
    e = _raises(target, slice_of_reshape, x, out, 3)  # column 4 of a 4 x 4 tile, not x[4]
    assert "a slice of extent 2 leaves axis 1 of the source tile, of extent 4 (start = 3)" \
        in str(e)
    assert unwritten(out)


# ----------------------------------------------------------------------- cost


@tc.kernel
def proven(X, Out):
    """Starts that value ranges keep inside the tile: a program and a loop counter."""
    for p in tc.parallel(2):
        x = X.tile((0,), (16,))
        for k in tc.serial(2):
            Out.tile((p * 8 + k * 4,), (4,)).store(x[p * 8 + k * 4:p * 8 + k * 4 + 4])


def test_starts_proven_in_range_cost_nothing() -> None:
    v = tc.array((None,), np.float32)
    c_src = tc.compile(proven, v, v, target="cpu").source
    assert "TC_ERR_REINDEX, " not in c_src.split("tilec_entry")[-1]
    cuda = cuda_source(proven, v, v)
    assert cuda.checks == [] and "tc_check" not in cuda.text  # launched asynchronously
    x = np.arange(16, dtype=np.float32)
    for target in PATHS:
        out = poisoned(16)
        run(target, proven, x, out)
        np.testing.assert_array_equal(out, x, err_msg=target)


def test_a_runtime_start_is_one_device_check_in_cuda() -> None:
    v = tc.array((None,), np.float32)
    src = cuda_source(halves, v, v, tc.int32)
    assert [(c.kind, c.labels) for c in src.checks] == [("index", ("start",))]
    assert "unsigned long long *__restrict__ tc_check)" in src.text
    c_src = tc.compile(halves, v, v, tc.int32, target="cpu").source
    assert c_src.split("tilec_entry")[-1].count("TC_ERR_REINDEX, ") == 1


@needs_nvrtc
@pytest.mark.parametrize("target,arch", CUBIN_ARCHS)
@pytest.mark.parametrize("case", ["halves", "pick", "steps", "columns", "rows",
                                  "slice_of_reshape"])
def test_checked_slices_compile_to_cubins(target: str, arch: str, case: str) -> None:
    v, m = tc.array((None,), np.float32), tc.array((None, None), np.float32)
    kernel, specs = {"halves": (halves, (v, v, tc.int32)), "pick": (pick, (v, v, tc.int32)),
                     "steps": (steps, (v, m, tc.int32)), "columns": (columns, (m, m, tc.int32)),
                     "rows": (rows, (m, m, tc.int32)),
                     "slice_of_reshape": (slice_of_reshape, (v, m, tc.int32))}[case]
    src = cuda_source(kernel, *specs, target=target)
    assert src.checks and all(c.kind == "index" for c in src.checks)
    cubin(src, arch)


def test_the_error_survives_pickling() -> None:
    import pickle

    e = _raises("reference", halves, np.zeros(16, np.float32), poisoned(16), 1)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is tc.KernelIndexError and str(back) == str(e)
    assert back.values == (("start", "16"),) and back.kernel == "halves"


@needs_nvrtc
def test_cuda_launcher_raises_a_recorded_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host side of a device slice check, with the driver faked: the launch is waited for,
    the record (check number, then the start) decodes to the reference's error, and it is
    cleared."""
    record = np.zeros(4, np.uint64)  # stands in for the device record
    # the kernel: s = 1 fails check 1 at 16
    fake_driver(monkeypatch, record, lambda args: [1, 16] if int(args[2]) == 1 else None)
    want = str(_raises("reference", halves, np.zeros(16, np.float32), poisoned(16), 1))
    v = tc.array((None,), np.float32)
    exe = launchable(halves, v, v, tc.int32)
    args = (FakeDeviceArray(0x10000, (16,)), FakeDeviceArray(0x20000, (16,)))
    with pytest.raises(tc.KernelIndexError) as info:
        exe(*args, 1)
    assert str(info.value) == want
    assert not record.any(), "the record was not cleared"
    exe(*args, 0)  # passes


# ------------------------------------------------------------------ written IR

def _run_module(target: str, text: str, *args: Any, fn: str = "tv") -> None:
    """Run function ``fn`` of a written module on ``target`` (``sim:`` ones lowered first)."""
    m = ir.parse(text)
    if target == "reference":
        reference_backend().compile(m, fn)(*args)
    elif target == "cpu":
        c_backend().compile(m, fn)(*args)
    else:
        simulate_module(lower_to_machine(m, target[4:]), fn, list(args))


_MIXED = """module {
  func @mx(%X: mem<16xf32, global>, %Out: mem<8xf32, global>, %o: i32) -> () {kernel = true} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb1(%p: index):
      %o1 = arith(%o) {fn = "cast"} : index
      %x = load(%X) : tile<16xf32>
      %r = reindex(%x, %o1) {map = #map<(d0)[s0] -> ((d0 + s0 floordiv 2))>} : tile<8xf32>
      store(%Out, %r)
      yield()
    })
    return()
  }
}"""
"""A reindex whose map divides a tile coordinate plus a runtime value: no DSL program makes
one (capture emits a reshaped tile before slicing it), and its span depends on the value."""


def test_a_written_reindex_that_mixes_coordinates_and_values() -> None:
    x = np.arange(16, dtype=np.float32)
    texts = set()
    for target in ("reference", "cpu"):
        out = poisoned(8)
        _run_module(target, _MIXED, x, out, 20, fn="mx")
        np.testing.assert_array_equal(out, x[10:14].repeat(2))
        out = poisoned(8)
        with pytest.raises(tc.KernelIndexError) as info:
            _run_module(target, _MIXED, x, out, -3, fn="mx")
        texts.add(str(info.value))
        assert unwritten(out)
    assert texts == {"error: index out of range in @mx: a read leaves axis 0 of the source "
                     "tile, of extent 16 (start = -2)"}
    for target in ("cuda:sm_90", "cuda:sm_80", "metal:m1"):  # no uniform test exists
        with pytest.raises(LoweringError, match=f"{target} cannot check this reindex without "
                           "fill: its map .* reads axis 0 through a floordiv/mod"):
            lower_to_machine(ir.parse(_MIXED), target)


_TOTAL = """module {
  func @tv(%X: mem<4x8xf32, global>, %Out: mem<8x4xf32, global>, %o: i32) -> () {kernel = true} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb1(%p: index):
      %o1 = arith(%o) {fn = "cast"} : index
      %t = view(%X, %o1) {bounds = "total", map = #map<(d0, d1)[s0] -> (d1, d0 + s0)>}
        : mem<8x4xf32, global>
      %out = view(%Out) {bounds = "bounded", map = #map<(d0, d1) -> (d0, d1)>}
        : mem<8x4xf32, global>
      %one = constant() {value = 1.0} : tile<8x4xf32>
      store(%out, %one)
      ACCESS
      yield()
    })
    return()
  }
}"""
"""Program 0 stores ones, then reads or writes through a transposed view of ``X`` shifted by
``o`` columns that is declared total (capture only makes total views that cannot leave)."""

_ACCESSES = {"load": "%w = load(%t) : tile<8x4xf32>\n      store(%out, %w)",
             "store": "%z = constant() {value = 0.0} : tile<8x4xf32>\n      store(%t, %z)"}


@pytest.mark.parametrize("access", sorted(_ACCESSES))
def test_an_access_leaving_a_total_view_fails_alike_before_it_happens(access: str) -> None:
    text = _TOTAL.replace("ACCESS", _ACCESSES[access])
    texts = set()
    x0 = np.arange(32, dtype=np.float32).reshape(4, 8)
    for target in PATHS:
        x, out = x0.copy(), poisoned(8, 4)
        _run_module(target, text, x, out, 0)
        if access == "load":
            np.testing.assert_array_equal(out, x0.T, err_msg=target)
        else:
            assert (x == 0).all(), target
        x, out = x0.copy(), poisoned(8, 4)
        with pytest.raises(tc.KernelIndexError) as info:
            _run_module(target, text, x, out, 6)  # reaches column 8 of 8
        texts.add(str(info.value))
        np.testing.assert_array_equal(out, np.ones((8, 4), np.float32), err_msg=target)
        np.testing.assert_array_equal(x, x0, err_msg=target)  # nothing written through it
    assert texts == {"error: index out of range in @tv: an access through a view with bounds "
                     "= \"total\" leaves the view's base"}


def test_gpus_refuse_a_total_view_they_cannot_check() -> None:
    """Cut by a bounded window, a total view's accesses are not its own: a GPU cannot check
    it before the access, so it is refused with the reason (the others check it)."""
    text = _TOTAL.replace("ACCESS", """%win = view(%t) {bounds = "bounded",
                          map = #map<(d0, d1) -> (d0, d1)>} : mem<8x4xf32, global>
      %w = load(%win) : tile<8x4xf32>
      store(%out, %w)""")
    for target in ("cuda:sm_90", "cuda:sm_80", "metal:m1"):
        with pytest.raises(LoweringError, match=f"{target} cannot check this view with bounds "
                           "= \"total\": its map .* is not proven to stay inside its base"):
            lower_to_machine(ir.parse(text), target)
    for target in ("reference", "cpu"):
        with pytest.raises(tc.KernelIndexError):
            _run_module(target, text, np.zeros((4, 8), np.float32), poisoned(8, 4), 6)


@tc.kernel
def transposed(X, Out):
    for _p in tc.parallel(1):
        Out.tile((0, 0), (8, 4)).store(tc.trans(X).tile((0, 0), (8, 4)))


def test_the_total_views_capture_makes_cost_nothing() -> None:
    m = tc.array((None, None), np.float32)
    src = cuda_source(transposed, m, m)
    assert src.checks == []
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    for target in PATHS:
        out = poisoned(8, 4)
        run(target, transposed, x, out)
        np.testing.assert_array_equal(out, x.T, err_msg=target)


# ------------------------------------------------- writes at a runtime origin (bounded)


@tc.kernel
def patches(X, Out, o):
    """Ancestor updates and a manual-memory window at a runtime origin ``o``: both bounded
    (tileir.md), so elements past the tile are dropped, alike on every path."""
    for _p in tc.parallel(1):
        acc = tc.zeros((16,))
        for i in tc.parallel(2, level="group"):
            acc = tc.update(acc, (i * 8 + o,), X.tile((i * 8,), (8,)))
        buf = tc.memory((16,), tc.float32)
        buf.tile((0,), (16,)).store(tc.zeros((16,)))
        buf.tile((o,), (8,)).store(X.tile((0,), (8,)))
        Out.tile((0,), (16,)).store(acc)
        Out.tile((16,), (16,)).store(buf.tile((0,), (16,)))


@pytest.mark.parametrize("o", [4, -4, 12])
def test_writes_at_a_runtime_origin_drop_what_leaves_alike(o: int) -> None:
    x = np.arange(16, dtype=np.float32) + 1
    acc, buf = np.zeros(16 + 24, np.float32), np.zeros(16 + 24, np.float32)
    acc[8 + o:8 + o + 16] = x  # the two patches, with 8 elements of margin on either side
    buf[8 + o:8 + o + 8] = x[:8]
    want = np.concatenate([acc[8:24], buf[8:24]])
    for target in PATHS:
        out = poisoned(32)
        run(target, patches, x, out, o)
        np.testing.assert_array_equal(out, want, err_msg=target)
