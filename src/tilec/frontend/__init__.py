"""The Python front end: the DSL surface, AST capture into Candidate TileIR, and the JIT.

Import the public names from ``tilec``; this package is their implementation.
"""

from . import (  # noqa: F401  (register the builtins)
    coordinates,
    indexed,
    matrix,
    reductions,
    scans,
    tiles,
    value_builtins,
    views,
)
from .builtins import SURFACE, Builtin, constexpr
from .dtypes import (
    DType,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    index,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
)
from .errors import TileSyntaxError
from .jit import (
    Compiled,
    DeviceFunction,
    Kernel,
    compile,
    func,
    interpret,
    kernel,
)
from .signature import ArraySpec, array
from .tunables import Resolution, Tunable, tunable

globals().update(SURFACE)

__all__ = ["TileSyntaxError", "kernel", "func", "compile", "interpret", "Kernel", "DeviceFunction",
           "Compiled", "ArraySpec", "array", "constexpr", "tunable", "Tunable", "Resolution",
           "Builtin", "DType", "float16",
           "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "bool_", "index", *SURFACE]
