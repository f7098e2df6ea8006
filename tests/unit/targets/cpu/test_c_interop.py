"""Array interop and pre-launch validation: every bad argument fails before the kernel runs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from cir import KB, mem, tile

import tilec.ir as ir
from paths import HostTensor
from tilec.targets.cpu.interop import InteropError, as_host_array, scalar_value


def _axpy() -> KB:
    """``Y[i] = a * X[i] + Y[i]`` over ``N`` in tiles of 8 (Y is read and written)."""
    kb = KB("axpy", [("X", mem(("N",))), ("a", ir.f32), ("Y", mem(("N",)))], ("N",))
    x_, a_, y_, n = kb.args
    c8 = kb.idx(8)

    def prog(p):
        o = kb.arith("mul", p, c8)
        x = kb.load(kb.view(x_, [o], (8,)), fill=0.0)
        vy = kb.view(y_, [o], (8,))
        y = kb.load(vy, fill=0.0)
        (r,) = kb.map((8,), [x, a_, y], lambda xi, a, yi: [kb.arith("add", kb.arith("mul", a, xi),
                                                                       yi)])
        kb.store(vy, r)
        return []

    kb.parallel([kb.arith("cdiv", n, c8)], prog)
    kb.ret()
    return kb


def _matmul_shapes() -> KB:
    kb = KB("mm", [("A", mem(("M", "K"))), ("B", mem(("K", "N"))), ("C", mem(("M", "N")))],
            ("M", "N", "K"))
    a_, b_, c_, *_ = kb.args

    def prog(_p):
        kb.store(kb.view(c_, [kb.idx(0), kb.idx(0)], (4, 4), bounds="bounded"),
                 kb.mma(kb.load(kb.view(a_, [kb.idx(0), kb.idx(0)], (4, 4), "bounded"), 0.0),
                        kb.load(kb.view(b_, [kb.idx(0), kb.idx(0)], (4, 4), "bounded"), 0.0),
                        kb.const(0.0, tile((4, 4)))))
        return []

    kb.parallel([kb.idx(1)], prog)
    kb.ret()
    return kb


@pytest.fixture(scope="module")
def axpy():
    """The compiled axpy kernel."""
    return _axpy().c()


def test_numpy_arguments_are_written_in_place(axpy) -> None:
    x = np.arange(20, dtype=np.float32)
    y = np.ones(20, np.float32)
    axpy(x, 2.0, y)
    assert (y == 2 * x + 1).all()


def test_argument_count(axpy) -> None:
    with pytest.raises(InteropError, match="takes 2 arguments|takes 3 arguments"):
        axpy(np.zeros(3, np.float32), 1.0)


def test_rank_dtype_and_contiguity_errors(axpy) -> None:
    y = np.zeros(8, np.float32)
    with pytest.raises(InteropError, match="rank 2"):
        axpy(np.zeros((2, 4), np.float32), 1.0, y)
    with pytest.raises(InteropError, match="dtype float64; expected float32"):
        axpy(np.zeros(8), 1.0, y)
    with pytest.raises(InteropError, match="not C-contiguous"):
        axpy(np.zeros(16, np.float32)[::2], 1.0, y)
    buf = np.zeros(8 * 4 + 1, np.uint8)
    unaligned = buf[1:].view(np.float32)
    with pytest.raises(InteropError, match="not aligned"):
        axpy(unaligned, 1.0, y)


def test_symbolic_extents_must_agree(axpy) -> None:
    with pytest.raises(InteropError, match="N = 8"):
        axpy(np.zeros(8, np.float32), 1.0, np.zeros(9, np.float32))
    mm = _matmul_shapes().c()
    with pytest.raises(InteropError, match="K"):
        mm(np.zeros((4, 5), np.float32), np.zeros((6, 4), np.float32),
           np.zeros((4, 4), np.float32))


def test_static_extents_are_checked() -> None:
    kb = KB("st", [("X", mem((4, 3)))])
    kb.parallel([kb.idx(1)], lambda _p: [])
    kb.ret()
    with pytest.raises(InteropError, match="axis 1 must be 3"):
        kb.c()(np.zeros((4, 4), np.float32))


def test_read_only_output_is_rejected(axpy) -> None:
    y = np.zeros(8, np.float32)
    y.flags.writeable = False
    with pytest.raises(InteropError, match="read-only"):
        axpy(np.zeros(8, np.float32), 1.0, y)
    x = np.zeros(8, np.float32)
    x.flags.writeable = False  # an input may be read-only
    axpy(x, 1.0, np.zeros(8, np.float32))


def test_output_aliasing_an_input_is_rejected(axpy) -> None:
    buf = np.zeros(16, np.float32)
    with pytest.raises(InteropError, match="overlaps argument 0"):
        axpy(buf, 1.0, buf)
    with pytest.raises(InteropError, match="overlaps"):
        axpy(buf[4:12], 1.0, buf[0:8])
    axpy(buf[0:8], 1.0, buf[8:16])  # disjoint parts of one buffer are fine


def test_dlpack_host_objects_are_viewed_without_copy(axpy) -> None:
    x = np.arange(10, dtype=np.float32)
    y = np.zeros(10, np.float32)
    axpy(HostTensor(x), 3.0, HostTensor(y))
    assert (y == 3 * x).all()


def test_dlpack_device_mismatch_is_rejected(axpy) -> None:
    with pytest.raises(InteropError, match="cuda:1.*host memory"):
        axpy(HostTensor(np.zeros(8, np.float32), (2, 1)), 1.0, np.zeros(8, np.float32))


def test_non_arrays_are_rejected(axpy) -> None:
    with pytest.raises(InteropError, match="must be an array"):
        axpy([1.0, 2.0], 1.0, np.zeros(2, np.float32))


def test_torch_tensors_when_available() -> None:
    torch = pytest.importorskip("torch")
    exe = _axpy().c()
    x = torch.arange(12, dtype=torch.float32)
    y = torch.zeros(12, dtype=torch.float32)
    exe(x, 2.0, y)
    assert torch.equal(y, 2 * x)
    b = as_host_array(torch.ones(3, dtype=torch.bfloat16), "t")
    assert b.dtype == np.dtype(ml_dtypes.bfloat16) and (b.astype(np.float32) == 1).all()


def test_scalar_conversion_rules() -> None:
    assert scalar_value(0.1, ir.f32, "a").value == float(np.float32(0.1))
    assert scalar_value(np.float64(1 + 2.0**-9), ir.bf16, "a").value == 1.0
    assert scalar_value(3.0, ir.i32, "k").value == 3
    assert scalar_value(True, ir.i1, "b").value == 1
    with pytest.raises(InteropError, match="not an integer"):
        scalar_value(2.5, ir.i32, "k")
    with pytest.raises(InteropError, match="does not fit"):
        scalar_value(300, ir.i8, "k")
    with pytest.raises(InteropError, match="real number"):
        scalar_value("x", ir.f32, "a")
    with pytest.raises(InteropError, match="not a boolean"):
        scalar_value(2, ir.i1, "b")


def test_empty_arrays_launch(axpy) -> None:
    axpy(np.zeros(0, np.float32), 1.0, np.zeros(0, np.float32))


def test_a_bound_call_reads_each_address_through_the_buffer_or_ctypes(axpy) -> None:
    """The fast path's addresses (``data_address``: the buffer protocol for writable arrays,
    ``ctypes`` for read-only ones) are those numpy reports, and a repeated call with a
    read-only input or an offset view still computes the right values."""
    from tilec.targets.cpu.runtime import data_address

    a = np.arange(24, dtype=np.float32)
    ro = a.copy()
    ro.flags.writeable = False
    for x in (a, ro, a[4:], ro[8:]):
        assert data_address(x) == x.ctypes.data
    y = np.ones(20, np.float32)
    axpy(a[4:], 2.0, y)
    made = axpy.bindings_made
    y[:] = 1
    axpy(ro[4:], 2.0, y)  # same signature, read-only input: bound before
    assert axpy.bindings_made == made and (y == 2 * a[4:] + 1).all()
    with pytest.raises(InteropError, match="read-only"):
        axpy(a[4:], 2.0, ro[4:])
