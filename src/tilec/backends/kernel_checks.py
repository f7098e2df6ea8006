"""Runtime assertions of a kernel: the error every target raises, and the host-side checks.

A ``check`` operation (``docs/design/tileir.md``, "Runtime checks") stops the
program with ``KernelAssertionError`` unless its ``i1`` condition holds. Two
kinds exist, and every target treats them alike:

* **Host checks**: a ``check`` in the function's entry block whose condition
  and reported values are computed from parameters (shape symbols, scalar
  arguments) and constants alone. ``HostChecks`` evaluates them on the host
  with the reference numerics, so every target raises the same error: those
  before the first top-level effect or region (``phase = "before"``, e.g. the
  shape contract of a library kernel) before anything runs, at no cost inside
  the kernel; those after it (``"after"``) where the target cannot run them in
  place (the CUDA launcher, once the launch is queued).
* **Device checks**: every other ``check`` (inside a ``parallel`` nest, a loop,
  or reading loop or program indices). Each target executes it where it is in
  program order and reports it through its own channel (the interpreter and
  the simulator raise, the C function returns a status, a CUDA kernel writes a
  record the launcher reads); ``CheckInfo.failure`` turns what was reported
  into the same error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

__all__ = ["KernelAssertionError", "CheckInfo", "HostChecks", "host_check_ops",
           "format_value", "encode_bits", "decode_bits"]


class KernelAssertionError(ir.UserError, AssertionError):
    """An ``assert`` of a kernel failed at run time.

    ``str()`` starts with ``file:line:col:`` of the kernel's ``assert`` and holds
    its message and the reported values (``K = 50, B.shape[0] = 40``), then the
    source line with a caret underline.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.KernelAssertionError

    def __init__(self, kernel: str, message: str, location: ir.Location,
                 values: Sequence[tuple[str, str]] = ()) -> None:
        self.kernel = kernel
        """The kernel (function) name."""
        self.message = message
        """The assert's message, or the source of its condition when it has none."""
        self.location = location
        """Where the ``assert`` is."""
        self.values = tuple(values)
        """``(source text, formatted value)`` of each reported value."""
        self.filename = location.filename
        """File of the ``assert``."""
        self.lineno = location.line
        """1-based line of the ``assert``."""
        detail = ", ".join(f"{label} = {text}" for label, text in self.values)
        head = f"assertion failed in @{kernel}: {message}" + (f" ({detail})" if detail else "")
        super().__init__(ir.format_located(head, location))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.kernel, self.message, self.location, self.values))


def format_value(value: Any, t: ir.ScalarType) -> str:
    """``value`` as a number of type ``t`` (the shortest text that reads back as it)."""
    from .reference import numerics as nx  # lazily: the interpreter imports this module

    x = np.asarray(value)
    if t is ir.i1:
        return "true" if bool(x) else "false"
    if t.is_float:
        return str(np.asarray(x, np.float64).astype(nx.np_dtype(t))[()])
    return str(int(x))


def encode_bits(value: Any, t: ir.ScalarType) -> int:
    """A reported value as the 64-bit word a compiled kernel stores (f64 bits for floats)."""
    if t.is_float:
        return int(np.array(float(value), np.float64).view(np.int64))
    return int(value)


def decode_bits(word: int, t: ir.ScalarType) -> Any:
    """The value behind a 64-bit word written by a compiled kernel (inverse of ``encode_bits``)."""
    w = np.array(int(word) & (2**64 - 1), np.uint64)
    if t.is_float:
        return w.view(np.float64)[()]
    return int(w.view(np.int64))


@dataclass(frozen=True)
class CheckInfo:
    """What one ``check`` operation reports when it fails."""

    op_id: int
    """The operation's id in its module."""
    location: ir.Location
    """The ``assert``'s source location."""
    message: str
    """The message attribute."""
    labels: tuple[str, ...]
    """The source text of each reported value."""
    types: tuple[ir.ScalarType, ...]
    """The type of each reported value."""

    @staticmethod
    def of(op: ir.Operation) -> CheckInfo:
        """The report of ``check`` operation ``op``."""
        return CheckInfo(op.id, op.loc, str(op.attr("message")), tuple(op.attr("labels")),
                         tuple(v.type for v in op.operands[1:]))

    def failure(self, kernel: str, values: Sequence[Any]) -> KernelAssertionError:
        """The error for a failure with ``values`` (numbers, one per label)."""
        shown = [(label, format_value(v, t))
                 for label, v, t in zip(self.labels, values, self.types)]
        return KernelAssertionError(kernel, self.message, self.location, shown)


def _is_scalar_code(op: ir.Operation) -> bool:
    """Pure, region-free scalar code (what a function computes from its parameters)."""
    return (op.opdef.effect == "pure" and not op.regions
            and all(isinstance(r.type, ir.ScalarType) for r in op.results))


