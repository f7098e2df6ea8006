"""Runtime failures of a kernel: the errors every target raises, and the host-side checks.

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

An integer ``floordiv``/``rem``/``cdiv`` by zero is the other runtime failure
(``KernelArithmeticError``, tileir.md "Pure values"). It stops the program
where a check would: a top-level division whose divisor may be zero is
evaluated with the host checks (``HostChecks`` includes it, in program order),
the others on the device, where each target reports it through the channel
of its checks (``CheckInfo.division`` describes it).

A read outside a tile (a ``reindex`` without ``fill``: a tile slice or index
with a runtime start) and an access leaving a ``bounds = "total"`` view are the
third (``KernelIndexError``, tileir.md). They stop the program the same way;
``index_bounds`` decides which need a runtime test and describes each one as a
``check {kind = "index"}``.

A counted loop (``serial``, ``pipeline``) whose step is not positive at run
time is the fourth (``KernelLoopError``, tileir.md "Structured execution"): it
fails before its first iteration, through the same channels (``CheckInfo.loop``
describes it; the GPU lowering guards the loop with ``check {kind = "step"}``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

from . import numerics as nx

__all__ = ["KernelFailure", "KernelAssertionError", "KernelArithmeticError", "KernelIndexError",
           "KernelLoopError", "CheckInfo",
           "HostChecks", "location_from_json",
           "host_check_ops", "host_divisions", "format_value", "encode_bits", "decode_bits",
           "DIVISION_SYMBOLS"]


class KernelFailure(ir.UserError):
    """A kernel failed at run time at one source location: the base of the four errors below.

    ``str()`` starts with ``file:line:col:`` of the failing construct, then the
    message, then the source line with a caret underline. Every target raises the
    same subclass with the same text.
    """

    _fields: tuple[str, ...] = ()
    """The constructor's parameters in order, as attribute names (for pickling)."""

    def __init__(self, kernel: str, location: ir.Location, head: str) -> None:
        self.kernel = kernel
        """The kernel (function) name."""
        self.location = location
        """Where the failing construct is."""
        self.filename = location.filename
        """File of the failing construct."""
        self.lineno = location.line
        """1-based line of the failing construct."""
        super().__init__(ir.format_located(head, location))

    def __reduce__(self) -> tuple[Any, ...]:
        # the message is derived, so pickling rebuilds it from the constructor's arguments
        return (type(self), tuple(getattr(self, f) for f in self._fields))


def _with_values(head: str, values: tuple[tuple[str, str], ...]) -> str:
    """``head`` followed by the reported values in parentheses (``(K = 50, n = 9)``)."""
    detail = ", ".join(f"{label} = {text}" for label, text in values)
    return head + (f" ({detail})" if detail else "")


class KernelAssertionError(KernelFailure, AssertionError):
    """An ``assert`` of a kernel failed at run time.

    ``str()`` starts with ``file:line:col:`` of the kernel's ``assert`` and holds
    its message and the reported values (``K = 50, B.shape[0] = 40``), then the
    source line with a caret underline.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.KernelAssertionError
    _fields = ("kernel", "message", "location", "values")

    def __init__(self, kernel: str, message: str, location: ir.Location,
                 values: Sequence[tuple[str, str]] = ()) -> None:
        self.message = message
        """The assert's message, or the source of its condition when it has none."""
        self.values = tuple(values)
        """``(source text, formatted value)`` of each reported value."""
        super().__init__(kernel, location, _with_values(
            f"assertion failed in @{kernel}: {message}", self.values))


DIVISION_SYMBOLS = {"floordiv": "'//'", "rem": "'%'", "cdiv": "tc.cdiv"}
"""How a message names each integer division (the DSL spelling)."""


class KernelArithmeticError(KernelFailure, ZeroDivisionError):
    """An integer division of a kernel (``//``, ``%``, ``tc.cdiv``) had a zero divisor.

    ``str()`` starts with ``file:line:col:`` of the division and names the
    operation, then the source line with a caret underline.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.KernelArithmeticError
    _fields = ("kernel", "operation", "location")

    def __init__(self, kernel: str, operation: str, location: ir.Location) -> None:
        self.operation = operation
        """The ``arith`` function that failed: ``floordiv``, ``rem`` or ``cdiv``."""
        what = DIVISION_SYMBOLS.get(operation, repr(operation))
        super().__init__(kernel, location, f"integer division by zero in @{kernel}: {what} "
                                           f"({operation}) has a zero divisor")


class KernelIndexError(KernelFailure, IndexError):
    """A tile slice or index with a runtime start, or an access through a ``total`` view,
    left the tile (or memory) it reads.

    ``str()`` starts with ``file:line:col:`` of the slice (or view), says which
    axis it leaves, of what extent, and reports the offending start
    (``start = 16``), then the source line with a caret underline.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.KernelIndexError
    _fields = ("kernel", "message", "location", "values")

    def __init__(self, kernel: str, message: str, location: ir.Location,
                 values: Sequence[tuple[str, str]] = ()) -> None:
        self.message = message
        """What left its range: the slice's extent, the axis and the extent it leaves."""
        self.values = tuple(values)
        """``(label, formatted value)`` of each reported value: the start (or index)."""
        super().__init__(kernel, location, _with_values(
            f"index out of range in @{kernel}: {message}", self.values))


