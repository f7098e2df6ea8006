"""Argument checks shared by the CPU and CUDA launchers (and, for aliasing, by the reference
interpreter, the simulator and the Metal host).

Both targets take arrays without copying them (a kernel writes its outputs in
place), so each argument is validated before the launch with a message that
names it. What the targets check alike lives here: the argument count, the
shape-symbol bindings, rank, static extents, agreement of symbolic extents,
writability, the data pointer, the conversion of a Python number, and aliasing
(which the reference interpreter and the SIMT simulator check too, with the same
message: the oracles refuse what the contract forbids); dtype, layout, alignment
and device facts stay with each target's array wrapper.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import ml_dtypes
import numpy as np

import tilec.ir as ir
from tilec.targets.clike import round_float

__all__ = ["InteropError", "ArrayParam", "ParamFacts", "check_count", "shape_bindings",
           "check_rank", "check_static_extents", "check_writable", "check_symbol_extents",
           "number_value", "checked_number", "as_host_array", "written_parameters",
           "kernel_label", "overlaps", "check_aliasing", "call_param_facts",
           "check_call_aliasing"]


class InteropError(ir.ArgumentError):
    """An argument the kernel cannot take; raised before launch."""


class ArrayParam(Protocol):
    """What the checks read of a target's parameter record."""

    name: str
    """The parameter's name."""
    dtype: ir.ScalarType
    """Its element (or scalar) type."""
    shape: tuple[ir.Dim, ...]
    """Its extents (static or symbolic)."""
    written: bool
    """Whether the kernel writes it."""


@dataclass(frozen=True)
class ParamFacts:
    """An ``ArrayParam`` for a target without a parameter record of its own (the oracles)."""

    name: str
    """The parameter's name."""
    dtype: ir.ScalarType
    """Its element (or scalar) type."""
    shape: tuple[ir.Dim, ...]
    """Its extents (static or symbolic)."""
    written: bool
    """Whether the kernel writes it."""


def check_count(label: str, user: Sequence[ArrayParam], user_args: Sequence[Any]) -> None:
    """Raise unless one argument is given per user parameter of ``label`` (the kernel)."""
    if len(user_args) != len(user):
        names = ", ".join(p.name for p in user)
        raise InteropError(f"{label} takes {len(user)} arguments ({names}), "
                           f"got {len(user_args)}")


def shape_bindings(fn: ir.Function) -> list[tuple[int, int]]:
    """``(param, axis)`` giving each shape symbol's value: ``shape_bindings`` or inferred."""
    symbols = fn.shape_symbols
    given = fn.attributes.get("shape_bindings")
    if given is not None:
        pairs = [(int(p), int(a)) for p, a in given]
        if len(pairs) != len(symbols):
            raise InteropError(f"@{fn.name}: {len(symbols)} shape symbols but "
                               f"{len(pairs)} shape_bindings")
        return pairs
    out = []
    for name in symbols:
        for i, a in enumerate(fn.args[:len(fn.args) - len(symbols)]):
            t = a.type
            if isinstance(t, ir.MemoryType):
                axes = [k for k, dim in enumerate(t.shape) if dim == ir.Dim(name)]
                if axes:
                    out.append((i, axes[0]))
                    break
        else:
            raise InteropError(f"@{fn.name}: shape symbol {name} appears in no parameter's "
                               "type and has no shape_bindings entry")
    return out


def check_rank(what: str, shape: Sequence[int], p: ArrayParam) -> None:
    """Raise unless an array of ``shape`` has the parameter's rank."""
    if len(shape) != len(p.shape):
        raise InteropError(f"{what} has rank {len(shape)} (shape {shape}); expected rank "
                           f"{len(p.shape)} ({'x'.join(map(str, p.shape))}x{p.dtype})")


def check_static_extents(what: str, shape: Sequence[int], p: ArrayParam) -> None:
    """Raise unless ``shape`` matches each static extent of the parameter."""
    for axis, dim in enumerate(p.shape):
        if dim.is_static and shape[axis] != int(dim):
            raise InteropError(f"{what} has shape {shape}; axis {axis} must be {int(dim)}")


