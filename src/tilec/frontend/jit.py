"""``@tc.kernel``, ``tc.compile``, ``tc.interpret``: specialization, capture and caching.

A kernel is specialized on its *runtime* arguments (arrays and scalars, in
parameter order; ``tc.constexpr`` parameters are given by keyword or take
their defaults) and its constexpr values. The specialization key holds each
array's element type, rank and, where requested, static extents; each
scalar's type; and every constexpr value. Capture runs once per key; the
resulting ``Compiled`` object is cached per key and target.

The IR function's parameters follow ``docs/design/tileir.md``: one entry
argument per runtime parameter (``mem<A_0xA_1xf32, global>`` for an array
whose extents are symbolic, a scalar type for a scalar), then one ``index``
argument per symbolic extent. Function attributes: ``kernel``,
``param_names``, ``shape_symbols`` (``A_0``: parameter ``A``, axis 0),
``shape_bindings`` (``(param_index, axis)`` per symbol, so a runner reads
symbol values off the arrays) and ``constexprs``.

The kernel's source, parameters and the specs of its arguments (``ArraySpec``,
``tc.array``) are read by ``signature.py``.

Warm start (``warm.py``, ``docs/design/warm_start.md``): a key compiled before, in any
process, is found on disk by its content key and yields a ``Compiled`` whose executable
comes straight from the target's launch record; its module, plan and stages are
recomputed only when asked for. A call of a ``Compiled`` binds its arguments once per
argument signature (the target's executable keeps the bound facts) and checks the
specialization (``check_args``) only when it binds.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import linecache
import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.ir import ArgumentError
from tilec.support.env import getenv

from . import warm
from .capture import Capture, CaptureBuilder, CaptureContext
from .compiled import Compiled
from .dtypes import DType, dtype_from_numpy
from .errors import SourceInfo, TileSyntaxError
from .map_fusion import fuse_map_chains
from .nest_sinking import sink_into_nests
from .signature import (
    _NO_DEFAULT,
    ArraySpec,
    _ArgSpec,
    _closure,
    _Param,
    _params,
    _parse,
    _spec_of,
)
from .tunables import Resolution, Tunable
from .values import Affine, MemVal, ScalarVal

__all__ = ["kernel", "func", "compile", "interpret", "Kernel", "DeviceFunction", "Compiled"]

_log = logging.getLogger(__name__)


# -------------------------------------------------------------------- kernels


class Kernel:
    """A ``@tc.kernel`` function: call it to compile (cached) and run on the default target."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        """The Python function."""
        self._params: list[_Param] | None = None
        self._tunables: dict[str, Tunable] | None = None
        self._source: tuple[ast.FunctionDef, SourceInfo] | None = None
        self._modules: dict[tuple, ir.Module] = {}
        self._compiled: dict[tuple, Compiled] = {}
        self._resolutions: dict[tuple, Resolution] = {}
        self._fast: dict[tuple, tuple[Compiled, Resolution | None]] = {}
        self._digest: Any = _UNSET

    @property
    def params(self) -> list[_Param]:
        """The parameters (constexpr or runtime), in order."""
        if self._params is None:
            self._params = _params(self.fn)
        return self._params

    @property
    def tunables(self) -> dict[str, Tunable]:
        """The tunable constexpr parameters (``tc.tunable`` defaults), in order."""
        if self._tunables is None:
            from .tunables import space

            self._tunables = space(self.params)
        return self._tunables

    @property
    def runtime_params(self) -> list[_Param]:
        """Parameters that become IR arguments (arrays and scalars)."""
        return [p for p in self.params if not p.constexpr]

    def source(self) -> tuple[ast.FunctionDef, SourceInfo]:
        """The parsed definition (cached)."""
        if self._source is None:
            self._source = _parse(self.fn)
        return self._source

    def content_digest(self) -> str | None:
        """What capture reads for this kernel (its source, its helpers', the globals they
        name, its parameters), as one digest (``warm.kernel_digest``), once per object;
        None when some of it cannot be read."""
        if self._digest is _UNSET:
            d = warm.kernel_digest(self.fn)
            self._digest = None if d is None else \
                hashlib.sha256(f"{d}\0{self.params!r}".encode()).hexdigest()
        return self._digest

    def _warm_key(self, kind: str, target: str, *parts: Any) -> str | None:
        """The key of this kernel's warm-start entry of ``kind`` for ``parts`` on ``target``;
        None when warm start is off or the content cannot be keyed."""
        if not warm.enabled():
            return None
        digest = self.content_digest()
        if digest is None:
            return None
        from tilec.driver import target_identity

        ident = target_identity(target)
        if ident is None:
            return None
        return warm.entry_key(kind, digest, target, ident, *parts)

    def specialize(self, args: Sequence[Any], constexprs: dict[str, Any],
                   static_shapes: bool | Sequence[str] = False
                   ) -> tuple[tuple, list[_ArgSpec], dict[str, Any]]:
        """The specialization key, argument specs and constexpr values for a call."""
        rt = self.runtime_params
        cx = {p.name: p for p in self.params if p.constexpr}
        for k in constexprs:
            if k not in cx:
                kind = "a runtime parameter" if any(p.name == k for p in rt) else "not a parameter"
                raise ArgumentError(f"{self.__name__}(): {k!r} is {kind}; only constexpr "
                                    f"parameters are passed by keyword")
        if len(args) != len(rt):
            names = ", ".join(p.name for p in rt)
            raise ArgumentError(f"{self.__name__}() takes {len(rt)} runtime arguments ({names}), "
                            f"got {len(args)}; constexpr parameters are passed by keyword")
        values = {}
        for name, p in cx.items():
            if name in constexprs:
                values[name] = constexprs[name]
            elif p.default is not _NO_DEFAULT:
                values[name] = p.default
            else:
                raise ArgumentError(f"{self.__name__}(): missing constexpr {name!r}")
        statics = set(p.name for p in rt) if static_shapes is True else set(static_shapes or ())
        specs = [_spec_of(p, a, p.name in statics) for p, a in zip(rt, args)]
        key = (tuple(s.key() for s in specs), tuple(sorted((k, _hashable(v))
                                                           for k, v in values.items())))
        return key, specs, values

    def module_for(self, key: tuple, specs: list[_ArgSpec], values: dict[str, Any]) -> ir.Module:
        """Capture (once per key) the Candidate TileIR module."""
        mod = self._modules.get(key)
        if mod is None:
            start = time.perf_counter()
            mod = build_module(self, specs, values)
            self._modules[key] = mod
            _log.info("@%s capture: %.1f ms", self.fn.__name__,
                      (time.perf_counter() - start) * 1e3)
        return mod

    def _fast_hit(self, tgt: str, args: Sequence[Any], constexprs: dict[str, Any],
                  static_shapes: Any, variant: Any) -> tuple[Any, Compiled | None]:
        """The fast key of a ``compile`` call (None when it cannot be made or hashed) and the
        ``Compiled`` filed under it (its selection set to that call's), if any."""
        fast = _fast_key(tgt, args, constexprs, static_shapes, variant)
        if fast is None:
            return None, None
        try:
            hit = self._fast.get(fast)
        except TypeError:  # something in the key is not hashable: the full path
            return None, None
        if hit is None:
            return fast, None
        if hit[1] is not None:
            hit[0].selection = hit[1]
        return fast, hit[0]

    def compile(self, *args: Any, target: str | None = None,
                static_shapes: bool | Sequence[str] = False, variant: dict[str, Any] | None = None,
                **constexprs: Any) -> Compiled:
        """Specialize on ``args``/``constexprs`` and capture; cached per key and target.

        Tunable parameters not given by keyword are resolved first (``resolve``);
        ``variant`` fixes plan-space choices (``tunables.VARIANT_FIELDS``) instead of a
        record's."""
        tgt = target or _default_target()
        fast, hit = self._fast_hit(tgt, args, constexprs, static_shapes, variant)
        if hit is not None:
            return hit
        from tilec.runtime import check_target_name

        check_target_name(tgt)
        resolution = None
        if self.tunables:
            resolution = self.resolve(args, tgt, static_shapes, **constexprs)
            constexprs = {**constexprs, **resolution.values}
            if variant is None:
                variant = dict(resolution.variant)
        key, specs, values = self.specialize(args, constexprs, static_shapes)
        vkey = tuple(sorted((variant or {}).items()))
        got = self._compiled.get((key, tgt, vkey))
        if got is None:
            got = self._new_compiled(key, specs, values, tgt, resolution, variant, vkey)
            self._compiled[(key, tgt, vkey)] = got
        elif resolution is not None:
            got.selection = resolution  # the latest call's resolution (the object is shared)
        if fast is not None:
            if len(self._fast) >= _FAST_ENTRIES:
                self._fast.clear()
            self._fast[fast] = (got, resolution)
        return got

    def _new_compiled(self, key: tuple, specs: list[_ArgSpec], values: dict[str, Any],
                      target: str, resolution: Resolution | None,
                      variant: dict[str, Any] | None, vkey: tuple) -> Compiled:
        """The ``Compiled`` of a key new to this process: from its launch entry when one
        exists (no capture: the executable is loaded from the target's record), else
        captured now (its first ``executable()`` stores the entry)."""
        lkey = self._warm_key("launch", target, key, vkey)
        if lkey is not None:
            start = time.perf_counter()
            exe = _load_warm(lkey, target)
            if exe is not None:
                _log.info("@%s warm for %s: %.1f ms", self.fn.__name__, target,
                          (time.perf_counter() - start) * 1e3)
                return Compiled(self, None, target, specs, values, resolution, variant,
                                key=key, executable=exe)
        got = Compiled(self, self.module_for(key, specs, values), target, specs, values,
                       resolution, variant, key=key)
        got.warm_key = lkey
        return got

    def forget_resolutions(self) -> None:
        """Drop the cached resolutions of tunables (a new tuning record applies to the next
        call); compiled kernels stay cached."""
        self._resolutions.clear()
        self._fast.clear()

    def resolve(self, args: Sequence[Any], target: str,
                static_shapes: bool | Sequence[str] = False, **constexprs: Any) -> Resolution:
        """How this call's tunable parameters resolve (``frontend/tunables.py``): fixed by
        keyword, from a tuning record, by the model, or to the declared defaults. Cached
        per specialization, extents and target."""
        from . import tunables as tn

        space = self.tunables
        fixed = {k: v for k, v in constexprs.items() if k in space}
        if len(fixed) == len(space):
            return Resolution(dict(fixed), "fixed", fixed=tuple(fixed))
        base = {**constexprs, **tn.defaults(space, fixed)}
        key0, specs, _ = self.specialize(args, base, static_shapes)
        buckets = tn.shape_bucket(specs, args)
        extents = tn.call_extents(specs, args)
        cache = (key0, extents, target, tuple(sorted(fixed)))
        got = self._resolutions.get(cache)
        if got is None:
            rkey = self._warm_key("resolution", target, key0, extents, tuple(sorted(fixed)))
            body = warm.read("resolution", rkey) if rkey is not None else None
            if body is not None and warm.record_state(body.get("record")) == body.get("state"):
                try:
                    got = warm.resolution_from_json(body["resolution"])
                except (KeyError, TypeError, ValueError):
                    got = None
            if got is None:
                got, record, keep = self._resolve(args, target, static_shapes, constexprs,
                                                  fixed, buckets, extents)
                if rkey is not None and keep:
                    warm.write("resolution", rkey, {
                        "resolution": warm.resolution_to_json(got), "record": record,
                        "state": warm.record_state(record)})
            self._resolutions[cache] = got
        return got

    def _resolve(self, args: Sequence[Any], target: str, static_shapes: Any,
                 constexprs: dict[str, Any], fixed: dict[str, Any], buckets: Any,
                 extents: Any) -> tuple[Resolution, str | None, bool]:
        """Resolve from the record of ``buckets`` (the record key's shapes), else by the
        model priced at the call's ``extents`` (``tunables.call_extents``).

        Returns the resolution, the tuning-record file consulted (None: none) and whether
        the outcome may be kept as a warm-start entry (not when a record was ignored with a
        warning: each process should say so)."""
        from . import tunables as tn

        space = self.tunables
        default = tn.defaults(space, fixed)
        fixed_names = tuple(fixed)
        if buckets is None:
            return Resolution(default, "default", "the extents are not known (array specs "
                              "without shapes): no record or model applies", fixed_names), \
                None, True
        key = self.record_key(args, constexprs, buckets, target, static_shapes)
        from tilec.runtime.records import load_record, record_path

        path = str(record_path(key))
        record = load_record(key)
        keep = record is not None or not os.path.exists(path)
        if record is not None:
            got = tn.recorded_config(record, space, fixed)
            if isinstance(got, str):
                import warnings

                from tilec.runtime.records import RecordWarning

                warnings.warn(f"tuning record {record_path(key)} ignored: {got}", RecordWarning,
                              stacklevel=3)
            else:
                return Resolution(got[0], "record", path, fixed_names, variant=got[1]), \
                    path, True
            keep = False
        if key.cost_basis == "none":
            return Resolution(default, "default", f"{target} has no cost basis to rank the "
                              f"configurations and no tuning record", fixed_names), path, keep

        def module_of(cfg: dict[str, Any]) -> tuple[ir.Module, str]:
            k, sp, vals = self.specialize(args, {**constexprs, **cfg}, static_shapes)
            return self.module_for(k, sp, vals), self.fn.__name__

        scores = tn.model_scores(module_of, target, tn.configurations(space, fixed), extents)
        best = tn.model_pick(scores)
        if best is None:
            why = scores[0].reason if scores else "no configuration"
            return Resolution(default, "default", f"no configuration was priced ({why})",
                              fixed_names, tuple(scores)), path, keep
        # compile at the thread count that was priced (the shape-generic plan may pick
        # another: the call's extents decide waves and underfill)
        variant: dict[str, Any] = {"threads": best.threads} if best.threads is not None else {}
        detail = f"{key.cost_basis} score {best.score:.6g}"
        if best.split_k is not None:  # a split of K priced lowest (plan/split_price.py)
            variant["split_k"] = best.split_k
            detail += (f"; split_k={best.split_k} (priced: {best.programs} programs, "
                       f"{best.k_steps} K steps unsplit)")
        return Resolution(dict(best.config), "model", detail, fixed_names, tuple(scores),
                          variant=variant), path, keep

    def record_key(self, args: Sequence[Any], constexprs: dict[str, Any], buckets: Any,
                   target: str, static_shapes: bool | Sequence[str] = False) -> Any:
        """The tuning-record key of a call: the kernel captured with every tunable at its
        declared default (whatever the call fixes), the specialization without the
        tunables, the shape bucket, the target and its device."""
        from .tunables import defaults, record_key

        space = self.tunables
        rest = {k: v for k, v in constexprs.items() if k not in space}
        key, specs, values = self.specialize(args, {**rest, **defaults(space)}, static_shapes)
        spec = repr((key[0], tuple(kv for kv in key[1] if kv[0] not in space)))
        return record_key(self.module_for(key, specs, values), self.fn.__name__, spec,
                          buckets, target)

    def __call__(self, *args: Any, **constexprs: Any) -> None:
        """Compile for the default target (cached) and run with ``args``.

        A call whose signature was seen before (the ``compile`` cache's fast key) with an
        executable that ran before goes straight to the executable's ``run`` (its binding
        cache), as ``Compiled.run`` would."""
        # as compile() files this call (target=None, static_shapes=False, variant=None);
        # keywords naming those options never match a filed key
        _, compiled = self._fast_hit(_default_target(), args, constexprs, False, None)
        try:
            if compiled is not None:
                hot = compiled._hot
                if hot is not None and hot[0] is compiled._exe:
                    hot[1](args, compiled.check_args)
                else:
                    compiled.run(args)
                return
            compiled = self.compile(*args, **constexprs)
            compiled.run(args)
        except ir.UserError as e:
            raise e.with_traceback(None) from None

    def __repr__(self) -> str:
        return f"<tc.kernel {self.__name__}>"


_FAST_ENTRIES = 1024
"""Calls remembered by their argument signature (``_fast_key``) per kernel."""


_TUPLE_SHAPED: set[type] = set()
"""Array types seen with a tuple ``shape`` and a ``dtype`` (keyed without a copy)."""


def _fast_key(target: str, args: Sequence[Any], constexprs: dict[str, Any],
              static_shapes: Any, variant: Any) -> tuple | None:
    """What a call's compiled kernel depends on, cheaply: the target, each array's type,
    element type and extents, each scalar's type, the keywords. None when the keywords do
    not sort; the caller treats a key that does not hash the same way (the full path)."""
    sig = []
    for a in args:
        t = type(a)
        if t in _TUPLE_SHAPED:
            sig.append((t, a.dtype, a.shape))
            continue
        shape = getattr(a, "shape", None)
        if shape is not None and hasattr(a, "dtype"):
            if isinstance(shape, tuple):  # numpy's, torch.Size: hashable as it is
                _TUPLE_SHAPED.add(t)
            sig.append((t, a.dtype, tuple(shape)))
        elif isinstance(a, ArraySpec):
            sig.append((ArraySpec, repr(a.dtype), a.shape))
        else:
            sig.append(type(a))
    try:
        return (target, tuple(sig), tuple(sorted(constexprs.items())) if constexprs else (),
                static_shapes if isinstance(static_shapes, bool) else tuple(static_shapes),
                None if variant is None else tuple(sorted(variant.items())))
    except TypeError:  # keywords that do not sort
        return None


_UNSET = object()

_DEFAULT_TARGET: list[str] = []
"""The probed default target of this process (``runtime.default_target`` probes every
target; a call of a kernel should not)."""


def _default_target() -> str:
    """``TILEC_TARGET`` when set, else ``runtime.default_target()``, probed once."""
    env = getenv("TILEC_TARGET")
    if env:
        return env
    if not _DEFAULT_TARGET:
        from tilec.runtime import default_target

        _DEFAULT_TARGET.append(default_target())
    return _DEFAULT_TARGET[0]


def _load_warm(key: str, target: str) -> Any:
    """The executable of launch entry ``key`` (None: no entry, or it cannot be loaded)."""
    body = warm.read("launch", key)
    if body is None or body.get("target") != target:
        return None
    from tilec.driver import load_launch

    try:
        return load_launch(target, body["record"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError):
        return None  # a damaged record: compile again (and overwrite it)


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


class DeviceFunction:
    """A ``@tc.func`` helper: inlined into the kernel at each call."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        """The Python function."""
        self._source: tuple[ast.FunctionDef, SourceInfo] | None = None

    def sub_capture(self, ctx: CaptureContext, builder: ir.Builder, args: list[Any],
                    node: ast.AST, caller: Capture) -> Capture:
        """A capture of this helper's body with its parameters bound to ``args``."""
        if self._source is None:
            try:
                self._source = _parse(self.fn)
            except TileSyntaxError as e:
                raise caller.error(node, e.message) from None
        fn_node, src = self._source
        params = [a.arg for a in fn_node.args.args]
        defaults = fn_node.args.defaults
        if not len(params) - len(defaults) <= len(args) <= len(params):
            raise caller.error(node, f"{self.fn.__name__}() takes {len(params)} arguments, got "
                               f"{len(args)}")
        env = dict(zip(params, args))
        py_defaults = self.fn.__defaults__ or ()
        for name, d in zip(params[len(params) - len(py_defaults):], py_defaults):
            env.setdefault(name, d)
        return Capture(ctx, builder, fn_node, src, self.fn.__globals__, _closure(self.fn), env,
                       is_kernel=False)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.fn.__name__} is a @tc.func; call it from inside a @tc.kernel")


def kernel(fn: Callable[..., Any]) -> Kernel:
    """Decorator: make ``fn`` a tile kernel."""
    return Kernel(fn)


def func(fn: Callable[..., Any]) -> DeviceFunction:
    """Decorator: make ``fn`` a helper that kernels inline where they call it."""
    return DeviceFunction(fn)


# ----------------------------------------------------------------- building IR


def _attr_value(name: str, v: Any) -> Any:
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, tuple):
        return tuple(_attr_value(name, e) for e in v)
    if isinstance(v, DType):
        return v.name
    return repr(v)