class KernelLoopError(KernelFailure, ValueError):
    """A counted loop of a kernel (``tc.serial``, ``tc.pipeline``, ``range``) had a step that
    is not positive at run time.

    ``str()`` starts with ``file:line:col:`` of the loop and holds the step's value, then the
    source line with a caret underline.
    """

    __module__ = "tilec"  # tracebacks name the public class, tilec.KernelLoopError
    _fields = ("kernel", "loop", "location", "step")

    def __init__(self, kernel: str, loop: str, location: ir.Location, step: int) -> None:
        self.loop = loop
        """The loop's opcode: ``serial`` or ``pipeline``."""
        self.step = step
        """The step it had."""
        super().__init__(kernel, location, f"loop step must be positive in @{kernel}: the step "
                                           f"of this {loop} loop is {step}")


def format_value(value: Any, t: ir.ScalarType) -> str:
    """``value`` as a number of type ``t`` (the shortest text that reads back as it)."""
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


def location_from_json(d: Sequence[Any]) -> ir.Location:
    """The ``ir.Location`` of ``[filename, line, col, end_col]`` (``CheckInfo.to_json``)."""
    return ir.Location(str(d[0]), int(d[1]), int(d[2]), None if d[3] is None else int(d[3]))


@dataclass(frozen=True)
class CheckInfo:
    """What one ``check`` operation (or one integer division) reports when it fails."""

    op_id: int
    """The operation's number in its module (``ir.op_number``): what a target's code
    reports when it fails."""
    location: ir.Location
    """The ``assert``'s source location."""
    message: str
    """The message attribute."""
    labels: tuple[str, ...]
    """The source text of each reported value."""
    types: tuple[ir.ScalarType, ...]
    """The type of each reported value."""
    kind: str = "assert"
    """``assert`` (a failed assertion), ``zerodiv`` (a zero divisor; ``message`` is the
    division's function), ``index`` (an out-of-range read; ``message`` says of what) or
    ``step`` (a loop step that is not positive; ``message`` is the loop's opcode, the one
    value its step), the ``check``'s ``kind`` attribute."""

    @staticmethod
    def of(op: ir.Operation) -> CheckInfo:
        """The report of ``check`` operation ``op``."""
        return CheckInfo(ir.op_number(op), op.loc, str(op.attr("message")),
                         tuple(op.attr("labels")), tuple(v.type for v in op.operands[1:]),
                         str(op.attr("kind", "assert")))

    @staticmethod
    def division(op: ir.Operation) -> CheckInfo:
        """The report of integer division ``op`` (an ``arith``) when its divisor is zero."""
        return CheckInfo(ir.op_number(op), op.loc, str(op.attr("fn")), (), (), "zerodiv")

    @staticmethod
    def loop(op: ir.Operation) -> CheckInfo:
        """The report of counted loop ``op`` (``serial``/``pipeline``) when its step is not
        positive; the one reported value is the step."""
        return CheckInfo(ir.op_number(op), op.loc, op.name, ("step",), (ir.index,), "step")

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (``from_json`` reads it back): a launch record keeps it."""
        loc = self.location
        return {"op": self.op_id, "loc": [loc.filename, loc.line, loc.col, loc.end_col],
                "message": self.message, "labels": list(self.labels),
                "types": [t.name for t in self.types], "kind": self.kind}

    @staticmethod
    def from_json(d: dict[str, Any]) -> CheckInfo:
        """The report ``to_json`` wrote."""
        return CheckInfo(int(d["op"]), location_from_json(d["loc"]), str(d["message"]),
                         tuple(str(x) for x in d["labels"]),
                         tuple(ir.ScalarType(t) for t in d["types"]), str(d["kind"]))

    def failure(self, kernel: str, values: Sequence[Any] = ()) -> KernelFailure:
        """The error for a failure with ``values`` (numbers, one per label)."""
        if self.kind == "zerodiv":
            return KernelArithmeticError(kernel, self.message, self.location)
        if self.kind == "step":
            return KernelLoopError(kernel, self.message, self.location, int(values[0]))
        shown = [(label, format_value(v, t))
                 for label, v, t in zip(self.labels, values, self.types)]
        if self.kind == "index":
            return KernelIndexError(kernel, self.message, self.location, shown)
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


def host_divisions(fn: ir.Function) -> dict[str, list[ir.Operation]]:
    """The top-level integer divisions of ``fn`` whose divisor may be zero (value ranges), by
    phase as in ``host_check_ops``: the host evaluates them with the checks, in order."""
    from tilec.ir.ranges import analyze_ranges, divisor_may_be_zero

    ranges = analyze_ranges(fn)
    phases: dict[str, list[ir.Operation]] = {"before": [], "after": []}
    phase = "before"
    for op in fn.entry.operations:
        if divisor_may_be_zero(op, ranges):
            if _cone(op, fn) is not None:
                phases[phase].append(op)
        elif op.name != "check" and not _is_scalar_code(op) and not op.opdef.terminator:
            phase = "after"
    return phases


class HostChecks:
    """The host checks of one function, ready to evaluate on argument values.

    Built from the function (``HostChecks(fn)``) or from its JSON form (``from_json``, what a
    warm-start launch record keeps: no IR is needed to run the checks again)."""

    def __init__(self, fn: ir.Function | None = None) -> None:
        self.kernel = ""
        """The function's name (for messages)."""
        self.ops: dict[str, list[ir.Operation]] = {"before": [], "after": []}
        """The host checks by phase (empty when read back from JSON)."""
        self.divisions: dict[str, list[ir.Operation]] = {"before": [], "after": []}
        """The top-level divisions whose divisor may be zero, by phase (evaluated with the
        checks, so the first failure in program order is the one raised)."""
        self._scalars: list[tuple[int, ir.ScalarType]] = []
        """``(entry argument, type)`` of each scalar parameter: the checks' inputs."""
        self._steps: dict[str, list[_Step]] = {"before": [], "after": []}
        """Per phase, the scalar code to evaluate in order (value slots: the entry arguments
        first, then one per result)."""
        self._passed: dict[str, tuple[Any, ...]] = {}
        """Per phase, the scalar argument values the checks last passed with: the checks are a
        function of them, so a call with the same ones (the usual case) skips the work."""
        if fn is not None:
            self._build(fn)

    def _build(self, fn: ir.Function) -> None:
        self.kernel = fn.name
        self.ops = host_check_ops(fn)
        self.divisions = host_divisions(fn)
        self._scalars = [(k, a.type) for k, a in enumerate(fn.args)
                         if isinstance(a.type, ir.ScalarType)]
        slots: dict[int, int] = {id(a): k for k, a in enumerate(fn.args)}
        order = {op.id: k for k, op in enumerate(fn.entry.operations)}
        for phase, checks in self.ops.items():
            needed: dict[int, ir.Operation] = {}
            for c in checks + self.divisions[phase]:
                needed[c.id] = c
                for d in _cone(c, fn) or []:
                    needed[d.id] = d
            steps = []
            for op in sorted(needed.values(), key=lambda o: order[o.id]):
                for r in op.results:
                    slots.setdefault(id(r), len(slots))
                steps.append(_Step.of(op, [slots[id(v)] for v in op.operands],
                                      [slots[id(r)] for r in op.results]))
            self._steps[phase] = steps

    def __bool__(self) -> bool:
        return any(self._steps.values())

    def run(self, values: Sequence[Any], phase: str = "before") -> None:
        """Evaluate the checks of ``phase`` on the entry-argument ``values`` (scalars and
        shape symbols as numbers; memories are not read); raise the first failure."""
        steps = self._steps[phase]
        if not steps:
            return
        key = tuple(getattr(values[k], "value", values[k]) for k, _ in self._scalars)
        if self._passed.get(phase) == key:
            return
        env: dict[int, Any] = {k: _number(values[k], t) for k, t in self._scalars}
        for st in steps:
            args = [env[v] for v in st.operands]
            if st.kind == "check":
                if not bool(args[0]):
                    assert st.info is not None
                    raise st.info.failure(self.kernel, args[1:])
                continue
            env.update(zip(st.results, st.evaluate(args, self.kernel)))
        self._passed[phase] = key

    def to_json(self) -> dict[str, Any]:
        """The checks as JSON (``from_json`` reads it back)."""
        return {"kernel": self.kernel, "scalars": [[k, t.name] for k, t in self._scalars],
                "steps": {ph: [st.to_json() for st in steps]
                          for ph, steps in self._steps.items()}}

    @staticmethod
    def from_json(d: dict[str, Any]) -> HostChecks:
        """The checks ``to_json`` wrote (``ops`` and ``divisions`` stay empty)."""
        out = HostChecks()
        out.kernel = str(d["kernel"])
        out._scalars = [(int(k), ir.ScalarType(t)) for k, t in d["scalars"]]
        out._steps = {ph: [_Step.from_json(s) for s in steps] for ph, steps in d["steps"].items()}
        return out


