"""Tunable constexpr parameters and how a call resolves them (``docs/guide/tuning.md``).

A kernel declares a parameter's alternatives as its default::

    def matmul(A, B, C, BM: tc.constexpr = tc.tunable(64, 128, 256), ...)

Capture never sees a ``Tunable``: before a call specializes, every tunable the
caller did not fix by keyword is resolved to one value, in this order:

1. **record**: a tuning record for this kernel, specialization, shape bucket,
   target and device (written by ``tilec.tune``) names the configuration;
2. **model**: the target plans with a cost basis, so every configuration of the
   space is captured and planned with the call's extents and the configuration
   whose selected plans score lowest is taken (configurations the planner cannot
   realize, or that fail to capture, are skipped with their reason);
3. **default**: the declared default (``default=``, else the first value).

The outcome is a ``Resolution`` kept on the ``Compiled`` (``compiled.selection``),
so a user can see which configuration runs and why.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.ir import ArgumentError

from .dtypes import DType

__all__ = ["Tunable", "tunable", "Resolution", "ConfigScore", "space", "configurations",
           "shape_bucket", "call_extents", "plan_configuration", "model_scores", "SOURCES"]

SOURCES = ("fixed", "record", "model", "default")
"""Where a resolved configuration came from (``Resolution.source``)."""


def _check_value(v: Any) -> Any:
    if isinstance(v, (bool, int, float, str, DType)):
        return v
    if isinstance(v, tuple) and all(isinstance(e, (bool, int, float, str)) for e in v):
        return v
    raise ArgumentError(f"tc.tunable(): a value must be a number, a string, a dtype or a "
                        f"tuple of numbers, got {type(v).__name__} {v!r}")


class Tunable:
    """The alternatives of one constexpr parameter: ``tc.tunable(64, 128, 256)``."""

    __module__ = "tilec"

    def __init__(self, *values: Any, default: Any = None) -> None:
        if not values:
            raise ArgumentError("tc.tunable() needs at least one value")
        vals = tuple(_check_value(v) for v in values)
        if len(set(map(repr, vals))) != len(vals):
            raise ArgumentError(f"tc.tunable{vals}: a value is repeated")
        if default is not None and default not in vals:
            raise ArgumentError(f"tc.tunable{vals}: default {default!r} is not one of the "
                                f"values")
        self.values: tuple[Any, ...] = vals
        """The alternatives, in declaration order."""
        self.default: Any = vals[0] if default is None else default
        """The value used without a record or a model (``default=``, else the first)."""

    def __repr__(self) -> str:
        vals = ", ".join(map(repr, self.values))
        extra = "" if self.default == self.values[0] else f", default={self.default!r}"
        return f"tc.tunable({vals}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tunable) and (self.values, self.default) == \
            (other.values, other.default)

    def __hash__(self) -> int:
        return hash((self.values, repr(self.default)))


def tunable(*values: Any, default: Any = None) -> Tunable:
    """Declare a constexpr parameter's alternatives (its default annotation's value)."""
    return Tunable(*values, default=default)


@dataclass(frozen=True)
class ConfigScore:
    """What the model says of one configuration."""

    config: Mapping[str, Any]
    """The tunable values."""
    score: float | None
    """The summed kernel score of the selected plans (None: not scored, see ``reason``)."""
    reason: str = ""
    """Why there is no score (capture failed, no plan, no cost basis), else empty."""
    threads: int | None = None
    """The thread count of the plans that were priced, when every group selected the same
    one (a call that takes this configuration compiles at it: the planner's shape-generic
    choice may differ from the one priced with the call's extents); with ``split_k``, the
    thread count the split was priced at."""
    programs: int | None = None
    """The programs the priced groups launch at the call's extents (None: not known)."""
    k_steps: int | None = None
    """The fewest iterations of a matrix product's accumulating loop at the call's
    extents (None: not known): how far a split of K can go."""
    split_k: int | None = None
    """The split of K that ``score`` prices (``plan/split_price.py``: the lowest of the
    unsplit plan and its splits); None: unsplit."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"config": {k: _json_value(v) for k, v in self.config.items()},
                "score": self.score, "reason": self.reason, "threads": self.threads,
                "programs": self.programs, "k_steps": self.k_steps, "split_k": self.split_k}


@dataclass(frozen=True)
class Resolution:
    """How a call's tunable parameters were resolved."""

    values: Mapping[str, Any]
    """Every tunable parameter's value (fixed ones included)."""
    source: str
    """``fixed`` (every tunable given by keyword), ``record``, ``model`` or ``default``."""
    detail: str = ""
    """The record's file, the model's score, or why the default was used."""
    fixed: tuple[str, ...] = ()
    """The tunable parameters the caller fixed by keyword."""
    scores: tuple[ConfigScore, ...] = field(default=(), repr=False)
    """The model's score of every configuration it looked at (source ``model``)."""
    variant: Mapping[str, Any] = field(default_factory=dict)
    """The plan-space choices a record fixed (``VARIANT_FIELDS``), or for a model pick the
    thread count its plans were priced at; empty otherwise."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"values": {k: _json_value(v) for k, v in self.values.items()},
                "source": self.source, "detail": self.detail, "fixed": list(self.fixed),
                "variant": dict(self.variant),
                "scores": [s.to_json() for s in self.scores]}

    def __str__(self) -> str:
        vals = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{vals} ({self.source}{': ' + self.detail if self.detail else ''})"


def _json_value(v: Any) -> Any:
    if isinstance(v, DType):
        return v.name
    if isinstance(v, tuple):
        return list(v)
    return v


def space(params: Sequence[Any]) -> dict[str, Tunable]:
    """The tunable parameters of a kernel's parameter list (``Kernel.params``), in order."""
    return {p.name: p.default for p in params if p.constexpr and isinstance(p.default, Tunable)}


def configurations(tunables: Mapping[str, Tunable], fixed: Mapping[str, Any] | None = None
                   ) -> list[dict[str, Any]]:
    """The cross product of the tunable values, with the ``fixed`` ones held (in order:
    the last parameter varies fastest)."""
    fixed = dict(fixed or {})
    axes = [[fixed[n]] if n in fixed else list(t.values) for n, t in tunables.items()]
    return [dict(zip(tunables, combo)) for combo in itertools.product(*axes)]


def defaults(tunables: Mapping[str, Tunable], fixed: Mapping[str, Any] | None = None
             ) -> dict[str, Any]:
    """Every tunable at its declared default, the ``fixed`` ones held."""
    fixed = dict(fixed or {})
    return {n: fixed.get(n, t.default) for n, t in tunables.items()}


def bucket(extent: int) -> int:
    """A shape bucket's axis: ``extent`` rounded up to a multiple of an eighth of the
    power of two at or above it (four steps per octave: 3000 -> 3072, 777 -> 896), the
    step at least 16. A bucket overstates an extent by less than 25%, so the model's
    program count and wave estimate stay close to the call's (a power-of-two bucket put
    3000 rows in 4096)."""
    top = 1 << max(0, math.ceil(math.log2(max(1, extent))))
    step = max(16, top // 8)
    return max(16, -(-extent // step) * step)


def shape_bucket(specs: Sequence[Any], args: Sequence[Any], round_to: Any = None
                 ) -> tuple[tuple[int, ...], ...] | None:
    """Per array argument, its extents with every symbolic one bucketed (``bucket``, or
    ``round_to`` when given); a static extent stays as it is (the specialization already
    holds it). None when an argument has no extents to read (a ``tc.array`` spec with a
    symbolic axis)."""
    round_to = round_to or bucket
    out = []
    for s, a in zip(specs, args):
        if s.kind != "array":
            continue
        shape = tuple(getattr(a, "shape", ()))
        if len(shape) != len(s.shape) or any(e is None for e in shape):
            return None
        out.append(tuple(int(e) if want is not None else round_to(int(e))
                         for e, want in zip(shape, s.shape)))
    return tuple(out)


def call_extents(specs: Sequence[Any], args: Sequence[Any]
                 ) -> tuple[tuple[int, ...], ...] | None:
    """Per array argument, its extents as called: what the model prices. A record is kept
    per bucket, but the model sees the call's own program counts (a bucket priced 2304^3
    at 64x128 tiles as 800 programs in 7 waves where the call launches 648 in 5) and row
    pitches (whose alignment decides how operands are staged). An empty extent is priced
    as 1 (a call with no work runs no program, whatever is picked)."""
    return shape_bucket(specs, args, lambda e: max(1, int(e)))


def bucket_shapes(fn: ir.Function, buckets: Sequence[tuple[int, ...]]) -> dict[str, int]:
    """Shape-symbol values of ``fn`` that the bucketed extents give (for the planner)."""
    out = {}
    for sym, (arg, axis) in zip(fn.shape_symbols, fn.attributes.get("shape_bindings", ())):
        array_index = sum(1 for a in fn.args[:arg] if isinstance(a.type, ir.MemoryType))
        if array_index < len(buckets) and axis < len(buckets[array_index]):
            out[sym] = int(buckets[array_index][axis])
    return out


def plan_configuration(module_of: Any, target: str, config: Mapping[str, Any],
                       buckets: Sequence[tuple[int, ...]] | None, threads: int | None = None
                       ) -> tuple[Any, str, str]:
    """Capture one configuration (``module_of(config)``) and run ``target``'s plan stage
    with the shapes ``buckets`` give (and ``threads`` fixed, if given).

    Returns ``(plan, "", "")``, or ``(None, stage, reason)`` where ``stage`` is
    ``capture`` or ``plan`` (a ``UserError`` there) or ``none`` (the target does not plan).
    """
    from dataclasses import replace

    from tilec.driver import begin, default_options

    try:
        module, fn_name = module_of(config)
    except ir.UserError as e:
        return None, "capture", str(e)
    comp = begin(module, fn_name, target)
    if "plan" not in comp.pipeline:
        return None, "none", f"{target} does not plan"
    opts = default_options(comp.backend)
    shapes = bucket_shapes(module.lookup(fn_name), buckets) if buckets else {}
    if threads is not None:
        opts = replace(opts, planner=replace(opts.planner, threads=threads))
    comp.options = replace(opts, shapes=shapes or None)
    try:
        return comp.run("plan").plan, "", ""
    except ir.UserError as e:
        return None, "plan", str(e)


def model_scores(module_of: Any, target: str, configs: Sequence[Mapping[str, Any]],
                 buckets: Sequence[tuple[int, ...]]) -> list[ConfigScore]:
    """Capture and plan every configuration for ``target``; score each by the sum of its
    groups' selected kernel scores (the planner's cost basis, shapes bound to ``buckets``),
    or by a split of its K loop where one prices lower (``plan.split_price.best_split``, at
    the thread count it names, which the score's ``threads`` then is).

    ``module_of(config)`` captures one configuration (a ``UserError`` is that
    configuration's rejection). A configuration with a matrix group that has no selected
    plan scores None (the checked scalar reference is not priced against the atoms)."""
    from tilec.plan.split_price import best_split

    out = []
    for cfg in configs:
        plan, stage, reason = plan_configuration(module_of, target, cfg, buckets)
        if plan is None:
            out.append(ConfigScore(dict(cfg), None, reason if stage == "none"
                                   else f"{stage}: {reason}"))
        elif not plan.groups:
            out.append(ConfigScore(dict(cfg), None, "no matrix group to price"))
        elif any(g.selected is None for g in plan.groups):
            missing = [g.group for g in plan.groups if g.selected is None]
            out.append(ConfigScore(dict(cfg), None, f"no selected plan for {', '.join(missing)}"))
        else:
            threads = {g.selected.threads for g in plan.groups}
            programs = [g.workload.programs for g in plan.groups]
            steps = [w.recurrence for g in plan.groups for w in g.workload.ops
                     if w.executions_known and w.recurrence]
            split = best_split(plan)  # priced at the thread count it names
            if split is not None:
                threads = {split.threads}
            out.append(ConfigScore(dict(cfg),
                                   float(sum(g.selected.kernel_score for g in plan.groups))
                                   if split is None else split.score,
                                   threads=threads.pop() if len(threads) == 1 else None,
                                   programs=None if None in programs else sum(programs),
                                   k_steps=min(steps) if steps else None,
                                   split_k=None if split is None else split.splits))
    return out


def model_pick(scores: Sequence[ConfigScore]) -> ConfigScore | None:
    """The lowest-scoring configuration (ties: the earlier one), or None if none scored."""
    scored = [s for s in scores if s.score is not None]
    return min(scored, key=lambda s: s.score) if scored else None


TARGET_FACT_FIELDS = ("register_block_rows", "register_block_vectors")
"""Variant choices that are facts of the target's own realization plan (cpu: the register
micro-tile of ``mma``, rows x vectors), passed as ``LowerOptions.target_facts``."""

VARIANT_FIELDS = ("threads", "program_traversal", "fuse_matrix_epilogues", "simdgroup_matrix",
                  "metal_mpp",
                  "coalesce_group_barriers", "elide_independent_subgroup_barriers",
                  "shared_ssa", "max_copy_batch", "bounded_k_views",
                  "bounded_mn_views", "forward_snapshots", "plan_ring_versions",
                  "tf32_operand_swap", "stages",
                  "wgmma_stages", "wgmma_in_flight",
                  "mbarrier_ring", "warp_specialized", "persistent", "cluster", "tensor_store",
                  "tensor_store_buffers", "pingpong", "warpgroup_turns", "split_k",
                  "double_buffer",
                  "async_copies", "tma",
                  *TARGET_FACT_FIELDS)
"""The plan-space choices a variant may fix: ``threads`` (``PlannerOptions.threads``:
threads per group, which fixes the planner's thread count and so its selection),
``program_traversal`` (``PlannerOptions.program_traversal``: the grid's program numbering,
``ir.traversal``, e.g. ``"grouped:8"``), ``fuse_matrix_epilogues``
(``PlannerOptions.fuse_matrix_epilogues``: a proved scalar epilogue such as the cast to the
output's type runs on the accumulator's registers, which are stored directly),
``simdgroup_matrix`` and ``metal_mpp`` (the metal:m1 realizations of the same names),
``coalesce_group_barriers`` (``PlannerOptions.coalesce_group_barriers``: False keeps the
reference group barrier sequence, every memory one alias class),
``elide_independent_subgroup_barriers`` (``PlannerOptions``: the lowering's group barriers
proved to order only subgroup-local accesses become subgroup barriers or go),
``shared_ssa`` (``PlannerOptions.shared_ssa``: retain, recompute or materialize pure values
with several consumers), ``max_copy_batch``
(``PlannerOptions.max_copy_batch``: the 16-byte chunks of synchronous staged copies loaded
before their stores, 1 to 16; None: each copy's whole share), ``bounded_k_views``
(``PlannerOptions.bounded_k_views``: the K steps past a proved physical K are skipped and
their columns not staged), ``bounded_mn_views`` (``PlannerOptions.bounded_mn_views``: the
accumulator rectangles outside proved bounded M/N views are not computed),
``forward_snapshots`` (``PlannerOptions.forward_snapshots``: matrix operands proved
read-only may be read from global memory by each lane, unstaged, where the cost basis
prefers it), ``plan_ring_versions`` (``PlannerOptions.plan_ring_versions``: the planner
chooses each warpgroup ring's versions with the candidate, and the lowering places them),
``tf32_operand_swap`` (``PlannerOptions.tf32_operand_swap``: False keeps a TF32 product
with an N-major B as written, off the TF32 warpgroup instruction), the target facts
(``TARGET_FACT_FIELDS``), the rest ``LowerOptions`` fields of the same name."""


_PLANNER_FIELDS = ("threads", "program_traversal", "fuse_matrix_epilogues", "simdgroup_matrix",
                   "metal_mpp",
                   "coalesce_group_barriers", "elide_independent_subgroup_barriers",
                   "shared_ssa", "max_copy_batch", "bounded_k_views",
                   "bounded_mn_views", "forward_snapshots", "plan_ring_versions",
                   "tf32_operand_swap")
"""Variant choices that are ``PlannerOptions`` fields."""


def apply_variant(options: Any, variant: Mapping[str, Any]) -> Any:
    """``options`` (``LowerOptions``) with a plan variant's choices applied."""
    from dataclasses import replace

    bad = sorted(set(variant) - set(VARIANT_FIELDS))
    if bad:
        raise ArgumentError(f"unknown plan-variant choices {', '.join(bad)}; a variant fixes "
                            f"{', '.join(VARIANT_FIELDS)}")
    facts = {k: v for k, v in variant.items() if k in TARGET_FACT_FIELDS}
    planner = {k: v for k, v in variant.items() if k in _PLANNER_FIELDS}
    lowered = {k: v for k, v in variant.items() if k not in _PLANNER_FIELDS and k not in facts}
    if planner:
        options = replace(options, planner=replace(options.planner, **planner))
    if facts:
        options = replace(options, target_facts={**dict(options.target_facts or {}), **facts})
    return replace(options, **lowered) if lowered else options


def cost_basis_name(backend: Any) -> str:
    """The name and version of the cost basis a target's plan stage scores in (``backend``:
    its backend), or ``none`` (no plan stage, or a profile without a matrix basis)."""
    from tilec.driver import default_options
    from tilec.exec import get_profile
    from tilec.plan import select_basis

    if "plan" not in tuple(backend.pipeline):
        return "none"
    basis = select_basis(get_profile(backend.profile), default_options(backend).planner)
    return "none" if basis is None else basis.name


def device_identity(backend: Any) -> str:
    """The device a target runs on here, as its backend names it (``none`` if it does not
    say)."""
    ident = getattr(backend, "device_identity", None)
    return "none" if ident is None else str(ident())


def record_key(module: ir.Module, fn_name: str, spec: str, buckets: Any, target: str) -> Any:
    """The ``RecordKey`` of a call: ``module`` is the kernel captured at its declared
    defaults, ``spec`` the specialization without the tunables."""
    import hashlib

    from tilec.runtime import load_backend
    from tilec.runtime.records import VERSION, RecordKey

    backend = load_backend(target)
    text = ir.print_module(module)
    return RecordKey(kernel=fn_name, ir_sha256=hashlib.sha256(text.encode()).hexdigest(),
                     spec=spec, shapes=repr(buckets), target=target,
                     device=device_identity(backend), version=VERSION,
                     cost_basis=cost_basis_name(backend))


def recorded_config(record: Mapping[str, Any], tunables: Mapping[str, Tunable],
                    fixed: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """The configuration and plan variant a record selected, as values of the space; or
    why the record does not fit it (a value outside the space, a fixed value that differs)."""
    sel = record["selected"]
    cfg = sel.get("config", {})
    out = {}
    for name, t in tunables.items():
        if name not in cfg:
            return f"it has no value for {name}"
        match = [v for v in t.values if _json_value(v) == cfg[name]]
        if name in fixed:
            if _json_value(fixed[name]) != cfg[name]:
                return f"it selected {name}={cfg[name]!r}, the call fixes {fixed[name]!r}"
            match = [fixed[name]]
        if not match:
            return f"its {name}={cfg[name]!r} is not one of {t!r}"
        out[name] = match[0]
    variant = dict(sel.get("variant") or {})
    if set(variant) - set(VARIANT_FIELDS):
        return f"its plan variant {variant} has unknown choices"
    return out, variant