def build_module(k: Kernel, specs: list[_ArgSpec], values: dict[str, Any]) -> ir.Module:
    """Capture ``k`` specialized on ``specs`` and ``values`` into a verified module."""
    fn_node, src = k.source()
    arg_types: list[ir.Type] = []
    symbols: list[str] = []
    bindings: list[tuple[int, int]] = []
    for i, s in enumerate(specs):
        if s.kind == "array":
            dims: list[Any] = []
            for axis, e in enumerate(s.shape):
                if e is None:
                    sym = f"{s.name}_{axis}"
                    symbols.append(sym)
                    bindings.append((i, axis))
                    dims.append(ir.Dim(sym))
                else:
                    dims.append(int(e))
            arg_types.append(ir.MemoryType(dims, s.dtype, "global"))
        else:
            arg_types.append(s.dtype)
    attrs = {
        "kernel": True,
        "param_names": tuple(s.name for s in specs),
        "shape_symbols": tuple(symbols),
        "shape_bindings": tuple(bindings),
        "constexprs": tuple((n, _attr_value(n, v)) for n, v in values.items()),
    }
    line, col, _ = src.position(fn_node)
    fn = ir.Function(k.fn.__name__, arg_types + [ir.index] * len(symbols), [],
                     [s.name for s in specs] + symbols, attrs,
                     ir.Location(src.filename, line, col))
    module = ir.Module([fn])
    ctx = CaptureContext(fn)
    env: dict[str, Any] = {}
    for s, a in zip(specs, fn.args):
        if s.kind == "array":
            env[s.name] = MemVal(a)
        else:
            env[s.name] = ScalarVal(a, Affine.atom(a) if a.type is ir.index else None)
    for sym, a in zip(symbols, fn.args[len(specs):]):
        ctx.symbols[sym] = a
    for name, v in values.items():
        env[name] = _constexpr_value(k, name, v, fn_node, src)
    builder = CaptureBuilder(ir.InsertionPoint.at_end(fn.entry), fn.loc, ctx)
    cap = Capture(ctx, builder, fn_node, src, k.fn.__globals__, _closure(k.fn), env)
    cap.capture_body()
    builder.create("return", [], loc=ir.Location(src.filename, src.position(fn_node)[0], 0))
    sink_into_nests(fn)
    _erase_dead_values(fn)
    fuse_map_chains(fn)
    _verify(module)
    return module