def check_writable(what: str, shape: Sequence[int], p: ArrayParam, readonly: bool,
                   has_data: bool) -> None:
    """Raise for a read-only output, or a non-empty array without a data pointer."""
    if p.written and readonly:
        raise InteropError(f"{what} is read-only but the kernel writes it")
    if math.prod(shape) and not has_data:
        raise InteropError(f"{what} has no data pointer")


def check_symbol_extents(label: str, user: Sequence[ArrayParam],
                         shapes: Sequence[Sequence[int] | None], by_name: Mapping[str, int]
                         ) -> None:
    """Raise where an array's symbolic extent differs from the symbol's bound value."""
    for i, (p, shape) in enumerate(zip(user, shapes)):
        if shape is None:
            continue
        for axis, dim in enumerate(p.shape):
            if not dim.is_static and str(dim.value) in by_name:
                want = by_name[str(dim.value)]
                if shape[axis] != want:
                    raise InteropError(
                        f"argument {i} ('{p.name}') of {label}: axis {axis} has extent "
                        f"{shape[axis]} but {dim} = {want} (from another argument)")


def number_value(x: Any, t: ir.ScalarType, what: str) -> int | float:
    """A Python/numpy number checked for a ``t`` parameter: the rounded float, or the int.

    The integer's range is left to the caller (the targets word the ``i1`` case apart).
    """
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.generic) and not isinstance(x, numbers.Number):
        x = x.item()  # ml_dtypes scalars (bfloat16 ...) are not registered as numbers
    if isinstance(x, (bool, np.bool_)):
        x = int(x)
    if t.is_float:
        if not isinstance(x, numbers.Real):
            raise InteropError(f"{what} must be a real number for a {t} parameter, "
                               f"got {type(x).__name__}")
        return round_float(int(x) if isinstance(x, numbers.Integral) else float(x), t.name)
    if isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral):
        if not float(x).is_integer():
            raise InteropError(f"{what} = {x!r} is not an integer ({t} parameter)")
        x = int(x)
    if not isinstance(x, numbers.Integral):
        raise InteropError(f"{what} must be an integer for a {t} parameter, "
                           f"got {type(x).__name__}")
    return int(x)


def checked_number(x: Any, t: ir.ScalarType, what: str) -> int | float:
    """``number_value`` with an integer's range checked against ``t`` (``i1``: 0 or 1)."""
    v = number_value(x, t, what)
    if t.is_float:
        return v
    if t is ir.i1:
        if v not in (0, 1):
            raise InteropError(f"{what} = {v} is not a boolean (i1 parameter)")
        return v
    lo, hi = t.int_bounds
    if not lo <= v <= hi:
        raise InteropError(f"{what} = {v} does not fit in {t}")
    return v


_DEVICES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal",
            9: "vpi", 10: "rocm", 11: "rocm_host", 13: "cuda_managed", 14: "oneapi"}
_HOST_DEVICES = (1, 3, 11)


def as_host_array(x: Any, what: str) -> np.ndarray:
    """``x`` as a numpy array sharing its memory (numpy, or DLPack on a host device)."""
    if isinstance(x, np.ndarray):
        return x
    if not hasattr(x, "__dlpack__"):
        raise InteropError(f"{what} must be an array (numpy or an object with __dlpack__), "
                           f"got {type(x).__name__}")
    if hasattr(x, "__dlpack_device__"):
        dev_type, dev_id = x.__dlpack_device__()
        if int(dev_type) not in _HOST_DEVICES:
            name = _DEVICES.get(int(dev_type), f"device type {int(dev_type)}")
            raise InteropError(f"{what} lives on {name}:{dev_id}; the target needs host "
                               "memory (move it to the CPU first, e.g. tensor.cpu())")
    if "bfloat16" in str(getattr(x, "dtype", "")) and type(x).__module__.startswith("torch"):
        import torch  # only reached for torch tensors, so torch is importable

        return np.from_dlpack(x.view(torch.int16)).view(ml_dtypes.bfloat16)
    try:
        return np.from_dlpack(x)
    except (TypeError, BufferError, RuntimeError, ValueError) as e:
        raise InteropError(f"{what} cannot be viewed as a numpy array through DLPack: {e}"
                           ) from None


