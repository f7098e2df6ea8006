"""The ``reference`` target: compile = check and keep the IR; call = bind arguments and interpret.

Argument convention (docs/design/tileir.md, "Decisions"): the entry block's
arguments are the user parameters (numpy arrays for ``mem`` parameters,
Python or numpy scalars for scalar parameters, numpy arrays for tile
parameters) followed by one ``index`` per name in the function attribute
``shape_symbols``. The caller passes only the user parameters; symbol ``k``
takes the extent ``args[p].shape[axis]`` named by ``shape_bindings[k] = (p,
axis)``. Without ``shape_bindings``, a symbol takes the first parameter
extent its name appears in. Arrays are written in place.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import interop_checks as checks
from tilec.targets import numerics as nx
from tilec.targets.interop_checks import InteropError
from tilec.targets.kernel_checks import HostChecks

from .interpreter import Interpreter
from .memref import MemRef

__all__ = ["ReferenceBackend", "ReferenceExecutable", "make_backend", "bind_arguments",
           "contiguous_arguments", "check_operations"]


def _what(fn: ir.Function, i: int) -> str:
    """How argument errors name parameter ``i`` (the wording of every target)."""
    hint = fn.args[i].name_hint
    return f"argument {i} ('{hint}') of @{fn.name}" if hint else f"argument {i} of @{fn.name}"


def _symbol_values(fn: ir.Function, args: Sequence[Any]) -> list[int]:
    """The shape-symbol values implied by the arrays, after checking their consistency."""
    names = fn.shape_symbols
    seen: dict[str, tuple[int, str]] = {}  # name -> (value, where it came from)
    for i, (p, a) in enumerate(zip(fn.args, args)):
        if not isinstance(p.type, ir.MemoryType):
            continue
        for axis, dim in enumerate(p.type.shape):
            if dim.is_static or dim.value == "?":
                continue
            here = (int(a.shape[axis]), f"{_what(fn, i)} axis {axis}")
            prev = seen.setdefault(str(dim.value), here)
            if prev[0] != here[0]:
                raise InteropError(f"@{fn.name}: shape symbol {dim.value} is {prev[0]} from "
                                   f"{prev[1]} but {here[0]} from {here[1]}")
    values = []
    for k, (name, (p, axis)) in enumerate(zip(names, checks.shape_bindings(fn))):
        if not (0 <= p < len(args)) or not isinstance(fn.args[p].type, ir.MemoryType) \
                or not (0 <= axis < fn.args[p].type.rank):
            raise InteropError(f"@{fn.name}: shape_bindings[{k}] = ({p}, {axis}) for symbol "
                               f"{name} does not name an axis of a memory parameter")
        v = int(args[p].shape[axis])
        if name in seen and seen[name][0] != v:
            raise InteropError(f"@{fn.name}: shape symbol {name} is bound to {v} by "
                               f"{_what(fn, p)} axis {axis} but is {seen[name][0]} from "
                               f"{seen[name][1]}")
        values.append(v)
    return values


def _bind_array(fn: ir.Function, i: int, t: ir.MemoryType | ir.TileType, x: Any,
                written: bool) -> Any:
    what = _what(fn, i)
    a = checks.as_host_array(x, what)
    p = checks.ParamFacts(fn.args[i].name_hint or f"#{i}", t.dtype, tuple(t.shape), written)
    checks.check_rank(what, a.shape, p)
    want = nx.np_dtype(t.dtype)
    if a.dtype != want:
        raise InteropError(f"{what} has dtype {a.dtype}; expected {want} ({t.dtype}); "
                           "convert it first (no implicit copies: outputs are written in place)")
    if isinstance(t, ir.TileType):  # a value: every extent is the tile's
        for axis, dim in enumerate(t.shape):
            if a.shape[axis] != int(dim):
                raise InteropError(f"{what} has shape {a.shape}; axis {axis} must be {dim}")
        return a.copy()
    checks.check_static_extents(what, a.shape, p)
    checks.check_writable(what, a.shape, p, not a.flags.writeable, True)
    return MemRef.of(a)


def bind_arguments(fn: ir.Function, args: Sequence[Any]) -> list[Any]:
    """Check user arguments against ``fn``'s parameters; return the full entry-argument list.

    The checks and their messages are the launchers' (``interop_checks``): the oracle
    refuses what every target refuses, with the same ``tc.ArgumentError``. Unlike cpu and
    cuda, the interpreter reads numpy arrays of any layout (strided, Fortran order).
    """
    n_user = len(fn.args) - len(fn.shape_symbols)
    if n_user < 0:
        raise InteropError(f"@{fn.name} names more shape symbols than it has parameters")
    user = fn.args[:n_user]
    facts = [checks.ParamFacts(a.name_hint or f"#{i}", getattr(a.type, "dtype", a.type),
                               tuple(getattr(a.type, "shape", ())), False)
             for i, a in enumerate(user)]
    checks.check_count(f"@{fn.name}", facts, args)
    written = checks.written_parameters(fn)
    bound: list[Any] = []
    hosts: list[Any] = []
    for i, (p, x) in enumerate(zip(user, args)):
        t = p.type
        if isinstance(t, (ir.MemoryType, ir.TileType)):
            bound.append(_bind_array(fn, i, t, x, i in written))
            hosts.append(bound[-1].root if isinstance(t, ir.MemoryType) else None)
        elif isinstance(t, ir.ScalarType):
            v = checks.checked_number(x, t, _what(fn, i))
            bound.append(nx.from_python(v, nx.np_dtype(t)))
            hosts.append(None)
        else:
            raise InteropError(f"{_what(fn, i)} has type {t}, which a kernel call cannot pass")
    symbols = _symbol_values(fn, [h if h is not None else x for h, x in zip(hosts, args)])
    checks.check_call_aliasing(fn, hosts)  # the launchers' check: the oracle refuses it too
    return bound + [np.int64(v) for v in symbols]


@contextmanager
def contiguous_arguments(entry: list[Any]) -> Iterator[list[Any]]:
    """``entry`` (``bind_arguments``' list) with every array argument that is not C-contiguous
    (a transposed numpy array, a strided DLPack tensor) replaced by a contiguous working copy,
    for the SIMT simulator's flat-index accesses; on leaving, also by an error, the copies
    are written back (a written argument overlaps no other, so that is exact)."""
    out: list[Any] = []
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for a in entry:
        if isinstance(a, MemRef) and not a.root.flags.c_contiguous:
            work = np.ascontiguousarray(a.root)
            if a.root.flags.writeable:
                pairs.append((a.root, work))
            a = MemRef.of(work)
        out.append(a)
    try:
        yield out
    finally:
        for array, work in pairs:
            array[...] = work


def check_operations(module: ir.Module) -> None:
    """Verify ``module`` as Candidate TileIR (raises ``ir.VerificationError``)."""
    ir.verify(module)


class ReferenceExecutable:
    """One function of a module, ready to interpret; call it with the user arguments."""

    def __init__(self, module: ir.Module, function: ir.Function) -> None:
        self.module = module
        """The module (``call`` resolves callees in it)."""
        self.function = function
        """The entry function."""
        self.source = str(module)
        """The printed IR (this target's "generated source")."""
        self.host_checks = HostChecks(function)
        """Checks evaluated on the arguments before the run (``kernel_checks``)."""

    @property
    def name(self) -> str:
        """The entry function's name."""
        return self.function.name

    def __call__(self, *args: Any) -> Any:
        """Run on ``args`` (user parameters only); arrays are updated in place.

        Returns None for a function without results, its only result, or a
        tuple of results.
        """
        entry = bind_arguments(self.function, args)
        self.host_checks.run(entry)
        results = Interpreter(self.module).run(self.function, entry)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)


class ReferenceBackend:
    """The ``reference`` target: runs Candidate TileIR in the numpy interpreter."""

    pipeline = ("build",)
    """The stages the compile driver runs (``tilec.driver``): the interpreter reads Candidate
    TileIR as it is."""

    profile = None
    """No hardware profile: nothing is planned."""

    def __init__(self, name: str = "reference", verify: bool = True) -> None:
        self.name = name
        """The target name."""
        self.verify = verify
        """True to run the IR checks at compile time."""

    def compile(self, module: ir.Module, fn_name: str) -> ReferenceExecutable:
        """Check ``module`` and return an executable for ``@fn_name``."""
        fn = module.lookup(fn_name)
        if fn is None:
            known = ", ".join(f"@{f.name}" for f in module)
            raise KeyError(f"no function @{fn_name} in the module (it has {known})")
        if self.verify:
            check_operations(module)
        return ReferenceExecutable(module, fn)

    def build(self, module: ir.Module, fn_name: str, source: None = None
              ) -> ReferenceExecutable:
        """The driver's build stage: ``compile``."""
        return self.compile(module, fn_name)


def make_backend(target_name: str = "reference") -> ReferenceBackend:
    """The registry factory for the ``reference`` target."""
    return ReferenceBackend(target_name)
