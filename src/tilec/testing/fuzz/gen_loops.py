"""Loops with loop-carried state: ``tc.serial``, ``range``, stepped loops and ``tc.pipeline``
(a load stage and a compute stage), snapshots (``old = acc``) and runtime branches on loop
variables and scalar arguments.

Trip counts include zero (the state keeps its initial value). A snapshot is
assigned before the loop too, so it is defined when the loop runs no
iteration; after the loop it holds the state before the last update.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .gen_elementwise import Bin, Num
from .gen_windows import loaded
from .generator import STATEMENTS, Gen, StmtMaker
from .numerics import DTYPES
from .program import Env, Expr, Let, Stmt, Var

__all__ = ["Loop", "If", "Cond"]


@dataclass
class Cond:
    """A runtime condition: ``name % 2 == 0``, ``name > c`` (index or i32) or ``name > 0.0``."""

    kind: str
    """``even`` or ``gt``."""
    name: str
    """An index local or a scalar parameter."""
    const: int | float = 0
    """What ``gt`` compares with."""

    def render(self) -> str:
        if self.kind == "even":
            return f"{self.name} % 2 == 0"
        return f"{self.name} > {self.const!r}"

    def value(self, env: Env) -> bool:
        if self.name in env.idx:
            v = env.idx[self.name]
        else:
            v = float(env.scalars[self.name].a)
        if self.kind == "even":
            return int(v) % 2 == 0
        return bool(v > self.const)


@dataclass
class If(Stmt):
    """``if cond:`` / ``else:`` over lists of statements."""

    cond: Cond
    """The runtime condition."""
    then: list[Stmt]
    """Run when it holds."""
    orelse: list[Stmt] = field(default_factory=list)
    """Run otherwise."""

    def render(self, lines: list[str], indent: int) -> None:
        pad = "    " * indent
        lines.append(pad + f"if {self.cond.render()}:")
        for s in self.then:
            s.render(lines, indent + 1)
        if self.orelse:
            lines.append(pad + "else:")
            for s in self.orelse:
                s.render(lines, indent + 1)

    def model(self, env: Env) -> None:
        for s in (self.then if self.cond.value(env) else self.orelse):
            s.model(env)

    def stmts(self) -> tuple[Stmt, ...]:
        return (*self.then, *self.orelse)

    features = ("branch",)


@dataclass
class Stage(Stmt):
    """``tc.stage()``: the cut between a pipeline's stages."""

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + "tc.stage()")

    def model(self, env: Env) -> None:
        pass


@dataclass
class Loop(Stmt):
    """A counted loop over ``range(lo, hi, step)``, rendered in one of the DSL's forms."""

    form: str
    """``serial``, ``range``, ``serial_step``, ``serial_kw``, ``range_step``, ``pipeline``."""
    iv: str
    """The induction variable."""
    lo: int
    """First value."""
    hi: int
    """Bound (exclusive)."""
    step: int
    """Positive step."""
    body: list[Stmt]
    """The body (a pipeline's holds a ``Stage``)."""
    unroll: int = 0
    """``unroll=`` of ``tc.serial`` (0: not given)."""
    window: int = 0
    """Pipelines: ``window=`` (0: not given)."""
    hi_source: str | None = None
    """``serial``: how the source writes the bound (an expression of the arguments' shapes
    equal to ``hi``); None: the number."""
    step_param: str | None = None
    """``serial_step``/``serial_kw``: a runtime i32 argument holding ``step`` that the
    source passes instead of the number (family ``steps``); None: the number."""

    def header(self) -> str:
        n = self.hi_source or self.hi
        if self.form == "serial":
            return f"tc.serial({n}" + (f", unroll={self.unroll})" if self.unroll else ")")
        if self.form == "range":
            return f"range({n})"
        step = self.step_param or self.step
        if self.form == "serial_step":
            return f"tc.serial({self.lo}, {self.hi}, {step})"
        if self.form == "serial_kw":  # the keyword form dsl.md documents
            return f"tc.serial({self.lo}, {self.hi}, step={step})"
        if self.form == "range_step":
            return f"range({self.lo}, {self.hi}, {self.step})"
        w = f", window={self.window}" if self.window else ""
        return f"tc.pipeline({n}, stages=2{w})"

    def render(self, lines: list[str], indent: int) -> None:
        lines.append("    " * indent + f"for {self.iv} in {self.header()}:")
        for s in self.body:
            s.render(lines, indent + 1)

    def model(self, env: Env) -> None:
        for i in range(self.lo, self.hi, self.step):
            env.idx[self.iv] = i
            for s in self.body:
                s.model(env)
        env.idx.pop(self.iv, None)

    def stmts(self) -> tuple[Stmt, ...]:
        return tuple(self.body)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"loop:{self.form}",) + (("loop:runtime_step",) if self.step_param else ())