_COMPUTING = ("serial", "pipeline", "if", "yield")
"""Control operations that, around pure work and reads, only compute values."""


def _writes_nothing(op: ir.Operation) -> bool:
    """Whether ``op`` and everything nested in it only compute values (pure work, reads and
    the loops and branches around them): erasing it when its results are unused changes no
    output."""
    return all(o.opdef.effect in ("pure", "read") or o.name in _COMPUTING for o in op.walk())


def _erase_dead_values(fn: ir.Function) -> None:
    """Drop values nothing uses: pure operations (e.g. the stop of a slice, an unused
    expression), reductions, reads and views, and loops and branches that only compute
    results nobody reads (an accumulator loop whose product is never stored). Stores,
    atomics, checks, barriers and the grid nest always stay.

    One pass in reverse pre-order visits users before their operands, so dead chains go at
    once.
    """
    for op in reversed(list(fn.walk())):
        if not op.is_attached or op.name in ("parallel", "yield", "return") \
                or any(r.has_uses for r in op.results):
            continue
        if op.opdef.effect == "pure" and op.results:  # views and reductions included
            op.erase()
        elif op.name in ("load", "load_scalar", "gather", "serial", "pipeline", "if") \
                and _writes_nothing(op):
            op.erase()


def _constexpr_value(k: Kernel, name: str, v: Any, node: ast.FunctionDef, src: SourceInfo
                     ) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (bool, int, float, str, DType)) or v is None:
        return v
    if isinstance(v, tuple) and all(isinstance(e, (bool, int, float, str)) for e in v):
        return v
    t = dtype_from_numpy(v) if isinstance(v, (type, np.dtype)) else None
    if t is not None:
        from .dtypes import dtype_of_ir

        return dtype_of_ir(t)
    raise TileSyntaxError.at(node, f"constexpr {name} must be a number, a string, a dtype or a "
                             f"tuple of numbers, got {type(v).__name__}", src)


