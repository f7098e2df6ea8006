"""TMA tensor maps: the encoding arguments, the driver call, the cache, the kernel ABI and the
launch binding, without a GPU (a fake driver)."""

from __future__ import annotations

import ctypes
import threading
import types
from typing import Any

import numpy as np
import pytest

import tilec.ir as ir
from tilec.targets.cuda.runtime import (
    CUDAExecutable,
    InteropError,
    LaunchError,
    bind_arguments,
    check_aligned16,
    make_plan,
)
from tilec.targets.cuda.source import CUDASource, HostStep, ParamInfo
from tilec.targets.cuda.tensor_maps import (
    TMAP_BYTES,
    ZERO_MAP,
    EncodeArgs,
    TensorMaps,
    encode,
    encode_args,
    guard_passes,
)

# ------------------------------------------------------------------ encode_args


def test_encode_args_2d_is_innermost_first() -> None:
    got = encode_args("bf16", (1000, 512), 2, 0x10000, (128, 64), 128)
    assert got == EncodeArgs("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 2, 0x10000, (512, 1000),
                             (1024,), (64, 128), (1, 1))
    assert got.swizzle == "CU_TENSOR_MAP_SWIZZLE_128B"
    assert got.interleave == "CU_TENSOR_MAP_INTERLEAVE_NONE"
    assert got.oob_fill == "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"
    assert got.l2_promotion == "CU_TENSOR_MAP_L2_PROMOTION_L2_128B"


def test_encode_args_3d_strides_and_box() -> None:
    got = encode_args("f16", (7, 300, 96), 2, 0x20000, (1, 128, 64), 128)
    assert not isinstance(got, str)
    assert got.rank == 3
    assert got.dims == (96, 300, 7)
    assert got.strides == (96 * 2, 300 * 96 * 2)
    assert got.box == (64, 128, 1)
    assert got.element_strides == (1, 1, 1)


