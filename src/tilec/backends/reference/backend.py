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

from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.backends import interop_checks as checks
from tilec.backends.kernel_checks import HostChecks

from . import numerics as nx
from .interpreter import Interpreter, MemRef

__all__ = ["ReferenceBackend", "ReferenceExecutable", "make_backend", "bind_arguments",
           "check_operations"]


def _param_name(fn: ir.Function, i: int) -> str:
    hint = fn.args[i].name_hint
    return f"parameter {i} ({hint!r})" if hint else f"parameter {i}"


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
            here = (int(a.shape[axis]), f"{_param_name(fn, i)} axis {axis}")
            prev = seen.setdefault(str(dim.value), here)
            if prev[0] != here[0]:
                raise ValueError(f"@{fn.name}: shape symbol {dim.value} is {prev[0]} from "
                                 f"{prev[1]} but {here[0]} from {here[1]}")
    bindings = fn.attributes.get("shape_bindings")
    if bindings is not None and len(bindings) != len(names):
        raise ValueError(f"@{fn.name}: {len(names)} shape symbols but {len(bindings)} "
                         "shape_bindings")
    values = []
    for k, name in enumerate(names):
        if bindings is not None:
            p, axis = bindings[k]
            if not (0 <= p < len(args)) or not isinstance(fn.args[p].type, ir.MemoryType) \
                    or not (0 <= axis < fn.args[p].type.rank):
                raise ValueError(f"@{fn.name}: shape_bindings[{k}] = ({p}, {axis}) for symbol "
                                 f"{name} does not name an axis of a memory parameter")
            v = int(args[p].shape[axis])
            if name in seen and seen[name][0] != v:
                raise ValueError(f"@{fn.name}: shape symbol {name} is bound to {v} by "
                                 f"{_param_name(fn, p)} axis {axis} but is {seen[name][0]} "
                                 f"from {seen[name][1]}")
        elif name in seen:
            v = seen[name][0]
        else:
            raise ValueError(f"@{fn.name}: shape symbol {name} appears in no parameter type "
                             "and has no shape_bindings entry")
        values.append(v)
    return values


def _bind_scalar(fn: ir.Function, i: int, t: ir.ScalarType, a: Any) -> Any:
    where = _param_name(fn, i)
    if isinstance(a, np.ndarray) and a.ndim == 0:
        a = a[()]
    if not isinstance(a, (bool, int, float, np.generic)):
        raise TypeError(f"@{fn.name} {where} is a {t} scalar; got {type(a).__name__}")
    is_float = isinstance(a, float) or (isinstance(a, np.generic) and nx.is_float_dtype(a.dtype))
    if t.is_int and is_float:
        raise TypeError(f"@{fn.name} {where} is {t}; got the float {a!r}")
    try:
        return nx.from_python(int(a) if t.is_int else a, nx.np_dtype(t))
    except (TypeError, ValueError) as e:
        raise ValueError(f"@{fn.name} {where}: {e}") from None


def bind_arguments(fn: ir.Function, args: Sequence[Any]) -> list[Any]:
    """Check user arguments against ``fn``'s parameters; return the full entry-argument list.

    Raises ``TypeError`` (wrong kind or dtype) or ``ValueError`` (wrong rank,
    extent or inconsistent shape symbol), naming the parameter.
    """
    n_user = len(fn.args) - len(fn.shape_symbols)
    if n_user < 0:
        raise ValueError(f"@{fn.name} names more shape symbols than it has parameters")
    if len(args) != n_user:
        names = ", ".join(a.name_hint or f"#{i}" for i, a in enumerate(fn.args[:n_user]))
        raise TypeError(f"@{fn.name} takes {n_user} arguments ({names}), got {len(args)}")
    bound: list[Any] = []
    for i, (p, a) in enumerate(zip(fn.args[:n_user], args)):
        t = p.type
        where = _param_name(fn, i)
        if isinstance(t, (ir.MemoryType, ir.TileType)):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"@{fn.name} {where} is {t}: pass a numpy array, "
                                f"not {type(a).__name__}")
            want = nx.np_dtype(t.dtype)
            if a.dtype != want:
                raise TypeError(f"@{fn.name} {where} is {t}: the array's dtype is {a.dtype}, "
                                f"expected {want}")
            if a.ndim != t.rank:
                raise ValueError(f"@{fn.name} {where} is {t}: the array has rank {a.ndim}, "
                                 f"expected {t.rank}")
            for axis, dim in enumerate(t.shape):
                if (dim.is_static or isinstance(t, ir.TileType)) and a.shape[axis] != int(dim):
                    raise ValueError(f"@{fn.name} {where} is {t}: axis {axis} has extent "
                                     f"{a.shape[axis]}, expected {dim}")
            bound.append(MemRef.of(a) if isinstance(t, ir.MemoryType) else a.copy())
        elif isinstance(t, ir.ScalarType):
            bound.append(_bind_scalar(fn, i, t, a))
        else:
            raise TypeError(f"@{fn.name} {where} has type {t}, which a kernel call cannot pass")
    symbols = _symbol_values(fn, args)
    _check_aliasing(fn, args)
    return bound + [np.int64(v) for v in symbols]


def _check_aliasing(fn: ir.Function, args: Sequence[Any]) -> None:
    """The launchers' aliasing check: the oracle refuses the calls every target refuses."""
    written = checks.written_parameters(fn)
    facts, arrays = [], []
    for i, (p, a) in enumerate(zip(fn.args, args)):
        t = p.type
        shaped = isinstance(t, (ir.MemoryType, ir.TileType))
        facts.append(checks.ParamFacts(p.name_hint or f"#{i}", t.dtype if shaped else t,
                                       tuple(t.shape) if shaped else (), i in written))
        # tile parameters are private copies; only memory is shared with the caller
        arrays.append(a if isinstance(t, ir.MemoryType) else None)
    checks.check_aliasing(checks.kernel_label(fn), facts, arrays)


def check_operations(module: ir.Module) -> None:
    """Verify ``module`` as Candidate TileIR (raises ``ir.VerificationError``).

    Until the module verifier exists, every operation's own verify hook runs instead.
    """
    try:
        ir.verify(module)
        return
    except NotImplementedError:
        pass
    for op in module.walk():
        hook = op.opdef.verify
        if hook is None:
            continue
        try:
            hook(op)
        except ir.OpVerifyError as e:
            raise ir.VerificationError(str(e), e.invariant, op) from None


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


def make_backend(target_name: str = "reference") -> ReferenceBackend:
    """The registry factory for the ``reference`` target."""
    return ReferenceBackend(target_name)