# ------------------------------------------------------------------ aliasing


def written_parameters(fn: ir.Function) -> frozenset[int]:
    """Positions of the parameters ``fn`` may write, in any form (Candidate or Machine).

    A parameter is written when it is the alias root of a write effect (``store``,
    ``atomic``) or is passed to a ``call`` (conservatively). Matrix and copy atoms
    (``atom.call``) write registers and shared memory only, never a parameter.
    """
    params = {id(a): i for i, a in enumerate(fn.args)}
    out: set[int] = set()
    for op in fn.walk():
        if op.opdef.effect in ("write", "read_write"):
            roots = [ir.alias_root(op.operand(0))]
        elif op.name == "call":
            roots = [ir.alias_root(v) for v in op.operands if isinstance(v.type, ir.MemoryType)]
        else:
            continue
        out.update(params[id(r)] for r in roots if id(r) in params)
    return frozenset(out)


def kernel_label(fn: ir.Function) -> str:
    """How argument errors name a kernel: ``@name`` and where it is defined (file:line)."""
    loc = fn.loc
    return f"@{fn.name} ({loc.filename}:{loc.line})" if loc.known else f"@{fn.name}"


def overlaps(a: Any, b: Any) -> bool:
    """True when two array arguments share an element.

    numpy arrays are compared exactly (``np.shares_memory``: interleaved slices of
    one base do not overlap); device arrays, which are contiguous, by their byte
    ranges (``ptr``, ``nbytes``). Empty arrays overlap nothing.
    """
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.shares_memory(a, b))
    if not (a.nbytes and b.nbytes):
        return False
    return a.ptr < b.ptr + b.nbytes and b.ptr < a.ptr + a.nbytes


def check_aliasing(label: str, user: Sequence[ArrayParam], arrays: Sequence[Any | None]
                   ) -> None:
    """Raise when an argument the kernel writes overlaps any other array argument.

    ``arrays`` holds, per user parameter, the array the kernel will access (None for
    scalars and for values the target copies). Arguments the kernel only reads may
    alias each other: nothing can observe it.
    """
    for i, (p, a) in enumerate(zip(user, arrays)):
        if a is None or not p.written:
            continue
        for j, b in enumerate(arrays):
            if j != i and b is not None and overlaps(a, b):
                raise InteropError(
                    f"argument {i} ('{p.name}') of {label} is written by the kernel and "
                    f"overlaps argument {j} ('{user[j].name}'); pass separate arrays "
                    "(outputs may not alias other arguments)")


def call_param_facts(fn: ir.Function) -> list[ParamFacts]:
    """The facts ``check_aliasing`` needs of every parameter of kernel ``fn``, read from the
    function's own signature (whether the kernel writes it: ``written_parameters``)."""
    written = written_parameters(fn)
    facts = []
    for i, p in enumerate(fn.args):
        t = p.type
        shaped = isinstance(t, (ir.MemoryType, ir.TileType))
        facts.append(ParamFacts(p.name_hint or f"#{i}", t.dtype if shaped else t,
                                tuple(t.shape) if shaped else (), i in written))
    return facts


def check_call_aliasing(fn: ir.Function, arrays: Sequence[Any],
                        facts: Sequence[ParamFacts] | None = None) -> None:
    """``check_aliasing`` for a call of kernel ``fn`` with ``arrays`` (per user parameter;
    None or a scalar for a non-array): the check of the targets that take their arguments
    from the function's own signature (the reference interpreter, the simulator, Metal,
    which copies every array but would copy two written ones back over each other). Tile
    parameters are private copies; only memory is shared with the caller. ``facts``:
    ``call_param_facts(fn)`` computed once by a caller that launches ``fn`` repeatedly."""
    if facts is None:
        facts = call_param_facts(fn)
    check_aliasing(kernel_label(fn), facts,
                   [a if hasattr(a, "shape") else None for a in arrays])