@pytest.mark.parametrize("dtype,member", [
    ("bf16", "BFLOAT16"), ("f16", "FLOAT16"), ("f32", "FLOAT32"), ("f64", "FLOAT64"),
    ("i32", "INT32"), ("i64", "INT64"), ("i8", "UINT8"), ("i16", "UINT16"),
])
def test_encode_args_data_types(dtype: str, member: str) -> None:
    size = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "i8": 1, "i16": 2}
    got = encode_args(dtype, (64, 64), size[dtype], 0x10000, (8, 128 // size[dtype]), 128)
    assert not isinstance(got, str) and got.data_type == "CU_TENSOR_MAP_DATA_TYPE_" + member


def test_encode_args_1d() -> None:
    got = encode_args("bf16", (4096,), 2, 0x10000, (64,), 128)
    assert not isinstance(got, str)
    assert got.dims == (4096,) and got.strides == () and got.box == (64,)


@pytest.mark.parametrize("shape,itemsize,ptr,box,swizzle,match", [
    ((0, 64), 2, 0x10000, (8, 64), 128, "empty extent"),
    ((64, 0), 2, 0x10000, (8, 64), 128, "empty extent"),
    ((2, 2, 2, 2, 2, 64), 2, 0x10000, (1, 1, 1, 1, 1, 64), 128, "rank 6"),
    ((64, 60), 2, 0x10000, (8, 64), 128, "not a multiple of 16"),
    ((64, 64), 2, 0x10008, (8, 64), 128, "not 16-byte aligned"),
    ((2**32, 64), 2, 0x10000, (8, 64), 128, "not below 2\\*\\*32"),
    ((2**33, 64), 2, 0x10000, (8, 64), 128, "2\\*\\*32"),
    ((2, 2**31, 256), 2, 0x10000, (1, 8, 64), 128, "stride .* not below 2\\*\\*40"),
    ((512, 64), 2, 0x10000, (257, 64), 128, "outside 1..256"),
    ((512, 128), 2, 0x10000, (8, 128), 128, "above the 128-byte swizzle"),
    ((512, 64), 4, 0x10000, (8, 64), 128, "256 bytes, above the 128-byte swizzle"),
    ((512, 64), 2, 0x10000, (8, 4), 128, "8 bytes, not a multiple of 16"),
    ((512, 64), 2, 0x10000, (8,), 128, "1 extents for an array of rank 2"),
    ((512, 64), 2, 0x10000, (8, 64), 96, "swizzle 96"),
])
def test_encode_args_refusals(shape, itemsize, ptr, box, swizzle, match: str) -> None:
    dtype = {2: "bf16", 4: "f32"}[itemsize]
    got = encode_args(dtype, shape, itemsize, ptr, box, swizzle)
    assert isinstance(got, str)
    import re

    assert re.search(match, got), got


def test_encode_args_refuses_unknown_types() -> None:
    assert "no data type" in encode_args("c64", (64, 64), 8, 0x10000, (8, 8), 128)


def test_the_kernel_guard_mirrors_the_design() -> None:
    assert guard_passes((5, 8), 2) and guard_passes((1, 4), 4)
    assert not guard_passes((5, 7), 2)  # 14 bytes a row
    assert not guard_passes((0, 8), 2) and not guard_passes((5, 0), 2)


# ------------------------------------------------------------------ encode (fake driver)


class _Names:
    """An enum stand-in: each member is its name."""

    def __getattr__(self, name: str) -> str:
        return name


class FakeMap:
    """A ``CUtensorMap`` stand-in: 128 bytes at ``getPtr()``."""

    def __init__(self, data: bytes) -> None:
        self._buf = ctypes.create_string_buffer(data, TMAP_BYTES)

    def getPtr(self) -> int:  # noqa: N802 (cuda.bindings' name)
        return ctypes.addressof(self._buf)


class FakeDriver:
    """Records ``cuTensorMapEncodeTiled`` calls; the map's bytes derive from the address."""

    CUtensorMapDataType = _Names()
    CUtensorMapInterleave = _Names()
    CUtensorMapSwizzle = _Names()
    CUtensorMapL2promotion = _Names()
    CUtensorMapFloatOOBfill = _Names()

    def __init__(self, err: int = 0) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.err = err

    @staticmethod
    def cuuint64_t(v: int) -> tuple[str, int]:  # noqa: N802
        return ("u64", v)

    @staticmethod
    def cuuint32_t(v: int) -> tuple[str, int]:  # noqa: N802
        return ("u32", v)

    @staticmethod
    def map_bytes(ptr: int) -> bytes:
        return ptr.to_bytes(8, "little") * 16

    def cuTensorMapEncodeTiled(self, *args: Any) -> tuple[int, Any]:  # noqa: N802
        self.calls.append(args)
        return self.err, FakeMap(self.map_bytes(args[2]))


def test_encode_calls_the_driver_innermost_first() -> None:
    drv = FakeDriver()
    args = encode_args("bf16", (1000, 512), 2, 0x10000, (128, 64), 128)
    assert not isinstance(args, str)
    got = encode(drv, args)
    assert got == FakeDriver.map_bytes(0x10000) and len(got) == 128
    (call,) = drv.calls
    assert call == ("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 2, 0x10000,
                    [("u64", 512), ("u64", 1000)], [("u64", 1024)],
                    [("u32", 64), ("u32", 128)], [("u32", 1), ("u32", 1)],
                    "CU_TENSOR_MAP_INTERLEAVE_NONE", "CU_TENSOR_MAP_SWIZZLE_128B",
                    "CU_TENSOR_MAP_L2_PROMOTION_L2_128B", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE")


def test_encode_raises_the_driver_error() -> None:
    args = encode_args("bf16", (64, 64), 2, 0x10000, (64, 64), 128)
    assert not isinstance(args, str)
    with pytest.raises(LaunchError, match="cuTensorMapEncodeTiled.*failed: 1"):
        encode(FakeDriver(err=1), args, "k's map")


def test_encode_converts_for_the_driver_functions() -> None:
    """The enum members and integer wrappers exist on the driver functions (``cudriver``) as
    ``encode`` uses them, with the driver ABI's values (only the call itself is faked)."""
    from tilec.targets.cuda.cudriver import Driver, _TensorMap

    seen: list[tuple[Any, ...]] = []

    def fake(*a: Any) -> tuple[int, Any]:
        seen.append(a)
        return 0, _TensorMap()

    drv = types.SimpleNamespace(**{n: getattr(Driver, n) for n in (
        "CUtensorMapDataType", "CUtensorMapInterleave", "CUtensorMapSwizzle",
        "CUtensorMapL2promotion", "CUtensorMapFloatOOBfill", "cuuint64_t", "cuuint32_t")},
        cuTensorMapEncodeTiled=fake)
    for dtype, size in (("bf16", 2), ("f16", 2), ("f32", 4), ("f64", 8), ("i32", 4),
                        ("i64", 8), ("i8", 1), ("i16", 2), ("i1", 1)):
        args = encode_args(dtype, (64, 64), size, 0x10000, (8, 128 // size), 128)
        assert not isinstance(args, str)
        assert encode(drv, args) == bytes(128)  # a fresh map is zeros
    a = seen[0]
    assert a[0] == 9 and a[8] == 3  # BFLOAT16, SWIZZLE_128B
    assert [int(d) for d in a[3]] == [64, 64] and [int(s) for s in a[4]] == [128]


# ------------------------------------------------------------------ the cache


def _tmap(box: tuple[int, ...] = (64, 64), dtype: ir.ScalarType = ir.bf16,
          src: int = 0) -> ParamInfo:
    return ParamInfo("tmap", dtype, (), False, "A_tmap", (src, 0), box, 128)


def test_cache_hit_returns_the_same_bytes_without_the_driver() -> None:
    drv = FakeDriver()
    maps = TensorMaps(drv, "k")
    p = _tmap()
    first = maps.get(3, p, 0x10000, (256, 128))
    assert first == FakeDriver.map_bytes(0x10000) and len(drv.calls) == 1
    assert maps.get(3, p, 0x10000, (256, 128)) is first and len(drv.calls) == 1
    other = maps.get(3, p, 0x20000, (256, 128))  # a new address: encoded
    assert other == FakeDriver.map_bytes(0x20000) and len(drv.calls) == 2
    maps.get(3, p, 0x10000, (512, 128))  # a new shape: encoded
    maps.get(4, p, 0x10000, (256, 128))  # another parameter: encoded
    assert len(drv.calls) == 4 and maps.encoded == 4 and len(maps) == 4


def test_cache_is_bounded() -> None:
    drv = FakeDriver()
    maps = TensorMaps(drv, "k", capacity=3)
    p = _tmap()
    for i in range(5):
        maps.get(0, p, 0x10000 * (i + 1), (64, 64))
    assert len(maps) == 3 and len(drv.calls) == 5
    maps.get(0, p, 0x50000, (64, 64))  # the newest is kept
    assert len(drv.calls) == 5
    maps.get(0, p, 0x10000, (64, 64))  # the oldest was dropped
    assert len(drv.calls) == 6


def test_arrays_the_kernel_guard_rejects_get_zero_maps() -> None:
    drv = FakeDriver()
    maps = TensorMaps(drv, "k")
    p = _tmap()
    assert maps.get(0, p, 0x10000, (0, 64)) is ZERO_MAP
    assert maps.get(0, p, 0x10000, (64, 60)) is ZERO_MAP  # 120-byte rows
    assert maps.get(0, p, 0x10000, (64, 60)) is ZERO_MAP and not drv.calls


def test_arrays_the_guard_accepts_but_tma_cannot_map_are_errors() -> None:
    maps = TensorMaps(FakeDriver(), "k")
    with pytest.raises(LaunchError, match="box.*above the 128-byte swizzle"):
        maps.get(0, _tmap(box=(64, 128)), 0x10000, (64, 128))
    with pytest.raises(LaunchError, match="not 16-byte aligned"):
        maps.get(0, _tmap(), 0x10008, (64, 64))


# ------------------------------------------------------------------ the kernel ABI


def _source(with_tmaps: bool = True) -> CUDASource:
    params = [ParamInfo("mem", ir.f16, (ir.Dim(256), ir.Dim("K")), False, "A"),
              ParamInfo("scalar", ir.f32, (), False, "alpha"),
              ParamInfo("mem", ir.f16, (ir.Dim(256), ir.Dim(64)), True, "C"),
              ParamInfo("symbol", ir.index, (), False, "K")]
    if with_tmaps:
        params += [ParamInfo("tmap", ir.f16, (), False, "A_tmap", (0, 0), (128, 64), 128),
                   ParamInfo("tmap", ir.f16, (), False, "A_tmap1", (0, 0), (64, 64), 128)]
    return CUDASource("", None, "tilec_k", params, 128, 1,
                      [HostStep(0, "constant", (), 2)], [0], 0, 90, "a", name="k")


def test_param_info_json_round_trip() -> None:
    src = _source()
    d = src.launch_json()
    assert d["params"][4] == ["tmap", "f16", [], False, "A_tmap", [0, 0], [128, 64], 128]
    assert d["params"][0] == ["mem", "f16", [256, "K"], False, "A", [-1, -1]]  # as before
    back = CUDASource.from_launch_json(d)
    assert back is not None and back.params == src.params
    assert back.params[4].box == (128, 64) and back.params[4].swizzle == 128
    import json

    again = CUDASource.from_launch_json(json.loads(json.dumps(d)))
    assert again is not None and again.params == src.params


# ------------------------------------------------------------------ binding and the launch


class FakeDeviceArray:
    """Just enough ``__cuda_array_interface__`` to be validated (never dereferenced)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str = "<f2") -> None:
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape,
                                         "typestr": typestr, "strides": None, "version": 3}


class FakeLauncher:
    """The launcher's surface a plan uses; ``launch`` reads what the params array points at."""

    def __init__(self, src: CUDASource) -> None:
        self.source = src
        self.device = 0
        self.record = 0
        self.lock = threading.Lock()
        self.driver = FakeDriver()
        self.tensor_maps = TensorMaps(self.driver, src.kernel)
        self.seen: list[list[Any]] = []

    def config(self, ints: tuple[int, ...]) -> Any:
        return ((2, 1, 1), self.source.threads, self.source.shared_bytes)

    def stream(self, handle: int) -> Any:
        return handle

    def launch(self, config: Any, stream: Any, params: int, sync: bool | None = None) -> None:
        n = len(self.source.params)
        ptrs = (ctypes.c_void_p * (n + 1)).from_address(params)
        assert ptrs[n] is None
        got: list[Any] = []
        for k, p in enumerate(self.source.params):
            if p.kind == "tmap":
                assert ptrs[k] % 64 == 0
                got.append(ctypes.string_at(ptrs[k], TMAP_BYTES))
            elif p.kind == "scalar":
                got.append(ctypes.c_float.from_address(ptrs[k]).value)
            else:
                got.append(ctypes.c_uint64.from_address(ptrs[k]).value)
        self.seen.append(got)
        return None


def _launch(plan: Any, ptrs: list[int], values: list[Any]) -> None:
    CUDAExecutable._launch(types.SimpleNamespace(name="k"), plan, ptrs, values, 0, None, [])


def test_binding_leaves_tensor_maps_to_the_launch() -> None:
    src = _source()
    a, c = FakeDeviceArray(0x10000, (256, 512)), FakeDeviceArray(0x1000000, (256, 64))
    bound = bind_arguments(src.kernel, src.params, [a, 2.0, c], [(0, 1)])
    assert bound.values[4:] == [None, None] and bound.ints[4:] == [0, 0]
    assert [int(v) for v in bound.values[:4:3]] == [0x10000, 512]


def test_tensor_map_arrays_must_be_16_byte_aligned() -> None:
    src = _source()
    assert src.aligned16 == frozenset()  # the tensor map asks for it by itself
    a, c = FakeDeviceArray(0x10008, (256, 512)), FakeDeviceArray(0x1000000, (256, 64))
    bound = bind_arguments(src.kernel, src.params, [a, 2.0, c], [(0, 1)])
    with pytest.raises(InteropError, match=r"argument 0 \('A'\).*not 16-byte aligned"):
        check_aligned16(src, bound)
    check_aligned16(_source(False), bound)


def test_a_plan_passes_each_map_where_the_params_array_points() -> None:
    src = _source()
    a, c = FakeDeviceArray(0x10000, (256, 512)), FakeDeviceArray(0x1000000, (256, 64))
    bound = bind_arguments(src.kernel, src.params, [a, 2.0, c], [(0, 1)])
    launcher = FakeLauncher(src)
    plan = make_plan(launcher, bound, False)  # type: ignore[arg-type]
    assert plan.entry == [0, np.float32(2.0), 0, 512]  # user parameters and symbols only
    _launch(plan, [0x10000, 0, 0x1000000], [None, np.float32(2.0), None])
    drv = launcher.driver
    (got,) = launcher.seen
    assert got[:4] == [0x10000, 2.0, 0x1000000, 512]
    assert got[4] == got[5] == FakeDriver.map_bytes(0x10000)
    assert [call[5] for call in drv.calls] == [[("u32", 64), ("u32", 128)],
                                               [("u32", 64), ("u32", 64)]]
    assert drv.calls[0][3] == [("u64", 512), ("u64", 256)]
    # the same address again: nothing is encoded or looked up
    _launch(plan, [0x10000, 0, 0x1000000], [None, np.float32(3.0), None])
    assert len(drv.calls) == 2 and launcher.seen[1][4] == FakeDriver.map_bytes(0x10000)
    assert launcher.seen[1][1] == 3.0
    # a moved array: its maps are encoded for the new address
    _launch(plan, [0x2000000, 0, 0x1000000], [None, np.float32(3.0), None])
    assert len(drv.calls) == 4
    assert launcher.seen[2][0] == 0x2000000
    assert launcher.seen[2][4] == launcher.seen[2][5] == FakeDriver.map_bytes(0x2000000)
    # back to the first address: from the cache
    _launch(plan, [0x10000, 0, 0x1000000], [None, np.float32(3.0), None])
    assert len(drv.calls) == 4 and launcher.seen[3][4] == FakeDriver.map_bytes(0x10000)


def test_an_array_the_guard_rejects_passes_a_zero_map() -> None:
    src = _source()
    a, c = FakeDeviceArray(0x10000, (256, 60)), FakeDeviceArray(0x1000000, (256, 64))
    bound = bind_arguments(src.kernel, src.params, [a, 2.0, c], [(0, 1)])
    launcher = FakeLauncher(src)
    plan = make_plan(launcher, bound, False)  # type: ignore[arg-type]
    _launch(plan, [0x10000, 0, 0x1000000], [None, np.float32(2.0), None])
    assert launcher.seen[0][4] == launcher.seen[0][5] == ZERO_MAP
    assert not launcher.driver.calls


def test_encode_args_nan_fill_for_unfilled_float_windows() -> None:
    got = encode_args("bf16", (1000, 512), 2, 0x10000, (128, 64), 128, oob_nan=True)
    assert isinstance(got, EncodeArgs)
    assert got.oob_fill == "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA"
    plain = encode_args("bf16", (1000, 512), 2, 0x10000, (128, 64), 128)
    assert plain.oob_fill == "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"
    assert "needs a float type" in encode_args("i16", (64, 64), 2, 0x10000, (64, 64), 128,
                                               oob_nan=True)
