"""The cpu target's realization plan: programs over OpenMP threads, vector lanes and register
micro-tiles, decided before the C is printed.

The driver's ``plan`` stage asks the cpu backend for this plan
(``CBackend.realization_plan``) beside the planner's report, the report shows it
(``tilec ir --after plan``, ``Compiled.plan``) and the emitter prints what it says.
Every number comes from the cpu profile's facts (``targets/cpu/profile.py``):

* **programs** (each outermost ``parallel`` whose inits are tiles): an OpenMP
  loop over the programs in dynamic chunks, about ``omp_chunks_per_thread`` per
  thread, taken at run time only when the programs together hold
  ``parallel_work`` estimated element operations (``work`` per program: the
  static tile elements it makes, ``m*n*k`` per ``mma``; loops count once). A
  nested ``parallel``, or one carrying scalars or memories, is a plain loop;
* **register micro-tiles** (each ``mma``): with f32 accumulators (f32, bf16 or
  f16 operands) or f64 ones (f64 operands), blocks of ``register_block_rows`` x
  ``register_block_vectors`` vectors of ``vector_lanes_<t>`` lanes, fused
  multiply-add for ``unordered_tree`` and separate steps for ``strict_fold``;
  any other combination, or an empty output, is the reference's scalar loop;
* **lane partials** (each ``reduce``): an ``unordered_tree`` reduction with a
  recognized merge over a suffix of the axes folds into ``reduction_lanes_32``
  (``_64`` for 64-bit states) partials merged pairwise; other suffix reductions
  fold row by row in source order; the rest update state arrays in row-major order;
* **tile storage** (the function): tiles stay on the stack unless they exceed
  ``stack_budget`` bytes, then they are thread-local (OpenMP worker stacks can be
  small).

Cost: one walk of the function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.exec import Fact, TargetProfile, get_profile
from tilec.targets.clike import prod
from tilec.targets.cpu.mma import MicroKernels

__all__ = ["CpuPlan", "ProgramsChoice", "MicroTileChoice", "ReductionChoice", "plan_cpu",
           "with_facts", "TUNABLE_FACTS"]

TUNABLE_FACTS = ("register_block_rows", "register_block_vectors", "vector_lanes_f32",
                 "vector_lanes_f64", "omp_chunks_per_thread", "parallel_work")
"""The facts a compilation may override (``LowerOptions.target_facts``, a tuning variant)."""


@dataclass(frozen=True)
class ProgramsChoice:
    """How one ``parallel`` runs its programs."""

    op: int
    """The ``parallel``'s number in its module (``ir.op_number``)."""
    location: str
    """Where it was written."""
    threaded: bool
    """True: an OpenMP loop over the programs (when they hold enough work); False: plain
    loops on the calling thread."""
    work: int
    """Estimated element operations of one program."""
    threshold: int
    """Total estimated work below which the OpenMP loop runs on one thread."""
    chunks_per_thread: int
    """Dynamic chunks per thread."""
    reason: str
    """Why."""


@dataclass(frozen=True)
class MicroTileChoice:
    """How one ``mma`` is computed."""

    op: int
    """The ``mma``'s number in its module."""
    location: str
    """Where it was written."""
    m: int
    """Output rows."""
    n: int
    """Output columns."""
    k: int
    """Reduction depth."""
    flavour: str | None
    """``f32``/``f64``: the vector micro-kernels of that element type; None: the scalar loop."""
    fused: bool
    """Fused multiply-add (``unordered_tree``) rather than separate steps."""
    rows: int
    """Rows of one register block (its full blocks; the remainder rows form one more)."""
    vectors: int
    """Vectors per row of one register block."""
    lanes: int
    """Lanes of one vector (the block is ``rows x vectors * lanes``)."""
    reason: str
    """Why."""


@dataclass(frozen=True)
class ReductionChoice:
    """How one ``reduce`` folds."""

    op: int
    """The ``reduce``'s number in its module."""
    location: str
    """Where it was written."""
    kind: str
    """``lanes`` (tree order: lane partials merged pairwise), ``rows`` (in order, one row at
    a time) or ``general`` (in order, state arrays over the kept coordinates)."""
    lanes: int
    """Partials per state for ``lanes`` (0 otherwise)."""
    reason: str
    """Why."""


