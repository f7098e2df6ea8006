"""A generated program: parameters, a grid, statements; its DSL source and its numpy model.

Every node has two meanings: ``render`` prints the DSL (``import tilec as
tc`` only) and ``model`` evaluates the same thing in numpy with
``numerics.MV`` values. The model runs the grid's instances one after
another in row-major order, which the DSL allows because generated
instances write disjoint windows (and atomics, which commute up to the
bounds the model carries).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .numerics import DT, DTYPES, MV, cast, exact

__all__ = ["Param", "Program", "Env", "Expr", "Stmt", "IndexExpr", "Var", "Let", "Store",
           "load_kernel", "render_number", "poison_for", "KERNEL_NAME"]

KERNEL_NAME = "fuzz_kernel"
"""The name of every generated kernel."""


def render_number(v: float | int | bool, dt: DT | None = None) -> str:
    """A Python literal for ``v`` (``float("nan")`` and friends for the special values)."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if dt is not None and not dt.is_float:
        return str(int(v))
    if isinstance(v, int) and (dt is None or not dt.is_float):
        return str(v)
    f = float(v)
    if np.isnan(f):
        return 'float("nan")'
    if np.isinf(f):
        return 'float("inf")' if f > 0 else 'float("-inf")'
    return repr(f)


def poison_for(dt: DT) -> Any:
    """What outputs are filled with before every run: NaN, or a sentinel for integers."""
    if dt.is_float:
        return np.nan
    if dt.is_bool:
        return True
    return np.array(-7, np.int64).astype(dt.np)[()]  # its bit pattern for unsigned types


@dataclass
class Param:
    """One kernel argument."""

    name: str
    """Parameter name in the kernel source."""
    role: str
    """``in`` (read), ``out`` (poisoned, written), ``atomic`` (seeded, updated) or ``scalar``."""
    dt: DT
    """Element type (or the scalar's type)."""
    shape: tuple[int, ...] = ()
    """Array extents (scalars: ())."""
    value: Any = None
    """A scalar's value (arrays are made from the program's data seed)."""


@dataclass
class IndexExpr:
    """``sum(coef * name) + const`` over index names (grid coordinates, loop variables)."""

    terms: tuple[tuple[int, str], ...] = ()
    """``(coefficient, name)`` pairs."""
    const: int = 0
    """The constant term."""

    def render(self) -> str:
        """Python source, e.g. ``p0 * 8 - 3``."""
        parts: list[str] = []
        for c, n in self.terms:
            if c == 0:
                continue
            t = n if c == 1 else f"{n} * {c}" if c > 0 else f"{n} * ({c})"
            parts.append(t)
        if self.const or not parts:
            parts.append(str(self.const))
        out = parts[0]
        for p in parts[1:]:
            out += f" - {p[1:]}" if p.startswith("-") else f" + {p}"
        return out

    def value(self, env: Env) -> int:
        """The value in ``env``."""
        return int(sum(c * env.idx[n] for c, n in self.terms) + self.const)


class Expr:
    """A tile-valued expression: ``shape``, ``dt``, ``render()``, ``model(env)``."""

    shape: tuple[int, ...]
    dt: DT
    features: tuple[str, ...] = ()

    def render(self) -> str:
        """DSL source of the expression."""
        raise NotImplementedError

    def model(self, env: Env) -> MV:
        """The value in ``env``."""
        raise NotImplementedError

    def children(self) -> tuple[Expr, ...]:
        """Sub-expressions (for feature statistics and checks)."""
        return ()


class Stmt:
    """A statement of the instance body: ``render(lines, indent)`` and ``model(env)``."""

    features: tuple[str, ...] = ()

    def render(self, lines: list[str], indent: int) -> None:
        """Append source lines at ``indent`` levels."""
        raise NotImplementedError

    def model(self, env: Env) -> None:
        """Run in ``env``."""
        raise NotImplementedError

    def exprs(self) -> tuple[Expr, ...]:
        """Expressions this statement evaluates directly."""
        return ()

    def stmts(self) -> tuple[Stmt, ...]:
        """Nested statements."""
        return ()


@dataclass
class Var(Expr):
    """A local name bound earlier."""

    name: str
    """The local's name."""
    shape: tuple[int, ...]
    """Its tile shape."""
    dt: DT
    """Its element type."""

    def render(self) -> str:
        return self.name

    def model(self, env: Env) -> MV:
        return env.vars[self.name]


@dataclass
class Let(Stmt):
    """``name = expr``."""

    name: str
    """The local assigned."""
    expr: Expr
    """Its new value."""

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + f"{self.name} = {self.expr.render()}")

    def model(self, env: Env) -> None:
        env.vars[self.name] = self.expr.model(env)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass
