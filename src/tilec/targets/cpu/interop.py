"""Array interop and pre-launch validation for the CPU target.

Accepted arrays: ``numpy.ndarray`` and any object with ``__dlpack__`` whose
``__dlpack_device__`` is host memory (torch or cupy host tensors...), viewed
without a copy through ``np.from_dlpack`` (torch ``bfloat16`` through an
``int16`` view, since numpy has no DLPack code for it). Nothing is ever copied
or converted implicitly: a kernel writes its outputs in place, so a silent
copy would lose them.

Every check runs before the kernel starts and fails with a message that
names the argument: rank, dtype, static extents, consistency of symbolic
extents, C-contiguity, alignment, device, writability of outputs, and
aliasing (an output overlapping any other array argument, ``np.shares_memory``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

import tilec.ir as ir
from tilec.targets import interop_checks as checks
from tilec.targets.cpu.source import ParamInfo
from tilec.targets.interop_checks import InteropError, as_host_array, shape_bindings

__all__ = ["InteropError", "NP_DTYPES", "CTYPES", "as_host_array", "scalar_value", "Binding",
           "bind_arguments", "shape_bindings"]


NP_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64), "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32), "index": np.dtype(np.int64),
}
"""The numpy dtype of each TileIR scalar type."""

CTYPES: dict[str, type] = {
    "f16": ctypes.c_float, "bf16": ctypes.c_float, "f32": ctypes.c_float,
    "f64": ctypes.c_double, "i1": ctypes.c_uint8, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32, "index": ctypes.c_int64,
}
"""The ctypes type a scalar parameter is passed as (narrow floats as their f32 value)."""

def scalar_value(x: Any, t: ir.ScalarType, what: str) -> Any:
    """A Python/numpy number as the ctypes value of a scalar parameter of type ``t``."""
    return CTYPES[t.name](checks.checked_number(x, t, what))


@dataclass
class Binding:
    """Launch arguments after validation."""

    arrays: list[np.ndarray | None]
    """Per user parameter: the array (None for scalars)."""
    keep: list[Any]
    """ctypes objects that must outlive the call."""
    args: Any
    """The ``void *[]`` of entry arguments."""
    dims: Any
    """The ``int64_t[]`` of runtime extents."""


def bind_arguments(fn_name: str, params: Sequence[ParamInfo], user_args: Sequence[Any],
                   bindings: Sequence[tuple[int, int]], dim_slots: Sequence[tuple[int, int]],
                   label: str | None = None) -> Binding:
    """Validate ``user_args`` against the entry parameters and build the C argument arrays.

    ``label`` names the kernel in the aliasing error (``interop_checks.kernel_label``, as
    on every target); by default ``@fn_name``."""
    user = [p for p in params if p.kind != "symbol"]
    checks.check_count(f"@{fn_name}", user, user_args)
    arrays: list[np.ndarray | None] = []
    keep: list[Any] = []
    for i, (p, x) in enumerate(zip(user, user_args)):
        what = f"argument {i} ('{p.name}') of @{fn_name}"
        if p.kind == "scalar":
            arrays.append(None)
            keep.append(scalar_value(x, p.dtype, what))
            continue
        a = as_host_array(x, what)
        if p.kind == "tile":  # a value: the kernel reads a private contiguous copy
            _check_array(np.ascontiguousarray(a), p, what)
            a = np.ascontiguousarray(a).copy()
        else:
            _check_array(a, p, what)
        arrays.append(a)
        keep.append(None)
    sym_values = []
    for (pi, axis) in bindings:
        a = arrays[pi]
        assert a is not None
        sym_values.append(int(a.shape[axis]))
    sym_names = [p.name for p in params[len(user):]]
    by_name = dict(zip(sym_names, sym_values))
    shapes = [None if a is None else a.shape for a in arrays]
    checks.check_symbol_extents(f"@{fn_name}", user, shapes, by_name)
    checks.check_aliasing(label or f"@{fn_name}", user,
                          [None if p.kind == "tile" else a for p, a in zip(user, arrays)])
    n = len(params)
    args = (ctypes.c_void_p * max(n, 1))()
    for i, (a, k) in enumerate(zip(arrays, keep)):
        if a is not None:
            args[i] = a.ctypes.data if a.size else None
        else:
            args[i] = ctypes.cast(ctypes.pointer(k), ctypes.c_void_p)
    for j, v in enumerate(sym_values):
        cv = ctypes.c_int64(v)
        keep.append(cv)
        args[len(user) + j] = ctypes.cast(ctypes.pointer(cv), ctypes.c_void_p)
    dims = (ctypes.c_int64 * max(len(dim_slots), 1))()
    for k, (pi, axis) in enumerate(dim_slots):
        a = arrays[pi]
        assert a is not None
        dims[k] = int(a.shape[axis])
    return Binding(arrays, keep, args, dims)


def _check_array(a: np.ndarray, p: ParamInfo, what: str) -> None:
    want = NP_DTYPES[p.dtype.name]
    checks.check_rank(what, a.shape, p)
    if a.dtype != want:
        raise InteropError(f"{what} has dtype {a.dtype}; expected {want} ({p.dtype}); "
                           "convert it first (no implicit copies: outputs are written in place)")
    checks.check_static_extents(what, a.shape, p)
    if not a.flags.c_contiguous:
        raise InteropError(f"{what} is not C-contiguous (strides {a.strides}); the kernel "
                           "takes row-major contiguous arrays (np.ascontiguousarray makes one)")
    if not a.flags.aligned:
        raise InteropError(f"{what} is not aligned to its element size")
    checks.check_writable(what, a.shape, p, not a.flags.writeable, a.ctypes.data != 0)

