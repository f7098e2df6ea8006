"""DSL element types (``tc.float32`` ...) and their mapping to TileIR and numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

import tilec.ir as ir

__all__ = ["DType", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint8", "uint16", "uint32", "bool_", "index", "DTYPES", "dtype_of_ir",
           "dtype_from_numpy", "numpy_dtype"]


class DType:
    """An element type usable in kernels: ``tc.float32``; called in a kernel it casts."""

    __slots__ = ("name", "ir")

    def __init__(self, name: str, scalar: ir.ScalarType) -> None:
        self.name = name
        """The DSL spelling, e.g. ``float32``."""
        self.ir = scalar
        """The TileIR scalar type."""

    @property
    def is_float(self) -> bool:
        """True for floating-point types."""
        return self.ir.is_float

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError(f"tc.{self.name}(...) casts values inside a @tc.kernel only")

    def __repr__(self) -> str:
        return f"tc.{self.name}"


float16 = DType("float16", ir.f16)
bfloat16 = DType("bfloat16", ir.bf16)
float32 = DType("float32", ir.f32)
float64 = DType("float64", ir.f64)
int8 = DType("int8", ir.i8)
int16 = DType("int16", ir.i16)
int32 = DType("int32", ir.i32)
int64 = DType("int64", ir.i64)
uint8 = DType("uint8", ir.u8)
uint16 = DType("uint16", ir.u16)
uint32 = DType("uint32", ir.u32)
bool_ = DType("bool_", ir.i1)
index = DType("index", ir.index)

DTYPES: dict[ir.ScalarType, DType] = {
    d.ir: d for d in (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8,
                      uint16, uint32, bool_, index)
}
"""The DSL type of every TileIR scalar type."""


def dtype_of_ir(t: ir.ScalarType) -> DType:
    """The DSL type for a TileIR scalar type."""
    return DTYPES[t]


_NUMPY_TO_IR: dict[str, ir.ScalarType] = {
    "float16": ir.f16, "bfloat16": ir.bf16, "float32": ir.f32, "float64": ir.f64,
    "int8": ir.i8, "int16": ir.i16, "int32": ir.i32, "int64": ir.i64, "bool": ir.i1,
    "uint8": ir.u8, "uint16": ir.u16, "uint32": ir.u32,
}


def dtype_from_numpy(dt: Any) -> ir.ScalarType | None:
    """The TileIR type of a numpy (or ``ml_dtypes``, or torch) dtype; None when unsupported."""
    if isinstance(dt, DType):
        return dt.ir
    if isinstance(dt, ir.ScalarType):
        return dt
    name = getattr(dt, "name", None)
    if name is None:
        try:
            name = np.dtype(dt).name
        except TypeError:
            name = str(dt)
    name = str(name).removeprefix("torch.")
    if name == "bool_":
        name = "bool"
    return _NUMPY_TO_IR.get(name)


def numpy_dtype(t: ir.ScalarType) -> np.dtype:
    """The numpy dtype that holds host arrays of ``t`` (bf16 through ``ml_dtypes``)."""
    if t is ir.bf16:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    if t is ir.index:
        return np.dtype(np.int64)
    if t is ir.i1:
        return np.dtype(np.bool_)
    return np.dtype({"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
                     "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
                     "u16": "uint16", "u32": "uint32"}[t.name])