class Env:
    """The model's state while running one instance."""

    program: Program
    """The program being evaluated."""
    memories: dict[str, MV]
    """Current contents of every array argument (and scratch memories) as model values."""
    scalars: dict[str, MV]
    """Runtime scalar arguments as rank-0 values."""
    vars: dict[str, MV] = field(default_factory=dict)
    """Tile locals of the instance."""
    idx: dict[str, int] = field(default_factory=dict)
    """Index values: grid coordinates, loop variables, integer scalars."""


@dataclass
class Store(Stmt):
    """``P.tile(origin, shape).store(x)`` (or an atomic), through ``P`` or ``P.T``."""

    param: str
    """The array (or scratch memory) written."""
    origin: tuple[IndexExpr, ...]
    """The window's origin (in the viewed array's coordinates)."""
    expr: Expr
    """The value stored (its shape is the window's)."""
    kind: str = "store"
    """``store``, ``atomic_add``, ``atomic_max`` or ``atomic_min``."""
    transposed: bool = False
    """Write through the array view ``P.T``."""

    def render(self, lines: list[str], indent: int) -> None:
        base = f"{self.param}.T" if self.transposed else self.param
        org = ", ".join(o.render() for o in self.origin)
        shape = ", ".join(str(s) for s in self.expr.shape)
        comma = "," if len(self.origin) == 1 else ""
        lines.append("    " * indent + f"{base}.tile(({org}{comma}), ({shape}{comma})).{self.kind}("
                     f"{self.expr.render()})")

    def model(self, env: Env) -> None:
        val = self.expr.model(env)
        mem = env.memories[self.param]
        write_window(mem, tuple(o.value(env) for o in self.origin), val, self.kind,
                     self.transposed)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.expr,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("atomic",) if self.kind != "store" else ()


def window_index(mem_shape: tuple[int, ...], origin: tuple[int, ...], shape: tuple[int, ...],
                 transposed: bool) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """For a window of ``shape`` at ``origin``: the memory coordinates of each element (clipped)
    and the mask of elements inside the array. ``transposed`` reads through ``P.T``."""
    grids = np.indices(shape) if shape else np.zeros((0,), int)
    coords = [grids[d] + origin[d] for d in range(len(shape))]
    if transposed:
        coords = coords[::-1]
    inside = np.ones(shape, bool)
    for d, c in enumerate(coords):
        inside &= (c >= 0) & (c < mem_shape[d])
    clipped = tuple(np.clip(c, 0, max(mem_shape[d] - 1, 0)) for d, c in enumerate(coords))
    return clipped, inside


def write_window(mem: MV, origin: tuple[int, ...], val: MV, kind: str, transposed: bool) -> None:
    """Write ``val`` (broadcast, converted to the memory's type) into the in-range elements."""
    shape = val.shape
    idx, inside = window_index(mem.shape, origin, shape, transposed)
    v = cast(val, mem.dt)
    sel = tuple(c[inside] for c in idx)
    new_a = v.a[inside]
    new_e = v.e[inside]
    if kind == "store":
        mem.a[sel] = new_a
        mem.e[sel] = new_e
        return
    from .numerics import binary

    # Repeated addresses apply in row-major order, like the reference; each update's own
    # rounding becomes a bound when several updates meet at one element (order may vary).
    order = np.argsort(np.ravel_multi_index(sel, mem.shape), kind="stable") if sel[0].size \
        else np.zeros(0, int)
    for i in order:
        at = tuple(int(c[i]) for c in sel)
        old = MV(mem.a[at][None], mem.e[at][None], mem.dt)
        upd = MV(new_a[i][None], new_e[i][None], mem.dt)
        fn = {"atomic_add": "add", "atomic_max": "max", "atomic_min": "min"}[kind]
        r = binary(fn, old, upd)
        e = r.e[0]
        if fn == "add" and mem.dt.is_float:
            hits = mem_hits(mem)
            hits[at] += 1
            if hits[at] > 1:  # a second contribution: the two orders may round differently
                mag = abs(float(r.a[0])) + abs(float(old.a[0])) + abs(float(upd.a[0]))
                e = float(e) + 4 * mem.dt.u_op * (mag if np.isfinite(mag) else 0.0) \
                    + 2 * mem.dt.tiny
                if not np.isfinite(r.a[0]) and np.isfinite(old.a[0]) and np.isfinite(upd.a[0]):
                    e = np.inf
        mem.a[at] = r.a[0]
        mem.e[at] = e


def mem_hits(mem: MV) -> np.ndarray:
    """Per-element count of atomic updates so far (kept on the value)."""
    h = getattr(mem, "_hits", None)
    if h is None:
        h = np.zeros(mem.shape, np.int64)
        mem._hits = h  # type: ignore[attr-defined]
    return h


