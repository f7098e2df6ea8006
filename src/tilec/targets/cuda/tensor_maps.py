"""TMA tensor maps: the ``tmap`` kernel parameters, encoded at launch from the bound arrays.

A ``ParamInfo(kind="tmap")`` names a user array (``source[0]``), the box one ``tma.load``
copies (``box``, one extent per array axis, outermost first) and the shared-memory swizzle
(``swizzle``, bytes). The kernel takes it as a ``const __grid_constant__ tc_tmap`` (128
bytes, 64-byte aligned); the launcher encodes it with ``cuTensorMapEncodeTiled`` from the
array's address and extents (``encode_args``, ``encode``) and keeps the maps it made
(``TensorMaps``, per parameter, address and shape).

The array is C-contiguous, so the driver is told (innermost first): the reversed extents,
the byte strides of axes ``rank-2 .. 0``, the reversed box, unit element strides, no
interleave, the swizzle, 128-byte L2 promotion and zero out-of-bounds fill (NaN where the
parameter says ``oob_nan``: the copies of a float window without a fill).

An array the kernel's own TMA guard rejects (an empty extent, or a last extent whose bytes
are not a multiple of 16: ``guard_passes``) gets an all-zero map: the kernel copies it with
``cp.async`` instead and never reads the map. An array the guard accepts but TMA cannot
describe (too many axes, an extent or stride beyond TMA's range, a box TMA refuses, an
unaligned address) is an error: the kernel would read the map.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tilec.targets.cuda.source import ParamInfo

__all__ = ["EncodeArgs", "encode_args", "encode", "guard_passes", "TensorMaps", "TMAP_BYTES",
           "ZERO_MAP", "DATA_TYPES"]

TMAP_BYTES = 128
"""Bytes of a ``CUtensorMap`` (the kernel parameter's size; its alignment is 64)."""

ZERO_MAP = bytes(TMAP_BYTES)
"""The map passed for an array the kernel's guard rejects (never read)."""

DATA_TYPES = {"bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
              "f16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
              "f32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32",
              "f64": "CU_TENSOR_MAP_DATA_TYPE_FLOAT64",
              "i1": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
              "i8": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
              "i16": "CU_TENSOR_MAP_DATA_TYPE_UINT16",
              "i32": "CU_TENSOR_MAP_DATA_TYPE_INT32",
              "i64": "CU_TENSOR_MAP_DATA_TYPE_INT64",
              "u8": "CU_TENSOR_MAP_DATA_TYPE_UINT8",
              "u16": "CU_TENSOR_MAP_DATA_TYPE_UINT16",
              "u32": "CU_TENSOR_MAP_DATA_TYPE_UINT32",
              "index": "CU_TENSOR_MAP_DATA_TYPE_INT64"}
"""The ``CUtensorMapDataType`` member of each TileIR element type (TMA copies bits: a
``bool``/``i8`` array is bytes, an ``f32`` one read as tf32 is ``FLOAT32``)."""

_ITEMSIZE = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4,
             "i64": 8, "u8": 1, "u16": 2, "u32": 4, "index": 8}

_SWIZZLES = {0: "CU_TENSOR_MAP_SWIZZLE_NONE", 32: "CU_TENSOR_MAP_SWIZZLE_32B",
             64: "CU_TENSOR_MAP_SWIZZLE_64B", 128: "CU_TENSOR_MAP_SWIZZLE_128B"}

_FLOATS = ("bf16", "f16", "f32", "f64")

_OOB_NAN = "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA"
"""The ``CUtensorMapFloatOOBfill`` member that reads elements outside the array as NaN."""

_MAX_RANK = 5
_MAX_BOX = 256


