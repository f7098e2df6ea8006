"""What a kernel is specialized on: its source, its Python signature, its arguments' specs.

``Kernel`` (``jit``) reads a kernel's source and parameters once (``_parse``,
``_closure``, ``_params``: names, ``tc.constexpr`` annotations, scalar types,
``tc.tunable`` defaults) and describes each runtime argument of a call by what
the specialization key holds of it (``_spec_of`` -> ``_ArgSpec``: array or
scalar, element type, static or symbolic extents). ``ArraySpec`` (``tc.array``)
is an array argument given without data.

These are separate from ``jit`` because they only read Python objects (the
function, its annotations, the example arguments) and build nothing: the
caches, capture and compilation stay in ``jit``.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir import ArgumentError

from .builtins import constexpr
from .compiled import _dlpack_view
from .dtypes import DType, dtype_from_numpy
from .errors import SourceInfo, TileSyntaxError
from .tunables import Tunable

__all__ = ["ArraySpec", "array"]


@dataclass(frozen=True)
class ArraySpec:
    """An array argument described without data: extents (None: symbolic) and element type."""

    shape: tuple[int | None, ...]
    """One entry per axis: a static extent, or None for a symbolic one."""
    dtype: Any
    """The element type (a ``tc`` dtype or anything numpy understands)."""


def array(shape: Sequence[int | None], dtype: Any) -> ArraySpec:
    """An example argument for ``tc.compile`` without data: ``tc.array((None, 64), tc.float32)``."""
    return ArraySpec(tuple(shape), dtype)



# ---------------------------------------------------------------------- source


def _parse(fn: Callable[..., Any]) -> tuple[ast.FunctionDef, SourceInfo]:
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise TileSyntaxError(f"cannot read the source of {fn!r}: {e}") from None
    text = "".join(lines)
    first = next((ln for ln in lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip())
    tree = ast.parse(textwrap.dedent(text))
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if node is None:
        raise TileSyntaxError(f"{fn!r} is not defined by a def statement")
    filename = inspect.getsourcefile(fn) or "<unknown>"
    return node, SourceInfo(filename, start - 1, indent, tuple(lines))


def _closure(fn: Callable[..., Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass
    return out


# -------------------------------------------------------------- parameters


@dataclass(frozen=True)
class _Param:
    """One parameter of a kernel's Python signature, as ``_params`` read it."""

    name: str
    """The parameter's name."""
    constexpr: bool
    """Whether it is annotated ``tc.constexpr`` (passed by keyword, specialized on)."""
    default: Any
    """Its default (a ``Tunable`` for a tunable constexpr), ``_NO_DEFAULT`` when it has none."""
    dtype: ir.ScalarType | None
    """The scalar type its annotation names (``x: tc.float32``), else None."""


def _annotation(fn: Callable[..., Any], p: inspect.Parameter) -> Any:
    ann = p.annotation
    if isinstance(ann, str):
        try:
            ann = eval(ann, fn.__globals__, _closure(fn))  # noqa: S307 - the user's own code
        except Exception:
            return None
    return ann


def _params(fn: Callable[..., Any]) -> list[_Param]:
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            node, src = _parse(fn)
            bad = next((a for a in (node.args.vararg, node.args.kwarg, *node.args.kwonlyargs)
                        if a is not None and a.arg == p.name), node)
            raise TileSyntaxError.at(bad, f"kernel parameter {p.name}: *args, **kwargs and "
                                     f"keyword-only parameters are not supported", src)
        ann = _annotation(fn, p)
        if isinstance(p.default, Tunable) and ann is not constexpr:
            node, src = _parse(fn)
            bad = next((a for a in node.args.args if a.arg == p.name), node)
            raise TileSyntaxError.at(bad, f"kernel parameter {p.name}: tc.tunable() is the "
                                     f"default of a tc.constexpr parameter only", src)
        out.append(_Param(p.name, ann is constexpr,
                          p.default if p.default is not p.empty else _NO_DEFAULT,
                          ann.ir if isinstance(ann, DType) else None))
    return out


class _NoDefault:
    """The marker of a parameter without a default (``_NO_DEFAULT``)."""

    def __repr__(self) -> str:
        return "<required>"


_NO_DEFAULT = _NoDefault()


@dataclass(frozen=True)
class _ArgSpec:
    """What a kernel was specialized on for one runtime argument."""

    name: str
    """The parameter's name."""
    kind: str
    """``array`` or ``scalar``."""
    dtype: ir.ScalarType
    """The (element) type."""
    shape: tuple[int | None, ...] = ()
    """An array's extents: an integer where the shape is static, None where it is not
    (``static_shapes``); empty for a scalar."""

    def key(self) -> tuple:
        """What the specialization's cache key holds of this argument."""
        return (self.kind, self.dtype.name, self.shape)


def _spec_of(p: _Param, a: Any, static: bool) -> _ArgSpec:
    if isinstance(a, ArraySpec):
        t = dtype_from_numpy(a.dtype)
        if t is None:
            raise ArgumentError(f"argument {p.name}: unsupported element type {a.dtype!r}")
        return _ArgSpec(p.name, "array", t, tuple(a.shape))
    if isinstance(a, DType):
        return _ArgSpec(p.name, "scalar", a.ir)
    if isinstance(a, (bool, int, float, np.generic)):
        if p.dtype is not None:
            t = p.dtype
        elif isinstance(a, np.generic):
            t = dtype_from_numpy(a.dtype)
            if t is None:
                raise ArgumentError(f"argument {p.name}: unsupported scalar type {a.dtype}")
        else:
            t = ir.i1 if isinstance(a, bool) else ir.i32 if isinstance(a, int) else ir.f32
        return _ArgSpec(p.name, "scalar", t)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        t = dtype_from_numpy(a.dtype)
        if t is None:
            raise ArgumentError(f"argument {p.name}: arrays of {a.dtype} are not supported (use "
                                f"float16/bfloat16/float32/float64, int8..int64, "
                                f"uint8..uint32 or bool)")
        shape = tuple(int(e) for e in a.shape)
        return _ArgSpec(p.name, "array", t, shape if static else (None,) * len(shape))
    if hasattr(a, "__dlpack__"):  # a DLPack producer without numpy's shape and dtype
        return _spec_of(p, _dlpack_view(p.name, a), static)
    raise ArgumentError(f"argument {p.name}: expected an array or a scalar, got "
                    f"{type(a).__name__}")