@dataclass(frozen=True)
class _Step:
    """One scalar operation of a host check's cone (or the check itself), without the IR."""

    kind: str
    """``constant``, ``tuple``, ``tuple_get``, ``arith`` or ``check``."""
    operands: tuple[int, ...]
    """The value slots it reads."""
    results: tuple[int, ...]
    """The value slots it defines."""
    fn: str = ""
    """The ``arith`` function."""
    value: Any = None
    """The constant's value, or the ``tuple_get`` index."""
    operand_type: str = ""
    """The ``arith`` operand type (the second operand's for ``select``)."""
    result_type: str = ""
    """The result type (``constant``, ``arith``)."""
    info: CheckInfo | None = None
    """What a failing ``check`` reports, or what a zero divisor of an integer division
    raises."""

    @staticmethod
    def of(op: ir.Operation, operands: Sequence[int], results: Sequence[int]) -> _Step:
        """The step of ``op`` reading and defining those slots."""
        if op.name == "check":
            return _Step("check", tuple(operands), tuple(results), info=CheckInfo.of(op))
        if op.name == "constant":
            return _Step("constant", (), tuple(results), value=op.attr("value"),
                         result_type=op.result.type.name)
        if op.name == "tuple_get":
            return _Step("tuple_get", tuple(operands), tuple(results), value=op.attr("index"))
        if op.name == "tuple":
            return _Step("tuple", tuple(operands), tuple(results))
        if op.name != "arith":
            raise ValueError(f"'{op.name}' is not scalar code a host check can evaluate")
        fn = op.attr("fn")
        operand = op.operand(1 if fn == "select" else 0).type
        return _Step("arith", tuple(operands), tuple(results), fn=fn, operand_type=operand.name,
                     result_type=op.result.type.name,
                     info=CheckInfo.division(op) if fn in DIVISION_SYMBOLS else None)

    def evaluate(self, args: list[Any], kernel: str) -> list[Any]:
        """The results on numpy scalars, as the reference interpreter defines them."""
        if self.kind == "constant":
            return [nx.from_python(self.value, nx.np_dtype(ir.ScalarType(self.result_type)))]
        if self.kind == "tuple":
            return [tuple(args)]
        if self.kind == "tuple_get":
            return [args[0][self.value]]
        try:
            return [nx.evaluate(self.fn, args, nx.np_dtype(ir.ScalarType(self.operand_type)),
                                nx.np_dtype(ir.ScalarType(self.result_type)))]
        except ZeroDivisionError:
            if self.info is None:
                raise
            raise self.info.failure(kernel) from None

    def to_json(self) -> list[Any]:
        """``[kind, operands, results, fn, value, operand type, result type, info]``."""
        return [self.kind, list(self.operands), list(self.results), self.fn, self.value,
                self.operand_type, self.result_type,
                None if self.info is None else self.info.to_json()]

    @staticmethod
    def from_json(d: Sequence[Any]) -> _Step:
        """The step ``to_json`` wrote."""
        kind, operands, results, fn, value, operand_type, result_type, info = d
        return _Step(str(kind), tuple(int(v) for v in operands), tuple(int(v) for v in results),
                     str(fn), value, str(operand_type), str(result_type),
                     None if info is None else CheckInfo.from_json(info))


def _number(x: Any, t: ir.ScalarType) -> Any:
    """A host value (Python, numpy or ctypes number) as a numpy scalar of ``t``."""
    x = getattr(x, "value", x)  # ctypes
    if isinstance(x, np.ndarray):
        x = x[()]
    dt = nx.np_dtype(t)
    if t is ir.i1:
        return np.bool_(bool(x))
    return nx.from_python(float(x) if t.is_float else int(x), dt)