@dataclass
class Program:
    """A generated kernel: its parameters, grid and instance body."""

    params: list[Param]
    """Arguments in order."""
    grid: tuple[int, ...]
    """Grid extents (static)."""
    body: list[Stmt]
    """The instance body."""
    data_seed: int = 0
    """Seed of the input data."""
    specials: int = 0
    """How often inputs hold special values (0: never; k: about one in 2^(7-k))."""
    family_weights: dict[str, int] = field(default_factory=dict)
    """The feature families the program was drawn from (for the report)."""
    grid_source: tuple[str, ...] | None = None
    """How the source writes each grid extent (an expression of the arguments' shapes that
    equals it), None: as the numbers. Symbolic extents are what library kernels have."""

    # ---------------------------------------------------------------- source
    def source(self) -> str:
        """The module text: ``import tilec as tc`` and one ``@tc.kernel``."""
        sig = ", ".join(p.name + (f": {p.dt.tc}" if p.role == "scalar" and p.dt.name == "i64"
                                  else "") for p in self.params)
        lines = ["import tilec as tc", "", "", "@tc.kernel", f"def {KERNEL_NAME}({sig}):"]
        coords = ", ".join(f"p{d}" for d in range(len(self.grid)))
        extents = ", ".join(self.grid_source or tuple(str(g) for g in self.grid))
        lines.append(f"    for {coords} in tc.parallel({extents}):")
        body: list[str] = []
        for s in self.body:
            s.render(body, 2)
        lines.extend(body or ["        pass"])
        return "\n".join(lines) + "\n"

    def nodes(self) -> Iterator[Stmt | Expr]:
        """Every statement and expression of the body, each before what it holds."""

        def walk_e(e: Expr) -> Iterator[Expr]:
            yield e
            for c in e.children():
                yield from walk_e(c)

        def walk_s(s: Stmt) -> Iterator[Stmt | Expr]:
            yield s
            for e in s.exprs():
                yield from walk_e(e)
            for t in s.stmts():
                yield from walk_s(t)

        for s in self.body:
            yield from walk_s(s)

    def features(self) -> set[str]:
        """Every feature tag the program's nodes carry."""
        return {f for n in self.nodes() for f in n.features}

    # ------------------------------------------------------------------ data
    def make_args(self) -> list[Any]:
        """The arguments: seeded inputs, poisoned outputs, seeded atomic targets, scalars."""
        rng = np.random.default_rng(self.data_seed)
        out: list[Any] = []
        for p in self.params:
            if p.role == "scalar":
                out.append(int(p.value) if p.dt.is_int else float(p.value))
            elif p.role == "out":
                out.append(np.full(p.shape, poison_for(p.dt), p.dt.np))
            else:
                out.append(random_array(rng, p.shape, p.dt,
                                        self.specials if p.role == "in" else 0))
        return out

    def outputs(self) -> list[int]:
        """Indices of the arguments the kernel writes."""
        return [i for i, p in enumerate(self.params) if p.role in ("out", "atomic")]

    # ----------------------------------------------------------------- model
    def model(self, args: list[Any]) -> dict[int, MV]:
        """The expected value of every written argument, with its bounds."""
        memories: dict[str, MV] = {}
        scalars: dict[str, MV] = {}
        ints: dict[str, int] = {}
        for p, a in zip(self.params, args):
            if p.role == "scalar":
                scalars[p.name] = exact(np.asarray(a, p.dt.np), p.dt)
                if p.dt.is_int:
                    ints[p.name] = int(a)
            else:
                memories[p.name] = exact(np.array(a, copy=True), p.dt)
        for point in itertools.product(*(range(g) for g in self.grid)):
            env = Env(self, memories, scalars)
            env.idx.update(ints)
            for d, c in enumerate(point):
                env.idx[f"p{d}"] = c
            for s in self.body:
                s.model(env)
        return {i: memories[p.name] for i, p in enumerate(self.params)
                if p.role in ("out", "atomic")}


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dt: DT,
                 specials: int) -> np.ndarray:
    """Seeded values of ``dt``: small numbers, with signed zeros, infinities and NaN mixed in
    at a rate set by ``specials``."""
    n = int(np.prod(shape)) if shape else 1
    if dt.is_bool:
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.is_int:
        lo, hi = (-20, 21) if dt.bits > 8 else (-11, 12)
        return rng.integers(lo, hi, n).astype(dt.np).reshape(shape)
    scale = rng.choice([1.0, 4.0])
    v = rng.standard_normal(n) * scale
    if rng.integers(0, 3) == 0:  # values with short mantissas make exact sums more common
        v = np.round(v * 4) / 4
    if specials:
        rate = 2.0 ** (specials - 7)
        pick = rng.random(n) < rate
        v = np.where(pick, rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan], n), v)
    return v.astype(DTYPES[dt.name].np).reshape(shape)


def load_kernel(source: str, directory: str | None = None) -> tuple[Any, str]:
    """Write ``source`` to a fresh file and import it (capture needs real source text).

    Returns the kernel object and the file's path.
    """
    fd, path = tempfile.mkstemp(prefix="fuzz_", suffix=".py", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, KERNEL_NAME), path