@dataclass
class CpuPlan:
    """The cpu realization of one function."""

    function: str
    """The function planned."""
    tile_bytes: int
    """Estimated bytes of the tile arrays one call declares."""
    stack_budget: int
    """The profile's stack budget for them."""
    programs: dict[int, ProgramsChoice] = field(default_factory=dict)
    """Per ``parallel`` (by op number)."""
    micro_tiles: dict[int, MicroTileChoice] = field(default_factory=dict)
    """Per ``mma`` (by op number)."""
    reductions: dict[int, ReductionChoice] = field(default_factory=dict)
    """Per ``reduce`` (by op number)."""

    @property
    def thread_local(self) -> bool:
        """True when the tiles are thread-locals rather than stack arrays."""
        return self.tile_bytes > self.stack_budget

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-serializable."""
        return {"function": self.function, "tile_bytes": self.tile_bytes,
                "stack_budget": self.stack_budget, "thread_local": self.thread_local,
                "programs": [asdict(c) for c in self.programs.values()],
                "micro_tiles": [asdict(c) for c in self.micro_tiles.values()],
                "reductions": [asdict(c) for c in self.reductions.values()]}

    def render(self) -> str:
        """A readable summary."""
        where = "thread-local" if self.thread_local else "on the stack"
        out = [f"cpu realization of @{self.function}: tiles {where} "
               f"({self.tile_bytes} bytes, budget {self.stack_budget})"]
        for c in self.programs.values():
            how = (f"OpenMP over programs, {c.chunks_per_thread} dynamic chunks per thread, "
                   f"when programs x {c.work} >= {c.threshold}") if c.threaded else "plain loops"
            out.append(f"  parallel#{c.op} at {c.location}: {how} ({c.reason})")
        for t in self.micro_tiles.values():
            if t.flavour is None:
                how = "scalar loop"
            else:
                how = (f"{t.rows} x {t.vectors * t.lanes} {t.flavour} register blocks "
                       f"({t.vectors} vectors of {t.lanes}), "
                       f"{'fused multiply-add' if t.fused else 'separate multiply and add'}")
            out.append(f"  mma#{t.op} {t.m}x{t.n}x{t.k} at {t.location}: {how} ({t.reason})")
        for r in self.reductions.values():
            how = f"{r.lanes} lane partials" if r.kind == "lanes" else \
                "row by row, in order" if r.kind == "rows" else "state arrays, in order"
            out.append(f"  reduce#{r.op} at {r.location}: {how} ({r.reason})")
        return "\n".join(out)


def _fact(profile: TargetProfile, name: str) -> int:
    return int(profile.fact(name).value)


def program_work(block: ir.Block) -> int:
    """Element operations of one program, estimated from static tile sizes (loops count once)."""
    work = 1
    for op in block.walk():
        if op.name == "mma":
            a, b = (v.type for v in op.operands[:2])
            if all(d.is_static for d in (*a.shape, *b.shape)):
                work += int(a.shape[0]) * int(a.shape[1]) * int(b.shape[1])
            continue
        for r in op.results:
            t = r.type
            if isinstance(t, ir.TileType) and all(d.is_static for d in t.shape):
                work += prod(int(d) for d in t.shape)
    return work


def tile_bytes(fn: ir.Function) -> int:
    """An estimate of the bytes of tile arrays one call of ``fn`` declares (packs included)."""
    total = 0
    for op in fn.walk():
        if op.name == "mma":  # the packed copies of a and b (see mma.py), plus tf32 roundings
            total += sum(2 * prod(int(d) for d in v.type.shape) * 8 for v in op.operands[:2]
                         if all(d.is_static for d in v.type.shape))
        for r in op.results:
            t = r.type
            if isinstance(t, ir.TileType) and all(d.is_static for d in t.shape):
                total += prod(int(d) for d in t.shape) * (8 if t.dtype.bits > 32 else 4)
            elif isinstance(t, ir.MemoryType) and op.name == "memory":
                total += prod(int(d) for d in t.shape) * t.dtype.bytes
    return total


def _nested(op: ir.Operation) -> bool:
    p = op.parent_op
    while p is not None:
        if p.name == "parallel":
            return True
        p = p.parent_op
    return False


def _programs(op: ir.Operation, profile: TargetProfile) -> ProgramsChoice:
    rank = op.attr("rank")
    inits = op.operands[rank:]
    work = program_work(op.regions[0].entry)
    threshold = _fact(profile, "parallel_work")
    chunks = _fact(profile, "omp_chunks_per_thread")
    if _nested(op):
        threaded, why = False, "nested in another parallel, whose programs are the threads"
    elif not all(isinstance(v.type, ir.TileType) for v in inits):
        threaded, why = False, "it carries scalars or memories from program to program"
    else:
        threaded, why = True, "the outermost parallel; its programs are independent"
    return ProgramsChoice(ir.op_number(op), str(op.loc), threaded, work, threshold, chunks, why)


def _static(t: ir.Type) -> tuple[int, ...] | None:
    shape = getattr(t, "shape", None)
    if shape is None or not all(d.is_static for d in shape):
        return None
    return tuple(int(d) for d in shape)


def _micro_tile(op: ir.Operation, profile: TargetProfile) -> MicroTileChoice | None:
    av, bv, cv = op.operands
    a, b = _static(av.type), _static(bv.type)
    if a is None or b is None:
        return None  # the emitter refuses symbolic tiles with its own message
    policy: ir.ArithPolicy = op.attr("policy")
    at, ct = av.type.dtype, cv.type.dtype
    (m, k), n = a, b[1]
    flavour = MicroKernels.vector_flavour(at, ct, policy.precision)
    rows = _fact(profile, "register_block_rows")
    vectors = _fact(profile, "register_block_vectors")
    lanes = 0 if flavour is None else _fact(profile, f"vector_lanes_{flavour}")
    fused = policy.order == "unordered_tree"
    if flavour is None:
        why = f"{at} operands into a {ct} accumulator have no vector micro-kernel"
    elif not (m and n):
        flavour, why = None, "the output is empty"
    elif fused:
        why = "unordered_tree: fused multiply-add is a permitted rounding"
    else:
        why = "strict_fold: a separate multiply and add per step, in k order (bit-exact)"
    return MicroTileChoice(ir.op_number(op), str(op.loc), m, n, k, flavour, fused, rows,
                           vectors, lanes, why)


def _reduction(op: ir.Operation, profile: TargetProfile) -> ReductionChoice:
    axes = tuple(sorted(op.attr("axes")))
    rank = len(op.operand(0).type.shape)
    suffix = axes == tuple(range(rank - len(axes), rank))
    tree = ir.merge_laws(op) if op.attr("policy").kind == "unordered_tree" else None
    number, loc = ir.op_number(op), str(op.loc)
    if tree is not None and any(law in ir.ARG_LAWS for law in tree):
        # The index of an arg-reduction is the same in every order: fold it in source order.
        how = "rows" if suffix else "general"
        return ReductionChoice(number, loc, how, 0, f"merge {', '.join(tree)}: an "
                               "arg-reduction's index is the same in any order; in source order")
    if suffix and tree is not None:
        wide = any(r.type.dtype.bits > 32 for r in op.results)
        lanes = _fact(profile, "reduction_lanes_64" if wide else "reduction_lanes_32")
        return ReductionChoice(number, loc, "lanes", lanes,
                               f"unordered_tree with merge {', '.join(tree)} over trailing axes")
    if suffix:
        why = "no recognized merge" if op.attr("policy").kind == "unordered_tree" \
            else "strict_fold"
        return ReductionChoice(number, loc, "rows", 0, f"{why}: in source order")
    return ReductionChoice(number, loc, "general", 0, "the reduced axes are not trailing")


def with_facts(profile: TargetProfile, facts: Mapping[str, int], kind: str, source: str
               ) -> TargetProfile:
    """``profile`` with the named facts' values replaced (each tagged ``kind``/``source``);
    an unknown name is a ``KeyError``."""
    for name in facts:
        profile.fact(name)  # raises for a fact the profile does not have
    new = tuple(Fact(f.name, facts[f.name], kind, source) if f.name in facts else f
                for f in profile.facts)
    return dataclasses.replace(profile, facts=new)


def plan_cpu(module: ir.Module, fn_name: str, profile: TargetProfile | None = None) -> CpuPlan:
    """The cpu realization plan of ``@fn_name`` (the ``cpu`` profile unless given)."""
    profile = profile or get_profile("cpu")
    fn = module.lookup(fn_name)
    if fn is None:
        raise KeyError(f"module has no function @{fn_name}")
    plan = CpuPlan(fn_name, tile_bytes(fn), _fact(profile, "stack_budget"))
    for op in fn.walk():
        if op.name == "parallel":
            plan.programs[ir.op_number(op)] = _programs(op, profile)
        elif op.name == "mma":
            choice = _micro_tile(op, profile)
            if choice is not None:
                plan.micro_tiles[choice.op] = choice
        elif op.name == "reduce":
            plan.reductions[ir.op_number(op)] = _reduction(op, profile)
    return plan
