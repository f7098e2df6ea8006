"""Launch-argument validation and the backend surface, without a GPU (fake device arrays)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_machine_ir import SAMPLES

import tilec.ir as ir
from tilec.targets.cuda.backend import CUDABackend, make_backend, probe
from tilec.targets.cuda.compiler import nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.cuda.runtime import (
    InteropError,
    as_device_array,
    bind_arguments,
    shape_bindings,
)


class FakeDeviceArray:
    """Just enough ``__cuda_array_interface__`` to be validated (never dereferenced)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str = "<f4",
                 strides: tuple[int, ...] | None = None, readonly: bool = False) -> None:
        self.__cuda_array_interface__ = {"data": (ptr, readonly), "shape": shape,
                                         "typestr": typestr, "strides": strides, "version": 3}


def _gemm():
    s = SAMPLES["gemm_mma_tf32"]
    m = s.module()
    fn = m.lookup(s.name)
    return emit_cuda(m, s.name), shape_bindings(fn)


def test_bind_builds_pointers_then_shape_symbols() -> None:
    src, binds = _gemm()
    a = FakeDeviceArray(0x10000, (33, 27))
    b = FakeDeviceArray(0x20000, (27, 20))
    c = FakeDeviceArray(0x30000, (33, 20))
    bound = bind_arguments(src.kernel, src.params, [a, b, c], binds)
    assert [int(v) for v in bound.values] == [0x10000, 0x20000, 0x30000, 33, 20, 27]
    assert bound.values[0].dtype == np.uint64 and bound.values[3].dtype == np.int64
    assert src.grid(bound.ints) == (3, 3)


@pytest.mark.parametrize("bad,match", [
    ((0x10000, (33, 27), "<f8"), "dtype f64; expected f32"),
    ((0x10000, (33,)), "rank 1"),
    ((0x10000, (33, 26)), "extent 27 but K = 26"),
    ((0x10000, (33, 27), "<f4", (4, 132)), "not C-contiguous"),
    ((0x10002, (33, 27)), "not aligned"),
])
def test_bad_arrays_are_refused_before_launch(bad, match: str) -> None:
    src, binds = _gemm()
    b = FakeDeviceArray(0x20000, (27, 20))
    c = FakeDeviceArray(0x30000, (33, 20))
    with pytest.raises(InteropError, match=match):
        bind_arguments(src.kernel, src.params, [FakeDeviceArray(*bad), b, c], binds)


def test_outputs_may_not_alias_or_be_read_only() -> None:
    src, binds = _gemm()
    a = FakeDeviceArray(0x10000, (33, 27))
    b = FakeDeviceArray(0x20000, (27, 20))
    c = FakeDeviceArray(0x10000 + 4 * 100, (33, 20))
    with pytest.raises(InteropError, match="overlaps argument 0"):
        bind_arguments(src.kernel, src.params, [a, b, c], binds)
    ro = FakeDeviceArray(0x30000, (33, 20), readonly=True)
    with pytest.raises(InteropError, match="read-only"):
        bind_arguments(src.kernel, src.params, [a, b, ro], binds)
    with pytest.raises(InteropError, match="takes 3 arguments"):
        bind_arguments(src.kernel, src.params, [a, b], binds)


def test_host_arrays_are_refused() -> None:
    with pytest.raises(InteropError, match="host memory"):
        as_device_array(np.zeros(4, np.float32), "x")
    with pytest.raises(InteropError, match="must be a device array"):
        as_device_array([1.0], "x")


def test_compile_only_backend_without_a_device() -> None:
    if probe() is None:
        pytest.skip("a CUDA device is present; this checks the compile-only path")
    why = nvrtc_available()
    if why is not None:
        pytest.skip(f"NVRTC unavailable: {why}")
    be = make_backend("cuda:sm_80")
    assert be.arch == "sm_80" and be.profile == "cuda:sm_80"
    s = SAMPLES["add_f32"]
    exe = be.compile(s.module(), s.name)
    assert exe.source.startswith("/* tilec CUDA backend: @add_f32")
    assert exe.resources.registers > 0 and exe.cubin.arch == "sm_80"
    with pytest.raises(RuntimeError, match="without a CUDA device"):
        exe(np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32))
    assert "cuda" in (probe() or "").lower() or "driver" in (probe() or "").lower()


def test_backend_names_and_lowering_requirement() -> None:
    with pytest.raises(ValueError, match="unknown CUDA target"):
        CUDABackend("cuda:sm_70")
    candidate = ir.parse("""module {
  func @k(%x: mem<4xf32, global>) -> () {kernel = true} {
    return()
  }
}""")
    with pytest.raises(ValueError, match="prints Machine TileIR; @k is candidate .*"
                                         "compile_module"):
        CUDABackend("cuda:sm_90").emit(candidate, "k")


def test_default_target_falls_back_without_a_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the registration lines of the report, ``cuda`` is the default only where it runs."""
    from tilec.runtime import targets

    info = targets.TargetInfo("cuda", "tilec.targets.cuda.backend", "make_backend", "probe",
                              "CUDA C++ through NVRTC (cuda-core)")
    monkeypatch.setitem(targets._REGISTRY, "cuda", info)
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    if probe() is None:
        assert targets.default_target() == "cuda"
    else:
        assert targets.default_target() != "cuda"
        assert targets.why_unavailable("cuda:sm_90") == probe()
    monkeypatch.setenv("TILEC_TARGET", "cuda:sm_80")
    assert targets.default_target() == "cuda:sm_80"


def _lowered_matmul_source():
    import ml_dtypes

    import tilec
    import tilec.lower as lower
    from tilec.lib.matmul import matmul

    a = np.empty((64, 64), ml_dtypes.bfloat16)
    c = np.empty((64, 64), np.float32)
    comp = tilec.compile(matmul, a, a, c, target="reference")
    m = lower.lower_to_machine(comp.module, "cuda:sm_90")
    fn = m.lookup(comp.fn_name)
    return emit_cuda(m, comp.fn_name), shape_bindings(fn)


def test_cp_async_sources_must_start_on_16_bytes() -> None:
    src, binds = _lowered_matmul_source()
    assert src.aligned16 == frozenset({0, 1})  # A and B are staged with cp.async; C is not
    good = [FakeDeviceArray(0x10000, (64, 64), "<u2"), FakeDeviceArray(0x20000, (64, 64), "<u2"),
            FakeDeviceArray(0x30004, (64, 64))]  # C only needs its element alignment
    # __cuda_array_interface__ cannot say bf16; bind through the facts the runtime reads.
    from dataclasses import replace

    from tilec.targets.cuda.runtime import BoundLaunch, DeviceArray, check_aligned16

    facts = [DeviceArray(int(x.__cuda_array_interface__["data"][0]), (64, 64), None, "bf16", 0,
                         False, "cai") for x in good]
    bound = BoundLaunch([], facts, [], 0, [])
    check_aligned16(src, bound)  # 16-byte aligned A and B, C at +4: accepted
    bad = replace(bound, arrays=[replace(facts[0], ptr=0x10002), *facts[1:]])
    with pytest.raises(InteropError, match=r"argument 0 \('A'\).*not 16-byte aligned"):
        check_aligned16(src, bad)


def test_kernels_without_async_copies_ask_for_no_extra_alignment() -> None:
    src, _ = _gemm()  # the hand-written tf32 sample stages with ordinary loads
    assert src.aligned16 == frozenset()