def _verify(module: ir.Module) -> None:
    """Verify the captured module; a broken invariant is reported at its source location."""
    try:
        ir.verify(module)
    except ir.VerificationError as e:
        loc = e.op.loc if e.op is not None else ir.UNKNOWN
        line = linecache.getline(loc.filename, loc.line).rstrip("\n") if loc.known else ""
        raise TileSyntaxError(f"the kernel breaks TileIR invariant {e.invariant}: {e.reason}",
                              loc.filename, loc.line, loc.col, loc.end_col, line) from e


# ----------------------------------------------------------------- compiled


def _as_kernel(fn: Any) -> Kernel:
    if isinstance(fn, Kernel):
        return fn
    if isinstance(fn, DeviceFunction):
        raise ArgumentError(f"{fn.fn.__name__} is a @tc.func helper, not a kernel")
    if not callable(fn):
        raise ArgumentError(f"expected a @tc.kernel function, got {type(fn).__name__}")
    k = getattr(fn, "__tilec_kernel__", None)
    if k is None:
        k = Kernel(fn)
        try:
            fn.__tilec_kernel__ = k
        except AttributeError:
            pass
    return k


def compile(fn: Any, *args: Any, target: str | None = None,
            static_shapes: bool | Sequence[str] = False, **constexprs: Any) -> Compiled:
    """Specialize ``fn`` on example ``args`` and ``constexprs`` and capture it (cached).

    ``args`` are the runtime arguments (arrays, ``tc.array`` specs, scalars or
    dtypes for scalars); ``static_shapes=True`` (or a list of parameter names)
    makes array extents static instead of symbolic.
    """
    try:
        return _as_kernel(fn).compile(*args, target=target, static_shapes=static_shapes,
                                      **constexprs)
    except ir.UserError as e:
        raise e.with_traceback(None) from None


def simulate(fn: Any, args: Sequence[Any], target: str = "cuda:sm_90",
             constexprs: dict[str, Any] | None = None, *,
             max_groups: int | None = None) -> None:
    """Capture ``fn``, run the ``simt:<profile>`` pipeline (plan, schedule, machine) and run
    the Machine TileIR in the SIMT simulator (arrays written in place); ``max_groups`` stops
    after that many groups."""
    from tilec.exec.profiles import get_profile, resolve_profile_name
    from tilec.targets.reference.simt import simulate_module

    get_profile(target)  # an unknown profile is the user's error, named before capture
    compiled = _as_kernel(fn).compile(*args, target="simt:" + resolve_profile_name(target),
                                      **(constexprs or {}))
    compiled.check_args(args)  # what a call of any compiled kernel checks first
    simulate_module(compiled.executable().module, compiled.fn_name, list(args),
                    max_groups=max_groups)


def interpret(fn: Any, *args: Any, **constexprs: Any) -> None:
    """Compile for the ``reference`` interpreter and run with ``args``."""
    try:
        _as_kernel(fn).compile(*args, target="reference", **constexprs).run(args)
    except ir.UserError as e:
        raise e.with_traceback(None) from None
