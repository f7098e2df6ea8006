"""The DSL surface: every name capture recognizes inside a ``@tc.kernel``.

Each builtin is a ``Builtin`` object; capture recognizes it by identity and
dispatches to its implementation (``tiles.py`` for values, ``capture.py`` for
control flow). Called outside a kernel, a builtin raises a ``TypeError``
saying so. The one-line summary of each is its documentation in
``docs/guide/dsl.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Builtin", "constexpr", "IMPLS", "implements", "SURFACE"]


class Builtin:
    """A DSL function recognized by capture; it has no meaning in plain Python."""

    def __init__(self, name: str, doc: str, control: bool = False) -> None:
        self.name = name
        """The name under ``tilec``."""
        self.__doc__ = doc
        self.control = control
        """True for constructs that shape control flow (loops, stages)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"tc.{self.name}(...) only has a meaning inside a @tc.kernel function")

    def __repr__(self) -> str:
        return f"tc.{self.name}"


class constexpr:
    """Annotation for compile-time kernel parameters: ``BM: tc.constexpr = 64``."""


IMPLS: dict[str, Callable[..., Any]] = {}
"""Builtin name -> implementation ``(capture, node, args, kwargs) -> value`` (see tiles.py)."""


def implements(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the implementation of builtins ``names``."""

    def deco(f: Callable[..., Any]) -> Callable[..., Any]:
        for n in names:
            IMPLS[n] = f
        return f

    return deco


_DOCS: dict[str, str] = {
    # structured execution (control=True)
    "parallel": "parallel(*extents, threads=None, level='grid'): independent instances",
    "serial": "serial(n, *, unroll=None) / serial(lo, hi, step=1, *, unroll=None): an ordered "
              "counted loop",
    "pipeline": "pipeline(n, *, stages=None, window=None) / pipeline(lo, hi, step=1, *, "
                "stages=None, window=None): staged loop",
    "stage": "stage(name=''): cut a pipeline body into the next stage (top level only)",
    "static_range": "static_range(n) / static_range(lo, hi, step=1): a loop unrolled at "
                    "compile time",
    "reduction": "reduction(x, axis, policy=None): a loop over elements whose body updates state",
    "update": "update(t, origin, patch): t with patch written at origin (in a parallel nest)",
    "static_assert": "static_assert(cond, msg=''): a compile-time check",
    # constructors
    "zeros": "zeros(shape, dtype=float32): a tile of zeros",
    "ones": "ones(shape, dtype=float32): a tile of ones",
    "full": "full(shape, value, dtype=None): a tile filled with value",
    "zeros_like": "zeros_like(x): zeros of x's shape and type",
    "full_like": "full_like(x, value): value in x's shape and type",
    "memory": "memory(shape, dtype, space='shared'): explicit addressable storage",
    "arange": "arange(stop) / arange(start, stop, step=1, dtype=int32): a rank-1 tile of "
              "start + i * step",
    # views
    "broadcast": "broadcast(x, shape): numpy broadcasting of a tile to shape",
    "broadcast_to": "broadcast_to(x, shape): same as broadcast",
    "reshape": "reshape(x, shape): row-major reshape of a tile",
    "trans": "trans(x): transpose of a rank-2 tile (x.T)",
    "permute": "permute(x, perm): axes permutation of a tile or memory",
    "expand_dims": "expand_dims(x, axis): insert a unit axis",
    # memory effects
    "load": "load(view, fill=None): snapshot a view into a tile",
    "store": "store(view, x): write a tile through a view (in-range elements only)",
    "atomic_add": "atomic_add(view, x): atomically add a tile into memory",
    "atomic_max": "atomic_max(view, x): atomic elementwise maximum into memory",
    "atomic_min": "atomic_min(view, x): atomic elementwise minimum into memory",
    "atomic_xchg": "atomic_xchg(view, x): atomically replace each element with x; the tile "
                   "of the old values",
    "atomic_cas": "atomic_cas(view, cmp, x): per element, store x where memory equals cmp "
                  "(bit for bit); the tile of the old values",
    "gather": "gather(x, indices, axis, fill=None): x at each element's coordinates with the "
              "one along axis read from indices (outside x: fill, default 0)",
    "scatter": "scatter(x, indices, axis, value): write value at each element's coordinates "
               "with the one along axis from indices (outside x: not written)",
    "scatter_add": "scatter_add(x, indices, axis, value): atomically add value at the "
                   "coordinates tc.scatter writes",
    # elementwise math
    "exp": "exp(x)", "exp2": "exp2(x)", "log": "log(x)", "log2": "log2(x)",
    "sqrt": "sqrt(x)", "rsqrt": "rsqrt(x): 1 / sqrt(x)", "tanh": "tanh(x)", "erf": "erf(x)",
    "sigmoid": "sigmoid(x): 1 / (1 + exp(-x))", "sin": "sin(x)", "cos": "cos(x)",
    "abs": "abs(x)", "floor": "floor(x)", "ceil": "ceil(x)",
    "maximum": "maximum(a, b): IEEE maximum (NaN-propagating)",
    "minimum": "minimum(a, b): IEEE minimum (NaN-propagating)",
    "where": "where(cond, a, b): select elementwise",
    "fma": "fma(a, b, c): a * b + c with one rounding",
    "cast": "cast(x, dtype): convert elementwise",
    "cdiv": "cdiv(a, b): ceiling division of integers",
    # reductions
    "sum": "sum(x, axis=None, dtype=None, keepdims=False, policy=None): add along axes",
    "max": "max(x, axis=None, keepdims=False, policy=None): IEEE maximum along axes",
    "min": "min(x, axis=None, keepdims=False, policy=None): IEEE minimum along axes",
    "prod": "prod(x, axis=None, keepdims=False, policy=None): product along axes",
    "argmax": "argmax(x, axis=None, keepdims=False): i32 position of the first maximum "
              "(a NaN counts as the maximum)",
    "argmin": "argmin(x, axis=None, keepdims=False): i32 position of the first minimum "
              "(a NaN counts as the minimum)",
    "reduce": "reduce(x, axis, init, combine, policy=None): a general reduction",
    "cumsum": "cumsum(x, axis=-1, dtype=None, policy=None): inclusive running sums along an "
              "axis",
    "cumprod": "cumprod(x, axis=-1, dtype=None, policy=None): inclusive running products "
               "along an axis",
    "associative_scan": "associative_scan(fn, x, axis=-1, policy=None): the inclusive scan "
                        "of x with the combine fn(a, b)",
    # matrix
    "mma": "mma(a, b, c, precision='exact', order=None): c + a @ b",
    "dot": "dot(a, b, precision='exact', acc_dtype=None): a @ b from a zero accumulator",
    "einsum": "einsum(spec, *tiles, policy=None): reindex + multiply + reduce",
}

SURFACE: dict[str, Builtin] = {
    name: Builtin(name, doc, control=name in ("parallel", "serial", "pipeline", "stage",
                                              "static_range", "reduction", "update",
                                              "static_assert"))
    for name, doc in _DOCS.items()
}
"""Every builtin by name (re-exported from ``tilec``)."""

globals().update(SURFACE)
__all__ += list(SURFACE)