def _cone(op: ir.Operation, fn: ir.Function) -> list[ir.Operation] | None:
    """The entry-block scalar code ``op``'s operands are computed by (None when some operand
    comes from anything but parameters, constants and such code). O(cone)."""
    out: dict[int, ir.Operation] = {}
    stack = list(op.operands)
    while stack:
        v = stack.pop()
        if isinstance(v, ir.BlockArgument):
            if v.owner is not fn.entry:
                return None
            continue
        d = v.defining_op
        if d is None or d.parent is not fn.entry or not _is_scalar_code(d):
            return None
        if d.id not in out:
            out[d.id] = d
            stack.extend(d.operands)
    return list(out.values())


def host_check_ops(fn: ir.Function) -> dict[str, list[ir.Operation]]:
    """The host checks of ``fn`` by phase: ``before`` (no top-level effect or region precedes
    them) and ``after``. Candidate and Machine forms give the same lists: lowering keeps the
    function's top-level scalar code and checks in order."""
    phases: dict[str, list[ir.Operation]] = {"before": [], "after": []}
    phase = "before"
    for op in fn.entry.operations:
        if op.name == "check":
            if _cone(op, fn) is not None:
                phases[phase].append(op)
        elif not _is_scalar_code(op) and not op.opdef.terminator:
            phase = "after"
    return phases


class HostChecks:
    """The host checks of one function, ready to evaluate on argument values."""

    def __init__(self, fn: ir.Function) -> None:
        self.kernel = fn.name
        """The function's name (for messages)."""
        self.ops = host_check_ops(fn)
        """The host checks by phase."""
        self._args = list(fn.args)
        self._scalars = [k for k, a in enumerate(fn.args) if isinstance(a.type, ir.ScalarType)]
        self._passed: dict[str, tuple[Any, ...]] = {}
        """Per phase, the scalar argument values the checks last passed with: the checks are a
        function of them, so a call with the same ones (the usual case) skips the work."""
        self._steps: dict[str, list[ir.Operation]] = {}
        order = {op.id: k for k, op in enumerate(fn.entry.operations)}
        for phase, checks in self.ops.items():
            needed: dict[int, ir.Operation] = {}
            for c in checks:
                needed[c.id] = c
                for d in _cone(c, fn) or []:
                    needed[d.id] = d
            self._steps[phase] = sorted(needed.values(), key=lambda o: order[o.id])

    def __bool__(self) -> bool:
        return any(self.ops.values())

    def run(self, values: Sequence[Any], phase: str = "before") -> None:
        """Evaluate the checks of ``phase`` on the entry-argument ``values`` (scalars and
        shape symbols as numbers; memories are not read); raise the first failure."""
        steps = self._steps[phase]
        if not steps:
            return
        key = tuple(getattr(values[k], "value", values[k]) for k in self._scalars)
        if self._passed.get(phase) == key:
            return
        env: dict[ir.Value, Any] = {}
        for k in self._scalars:
            env[self._args[k]] = _number(values[k], self._args[k].type)
        for op in steps:
            args = [env[v] for v in op.operands]
            if op.name == "check":
                if not bool(args[0]):
                    raise CheckInfo.of(op).failure(self.kernel, args[1:])
                continue
            env.update(zip(op.results, _evaluate(op, args)))
        self._passed[phase] = key


def _number(x: Any, t: ir.ScalarType) -> Any:
    """A host value (Python, numpy or ctypes number) as a numpy scalar of ``t``."""
    from .reference import numerics as nx

    x = getattr(x, "value", x)  # ctypes
    if isinstance(x, np.ndarray):
        x = x[()]
    dt = nx.np_dtype(t)
    if t is ir.i1:
        return np.bool_(bool(x))
    return nx.from_python(float(x) if t.is_float else int(x), dt)


def _evaluate(op: ir.Operation, args: list[Any]) -> list[Any]:
    """One scalar operation on numpy scalars, as the reference interpreter defines it."""
    from .reference import numerics as nx

    if op.name == "constant":
        return [nx.from_python(op.attr("value"), nx.np_dtype(op.result.type))]
    if op.name == "tuple":
        return [tuple(args)]
    if op.name == "tuple_get":
        return [args[0][op.attr("index")]]
    if op.name != "arith":
        raise ValueError(f"'{op.name}' is not scalar code a host check can evaluate")
    fn = op.attr("fn")
    operand_type = op.operand(1 if fn == "select" else 0).type
    try:
        return [nx.evaluate(fn, args, nx.np_dtype(operand_type), nx.np_dtype(op.result.type))]
    except ZeroDivisionError:
        raise ZeroDivisionError(ir.format_located(
            f"integer division by zero in '{op.name}' (computing a checked value)", op.loc)
        ) from None