def _update(g: Gen, acc: Var, x: Expr) -> Expr:
    s = g.s
    op = s.weighted([("add", 4), ("max", 2), ("mul_add", 2), ("sub", 1), ("replace", 1),
                     ("min", 1)])
    if op == "replace":
        return x
    if op == "mul_add":
        half = Num(0.5 if acc.dt.is_float else 3, acc.dt)
        return Bin("add", Bin("mul", acc, half, acc.shape, acc.dt), x, acc.shape, acc.dt)
    return Bin(op, acc, x, acc.shape, acc.dt)


def _cond(g: Gen, iv: str) -> Cond:
    s = g.s
    k = s.weighted([("even", 3), ("gt", 2), ("scalar", 2)])
    if k == "scalar":
        p = g.scalar(DTYPES["i32"] if s.draw(2) else DTYPES["f32"])
        return Cond("gt", p.name, 0 if p.dt.is_int else 0.0)
    return Cond(k, iv, s.draw(3))


def loop_stmt(g: Gen) -> list[Stmt]:
    """``acc = init``; a loop whose body computes ``x`` and updates ``acc`` (maybe under a
    branch, maybe with a snapshot)."""
    s = g.s
    shape = g.shape if s.draw(4) else (g.shape[::-1] if len(g.shape) == 2 else g.shape)
    dt = DTYPES[s.weighted([("f32", 6), ("f16", 1), ("bf16", 1), ("i32", 2)])]
    out: list[Stmt] = []
    acc = g.fresh("acc")
    out.append(Let(acc, loaded(g.tile(shape, dt, 2))))
    acc_v = g.bind(acc, shape, dt)
    form = s.weighted([("serial", 4), ("range", 2), ("serial_step", 2), ("range_step", 1),
                       ("pipeline", 3), ("serial_kw", 1)])
    n = s.weighted([(2, 4), (3, 3), (1, 2), (0, 1), (4, 2), (6, 1)])
    lo, step = 0, 1
    if form in ("serial_step", "range_step", "serial_kw"):
        lo = s.draw(3)
        step = s.between(1, 3)
        n = lo + step * n - s.draw(step)
    snap = None
    if s.coin(3) or form == "pipeline" and s.coin(2):
        snap = g.fresh("old")
        out.append(Let(snap, acc_v))
        g.bind(snap, shape, dt)
    iv = g.fresh("k")
    saved = len(g.scope)
    g.extra.setdefault("loop_ivs", []).append((iv, step))
    body: list[Stmt] = []
    if snap is not None:
        body.append(Let(snap, acc_v))
    x = g.fresh("x")
    pipeline = form == "pipeline"
    if pipeline:
        g.extra["force_load"] = True
    body.append(Let(x, loaded(g.tile(shape, dt, 2))))
    g.extra.pop("force_load", None)
    xv = Var(x, shape, dt)
    g.scope.append(xv)
    if pipeline:
        body.append(Stage())
    if s.coin(3):
        then = [Let(acc, _update(g, acc_v, xv))]
        orelse = [Let(acc, _update(g, acc_v, xv))] if s.draw(2) else []
        body.append(If(_cond(g, iv), then, orelse))
    else:
        body.append(Let(acc, _update(g, acc_v, xv)))
    if not pipeline and s.coin(5) and g.extra.get("loop_depth", 0) == 0:
        g.extra["loop_depth"] = 1
        body.extend(loop_stmt(g))
        g.extra["loop_depth"] = 0
        # the inner loop's state is local to this body
    g.extra["loop_ivs"].pop()
    del g.scope[saved:]
    unroll = s.pick([0, 0, 2, 4]) if form == "serial" else 0
    window = s.pick([0, 2, 3]) if pipeline else 0
    step_param = None
    if g.on("steps") and form in ("serial_step", "serial_kw") and s.coin(2):
        step_param = g.param("scalar", DTYPES["i32"], (), step).name  # a runtime step
    out.append(Loop(form, iv, lo, n, step, body, unroll, window, step_param=step_param))
    if s.coin(4):  # a branch on a scalar argument after the loop
        then = [Let(acc, _update(g, acc_v, loaded(g.tile(shape, dt, 1))))]
        out.append(If(_cond(g, "p0"), then, []))
    return out


STATEMENTS.append(StmtMaker("loops", "loop", 5, loop_stmt))