@dataclass(frozen=True)
class EncodeArgs:
    """What ``cuTensorMapEncodeTiled`` takes for one array, innermost axis first. The enums
    are member names (``encode`` looks them up on the driver module)."""

    data_type: str
    """``CUtensorMapDataType`` member."""
    rank: int
    """Number of axes (1..5)."""
    ptr: int
    """The array's base address (16-byte aligned)."""
    dims: tuple[int, ...]
    """Extents, innermost first (the reversed shape)."""
    strides: tuple[int, ...]
    """Byte strides of axes 1..rank-1, innermost first (``rank - 1`` entries)."""
    box: tuple[int, ...]
    """Box extents, innermost first (the reversed box)."""
    element_strides: tuple[int, ...]
    """Traversal steps per axis (all 1)."""
    interleave: str = "CU_TENSOR_MAP_INTERLEAVE_NONE"
    """``CUtensorMapInterleave`` member."""
    swizzle: str = "CU_TENSOR_MAP_SWIZZLE_128B"
    """``CUtensorMapSwizzle`` member."""
    l2_promotion: str = "CU_TENSOR_MAP_L2_PROMOTION_L2_128B"
    """``CUtensorMapL2promotion`` member."""
    oob_fill: str = "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"
    """``CUtensorMapFloatOOBfill`` member (``NONE``: zeros outside the array;
    ``NAN_REQUEST_ZERO_FMA``: NaN)."""


def guard_passes(shape: Sequence[int], itemsize: int) -> bool:
    """The kernel's TMA guard (``docs/design/hopper.md``): every extent positive and the last
    one's bytes a multiple of 16. When it fails the kernel never reads the map."""
    return bool(shape) and all(e > 0 for e in shape) and (shape[-1] * itemsize) % 16 == 0


def encode_args(dtype_name: str, shape: Sequence[int], itemsize: int, ptr: int,
                box: Sequence[int], swizzle: int, oob_nan: bool = False) -> EncodeArgs | str:
    """The ``cuTensorMapEncodeTiled`` arguments of a C-contiguous array of ``shape``
    (``itemsize``-byte ``dtype_name`` elements at ``ptr``) copied in boxes ``box`` (one
    extent per axis, outermost first) into a ``swizzle``-byte swizzled buffer, elements
    outside the array read as NaN with ``oob_nan`` (a float type), else zero; a string
    saying why when TMA cannot describe it."""
    shape = tuple(int(e) for e in shape)
    box = tuple(int(b) for b in box)
    rank = len(shape)
    data_type = DATA_TYPES.get(dtype_name)
    if data_type is None:
        return f"TMA has no data type for {dtype_name}"
    if swizzle not in _SWIZZLES:
        return f"swizzle {swizzle} is not one of {sorted(_SWIZZLES)} bytes"
    if not 1 <= rank <= _MAX_RANK:
        return f"rank {rank} is outside TMA's 1..{_MAX_RANK}"
    if len(box) != rank:
        return f"box {box} has {len(box)} extents for an array of rank {rank}"
    if 0 in shape or any(e < 0 for e in shape):
        return f"shape {shape} has an empty extent"
    if (shape[-1] * itemsize) % 16:
        return (f"the last extent {shape[-1]} is {shape[-1] * itemsize} bytes, not a multiple "
                "of 16")
    if ptr % 16:
        return f"address {ptr:#x} is not 16-byte aligned"
    big = [e for e in shape if e >= 2**32]
    if big:
        return f"extent {big[0]} is not below 2**32"
    strides: list[int] = []
    step = itemsize
    for e in reversed(shape[1:]):
        step *= e
        strides.append(step)
    if any(s >= 2**40 for s in strides):
        return f"stride {max(strides)} bytes is not below 2**40"
    if any(not 1 <= b <= _MAX_BOX for b in box):
        return f"box {box} has an extent outside 1..{_MAX_BOX}"
    inner = box[-1] * itemsize
    if inner % 16:
        return f"the box's inner extent {box[-1]} is {inner} bytes, not a multiple of 16"
    if swizzle and inner > swizzle:
        return f"the box's inner extent {box[-1]} is {inner} bytes, above the {swizzle}-byte " \
            "swizzle"
    if oob_nan and dtype_name not in _FLOATS:
        return f"a NaN fill outside the array needs a float type, not {dtype_name}"
    return EncodeArgs(data_type, rank, int(ptr), tuple(reversed(shape)), tuple(strides),
                      tuple(reversed(box)), (1,) * rank, swizzle=_SWIZZLES[swizzle],
                      oob_fill=_OOB_NAN if oob_nan else "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE")


