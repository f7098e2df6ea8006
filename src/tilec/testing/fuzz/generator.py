"""The program generator: feature families with weights, and the scope of typed tiles.

``generate(stream, weights)`` draws a whole ``Program`` from a choice stream.
Families contribute *producers* (ways to make a tile of a wanted shape and
type: a window, an elementwise expression, a reduction, an ``mma``...) and
*statements* (loops, nested nests, scratch memory) through the registries
below. The first option of every choice is the simplest, so the shrinker's
smaller streams give smaller programs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .choices import ChoiceStream
from .numerics import DT, DTYPES
from .program import Expr, IndexExpr, Param, Program, Stmt, Store, Var

__all__ = ["Gen", "Producer", "StmtMaker", "FAMILIES", "DEFAULT_WEIGHTS", "generate",
           "PRODUCERS", "STATEMENTS", "small_extent", "canonical_order"]

FAMILIES = ("windows", "elementwise", "reduce", "loops", "matrix", "parallel", "memory",
            "gemm", "arange", "steps", "scan", "exchange", "gather", "unsigned", "small_gemm",
            "shared", "bias_epilogue", "two_products")
"""The feature families, selectable with ``--features``."""

DEFAULT_WEIGHTS = {"windows": 3, "elementwise": 4, "reduce": 3, "loops": 3, "matrix": 3,
                   "parallel": 2, "memory": 2, "gemm": 0, "arange": 0, "steps": 0,
                   "scan": 0, "exchange": 0, "gather": 0, "unsigned": 0, "small_gemm": 0,
                   "shared": 0, "bias_epilogue": 0, "two_products": 0}
"""How often each family is drawn relative to the others. ``gemm`` (whole GEMM programs,
``gen_gemm``; ``small_gemm``: the same nest with f32 operands and tiles a metal:m1 group
holds), ``arange`` (coordinate tiles, ``gen_arange``), ``steps`` (runtime
loop steps, ``gen_loops``), ``scan`` (``tc.cumsum`` and friends, ``gen_scan``),
``exchange`` (``atomic_xchg``/``atomic_cas``, ``gen_exchange``), ``gather``
(data-dependent addresses, ``gen_gather``), ``unsigned`` (``u8``/``u16``/``u32`` among
the element types ``any_dt`` draws, with shifts in their elementwise arithmetic) and
``shared`` (a value read by several stores, ``gen_shared``) and ``bias_epilogue`` (a bias
row or a residual and an activation as the ``gemm`` programs' epilogue, ``gen_gemm``) and
``two_products`` (loops of two products per iteration, attention's shape without its
softmax, ``gen_two_products``) are off
unless asked for, so that other campaigns' streams stay as they were; named in
``--features`` without a weight each gets weight 1."""


@dataclass(frozen=True)
class Producer:
    """A way to make a tile of a wanted shape and type."""

    family: str
    """The family that owns it (its weight scales this one's)."""
    name: str
    """For statistics."""
    weight: int
    """Relative weight within the draw."""
    applies: Callable[[Gen, tuple[int, ...], DT], bool]
    """Whether it can make ``(shape, dt)`` here."""
    make: Callable[[Gen, tuple[int, ...], DT, int], Expr]
    """``make(gen, shape, dt, depth)``."""


@dataclass(frozen=True)
class StmtMaker:
    """A statement kind of the instance body."""

    family: str
    """The family that owns it."""
    name: str
    """For statistics."""
    weight: int
    """Relative weight."""
    make: Callable[[Gen], list[Stmt]]
    """Appends nothing itself; returns the statements to add (binding new scope entries)."""


PRODUCERS: list[Producer] = []
"""Every registered producer (filled by the family modules on import)."""
STATEMENTS: list[StmtMaker] = []
"""Every registered statement kind."""
PROGRAMS: dict[str, Callable[[Gen], Program]] = {}
"""Families that draw whole programs (``gen_gemm``): a program is one of theirs with the
probability of their weight among all the weights."""


def small_extent(s: ChoiceStream, big: bool = True) -> int:
    """A tile extent: mostly small and ragged-friendly, sometimes up to 128."""
    e = s.weighted([(1, 2), (2, 3), (4, 4), (3, 2), (8, 3), (5, 1), (16, 2), (7, 1),
                    (32, 1 if big else 0), (64, 1 if big else 0), (128, 1 if big else 0)])
    return e


@dataclass
class Gen:
    """Generation state: the stream, the program so far and the instance's scope."""

    s: ChoiceStream
    """Where every decision comes from."""
    weights: dict[str, int]
    """Family weights (0 disables a family)."""
    params: list[Param] = field(default_factory=list)
    """Arguments created so far."""
    grid: tuple[int, ...] = ()
    """The grid extents."""
    shape: tuple[int, ...] = ()
    """The instance's output tile shape."""
    scope: list[Var] = field(default_factory=list)
    """Tile locals visible here, in definition order."""
    index_names: list[str] = field(default_factory=list)
    """Index names an origin may use (grid coordinates and enclosing loop variables)."""
    budget: int = 40
    """Nodes left to draw (bounds program size)."""
    counter: int = 0
    """For fresh names."""
    in_nest: int = 0
    """Nesting depth of inner ``parallel`` nests (no loops with carried state inside)."""
    forbid: set[str] = field(default_factory=set)
    """Producer names not allowed here (e.g. nested loops in a pipeline stage)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Family-private state."""

    def on(self, family: str) -> bool:
        """True when ``family`` has a positive weight."""
        return self.weights.get(family, 0) > 0

    def fresh(self, prefix: str) -> str:
        """A new local name."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------ parameters
    def param(self, role: str, dt: DT, shape: tuple[int, ...] = (), value: Any = None) -> Param:
        """A new argument."""
        prefix = {"in": "X", "out": "Y", "atomic": "Z", "scalar": "s"}[role]
        n = sum(1 for p in self.params if p.role == role)
        p = Param(f"{prefix}{n}", role, dt, shape, value)
        self.params.append(p)
        return p

    def input_array(self, dt: DT, shape: tuple[int, ...]) -> Param:
        """An input of ``dt`` and rank ``len(shape)`` (reused when one exists), extents drawn
        around ``shape`` so windows are ragged."""
        same = [p for p in self.params if p.role == "in" and p.dt is dt
                and len(p.shape) == len(shape)]
        if same and (len(same) >= 2 or self.s.draw(3) < 2):
            return self.s.pick(same)
        ext = []
        for d, e in enumerate(shape):
            g = self.grid[d] if d < len(self.grid) else 1
            ext.append(max(1, g * e + self.s.between(-(e - 1), e) if e > 1 else
                           g + self.s.between(0, 2)))
        return self.param("in", dt, tuple(ext))

    def offset_scalar(self) -> Param:
        """A runtime ``tc.int64`` offset argument for window origins (sometimes large, so that
        ``offset * 65536`` needs 64-bit index arithmetic)."""
        same = [p for p in self.params if p.role == "scalar" and p.dt.name == "i64"]
        if same and self.s.draw(2) == 0:
            return self.s.pick(same)
        return self.param("scalar", DTYPES["i64"], (), self.s.pick([0, 1, -1, 3, 65536]))

    def scalar(self, dt: DT) -> Param:
        """A runtime scalar argument of ``dt`` (f32 or i32), reused when one exists."""
        same = [p for p in self.params if p.role == "scalar" and p.dt is dt]
        if same and self.s.draw(2) == 0:
            return self.s.pick(same)
        if dt.is_float:
            v = self.s.pick([0.5, 1.0, -2.0, 3.0, 0.0, -0.0, 1.5, -0.75,
                             float("inf"), float("nan")])
        else:
            v = self.s.pick([1, 0, 3, -2, 5, -1, 7])
        return self.param("scalar", dt, (), v)

    # ------------------------------------------------------------------ tiles
    def tile(self, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
        """An expression of ``shape`` and ``dt`` drawn from the live producers."""
        self.budget -= 1
        if self.budget <= 0:
            depth = 0
        live = [p for p in PRODUCERS if p.name not in self.forbid
                and (p.family == "base" or self.on(p.family))
                and (depth > 0 or p.name in _LEAVES) and p.applies(self, shape, dt)]
        opts = [(p, p.weight * (self.weights.get(p.family, 1) if p.family != "base" else 3))
                for p in live]
        prod = self.s.weighted(opts)
        with self.s.span(prod.name):
            return prod.make(self, shape, dt, depth - 1 if prod.name not in _LEAVES else 0)

    def var(self, shape: tuple[int, ...], dt: DT) -> Var | None:
        """A visible local of ``shape`` and ``dt`` (the latest more often), or None."""
        c = [v for v in self.scope if v.shape == shape and v.dt is dt]
        if not c:
            return None
        return c[-1 - self.s.draw(len(c))] if len(c) > 1 else c[0]

    def bind(self, name: str, shape: tuple[int, ...], dt: DT) -> Var:
        """Add a local to the scope."""
        v = Var(name, shape, dt)
        self.scope.append(v)
        return v

    def origin_term(self, axis: int, extent: int) -> IndexExpr:
        """An origin along ``axis`` for a window of ``extent``: the instance's block, shifted
        (ragged and negative origins included) or a fixed corner."""
        coord = f"p{axis}" if axis < len(self.grid) else None
        kind = self.s.draw(4)
        shift = 0
        if self.on("windows") and self.s.coin(2):
            shift = self.s.between(-extent, extent)
        if coord is None or kind == 3:
            return IndexExpr((), shift)
        return IndexExpr(((extent, coord),), shift)

    def float_dt(self) -> DT:
        """A float type (f32 most often)."""
        return DTYPES[self.s.weighted([("f32", 6), ("f16", 2), ("bf16", 2), ("f64", 1)])]

    def any_dt(self) -> DT:
        """Any element type the DSL has (floats most often)."""
        opts = [("f32", 8), ("f16", 3), ("bf16", 3), ("i32", 3), ("f64", 1), ("i8", 1),
                ("i16", 1), ("i64", 1), ("i1", 1)]
        if self.on("unsigned"):  # no extra option otherwise: recorded streams replay
            opts += [("u32", 3), ("u8", 2), ("u16", 2)]
        return DTYPES[self.s.weighted(opts)]


_LEAVES = {"var", "window", "full", "arange"}
"""Producers that stop recursion."""


_MODULE_ORDER = ("gen_elementwise", "gen_windows", "gen_loops", "gen_matrix", "gen_memory",
                 "gen_parallel", "gen_reduce", "gen_gemm", "gen_arange", "gen_scan",
                 "gen_exchange", "gen_gather", "gen_shared")
"""The order the family modules register in when ``families`` imports them: choices index
the registered lists, so the lists are kept in this order whatever imported a family
module first (a test importing ``gen_matrix`` directly used to change every program)."""


def canonical_order(makers: list[Any]) -> None:
    """Sort registered producers or statements by family module, keeping each module's own
    registration order (``families`` calls this once every family has registered)."""
    makers.sort(key=lambda m: _MODULE_ORDER.index(m.make.__module__.rpartition(".")[2]))


def generate(stream: ChoiceStream, weights: dict[str, int] | None = None) -> Program:
    """Draw one program from ``stream``."""
    from . import families  # noqa: F401  (registers the producers and statements)

    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    g = Gen(stream, w)
    s = stream
    for family, make in PROGRAMS.items():
        if g.on(family) and s.draw(sum(w.values())) < w[family]:
            with s.span(family):
                return make(g)
    grid_rank = 1 + s.draw(2)
    g.grid = tuple(s.weighted([(1, 1), (2, 3), (3, 2), (4, 1)]) for _ in range(grid_rank))
    rank = max(grid_rank, 1 + s.draw(2))
    g.shape = tuple(small_extent(s) for _ in range(rank))
    while _size(g.shape) > 4096:
        g.shape = tuple(max(1, e // 2) for e in g.shape)
    g.index_names = [f"p{d}" for d in range(grid_rank)]
    body: list[Stmt] = []
    n_stmts = s.draw(4)
    for _ in range(n_stmts):
        live = [(m, m.weight * w.get(m.family, 0)) for m in STATEMENTS]
        if not any(wt for _, wt in live):
            break
        with s.span("stmt"):
            maker = s.weighted(live)
            body.extend(maker.make(g))
    n_out = 1 + s.draw(2)
    for _ in range(n_out):
        with s.span("output"):
            body.append(output_store(g))
    data_seed = s.draw(1 << 16)
    specials = s.draw(6)
    return Program(g.params, g.grid, body, data_seed, specials, w)


def _size(shape: tuple[int, ...]) -> int:
    n = 1
    for e in shape:
        n *= e
    return n


def own_block(g: Gen, role: str, dt: DT) -> tuple[Param, tuple[IndexExpr, ...]]:
    """A new output (or atomic target) whose extents are drawn around the grid of instance
    blocks (ragged or with a border no instance writes), and this instance's block origin."""
    s = g.s
    shape = g.shape
    shifts = [s.draw(2) for _ in shape]
    ext, origin = [], []
    for d, e in enumerate(shape):
        gd = g.grid[d] if d < len(g.grid) else 1
        ragged = s.between(-(e - 1), e) if e > 1 else s.draw(2)
        ext.append(max(1, gd * e + shifts[d] + ragged))
        origin.append(IndexExpr(((e, f"p{d}"),), shifts[d]) if d < len(g.grid)
                      else IndexExpr((), shifts[d]))
    return g.param(role, dt, tuple(ext)), tuple(origin)


def output_store(g: Gen) -> Store:
    """A store of a drawn tile into a new output, each instance at its own block."""
    s = g.s
    dt = g.any_dt()
    shape = g.shape
    transposed = len(shape) == 2 and g.on("windows") and s.coin(5)
    wshape = shape[::-1] if transposed else shape
    expr_dt = dt if s.draw(3) else g.any_dt()
    if expr_dt.is_bool and not dt.is_bool and s.draw(2):
        expr_dt = dt
    expr = g.tile(wshape, expr_dt, 3)
    p, origin = own_block(g, "out", dt)
    if transposed:
        origin = origin[::-1]
    return Store(p.name, tuple(origin), expr, "store", transposed)