def encode(driver: Any, args: EncodeArgs, what: str = "") -> bytes:
    """The 128 bytes of the ``CUtensorMap`` ``driver.cuTensorMapEncodeTiled`` makes of
    ``args`` (``driver``: ``cudriver.driver()``); ``LaunchError`` when it fails (``what``
    names the kernel parameter in the message)."""
    u64, u32 = driver.cuuint64_t, driver.cuuint32_t
    result = driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, args.data_type), args.rank, args.ptr,
        [u64(d) for d in args.dims], [u64(s) for s in args.strides],
        [u32(b) for b in args.box], [u32(s) for s in args.element_strides],
        getattr(driver.CUtensorMapInterleave, args.interleave),
        getattr(driver.CUtensorMapSwizzle, args.swizzle),
        getattr(driver.CUtensorMapL2promotion, args.l2_promotion),
        getattr(driver.CUtensorMapFloatOOBfill, args.oob_fill))
    err, tmap = result
    if int(err) != 0:
        from tilec.targets.cuda.launcher import LaunchError

        raise LaunchError(f"{what or 'a tensor map'}: cuTensorMapEncodeTiled(dims "
                          f"{args.dims}, strides {args.strides}, box {args.box}, "
                          f"{args.data_type}, {args.swizzle}) failed: {err}")
    data = ctypes.string_at(tmap.getPtr(), TMAP_BYTES)  # tmap is alive: it owns the bytes
    return data


class TensorMaps:
    """The tensor maps one loaded kernel was launched with, keyed by ``(parameter index,
    address, shape)``: a hit is a dict lookup returning the same ``bytes`` object. At most
    ``capacity`` maps are kept (the oldest is dropped first)."""

    def __init__(self, driver: Any, kernel: str = "", capacity: int = 256) -> None:
        self.driver = driver
        """The driver functions (``cudriver.driver()``, or a stand-in with
        ``cuTensorMapEncodeTiled``)."""
        self.kernel = kernel
        """The kernel's symbol (error messages)."""
        self.capacity = capacity
        """The most maps kept."""
        self._maps: dict[tuple[int, int, tuple[int, ...]], bytes] = {}
        self.encoded = 0
        """How many maps were encoded by the driver (cache misses of TMA-legal arrays)."""

    def __len__(self) -> int:
        return len(self._maps)

    def get(self, index: int, param: ParamInfo, ptr: int, shape: tuple[int, ...]) -> bytes:
        """The 128 bytes of kernel parameter ``index`` (``param``, a ``tmap``) for the array
        at ``ptr`` of extents ``shape``: ``ZERO_MAP`` when the kernel's guard rejects the
        array; ``LaunchError`` when the guard accepts it but TMA cannot describe it, or the
        driver fails."""
        key = (index, ptr, shape)
        got = self._maps.get(key)
        if got is not None:
            return got
        got = self._make(index, param, ptr, shape)
        if len(self._maps) >= self.capacity:
            self._maps.pop(next(iter(self._maps)))
        self._maps[key] = got
        return got

    def _make(self, index: int, param: ParamInfo, ptr: int, shape: tuple[int, ...]) -> bytes:
        name = param.dtype.name
        itemsize = _ITEMSIZE.get(name, 0)
        if not guard_passes(shape, itemsize):
            return ZERO_MAP
        what = f"{self.kernel or 'the kernel'}'s tensor map {index} ({param.name or '?'})"
        args = encode_args(name, shape, itemsize, ptr, param.box, param.swizzle,
                           param.oob_nan)
        if isinstance(args, str):
            from tilec.targets.cuda.launcher import LaunchError

            raise LaunchError(f"{what}: the array of shape {shape} at {ptr:#x} cannot be "
                              f"copied by TMA in boxes {tuple(param.box)}: {args}")
        self.encoded += 1
        return encode(self.driver, args, what)
