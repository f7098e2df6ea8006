"""Candidate TileIR to planner workloads: a thin, structural reading of each group.

A *group* is one instance of an outermost ``parallel`` nest; its programs are
the product of the nest's extents when they fold to constants. Each ``mma``
inside becomes a ``MatrixWorkload``: static shapes from its operand types,
executions from the enclosing ``serial``/``pipeline`` loops whose bounds fold
to constants (otherwise the count is unknown, one is assumed and the workload
says so).

The proofs read only structure and SSA use lists, which in Candidate TileIR
is the whole-group audit (tiles are pure values, so nothing else can observe
them):

* closed recurrence: the ``mma`` sits directly in a ``serial`` body, its
  accumulator is a carried block argument used only by it, and its result is
  used only by the body's ``yield`` in the same carried position;
* direct output: additionally, the loop's initial value is a literal splat
  ``constant`` and the loop result's only use is one ``store`` into global
  memory inside the group; a ``bounded`` destination must be proved in range
  for every program (interval arithmetic over constant grid extents) or needs
  the bounded-store capability;
* overwrite: a direct output whose literal is +0.0 and whose loop runs once;
* physical K: both operands are zero-filled ``load``s of ``bounded`` views
  whose K origin is affine in the loop's induction variable (or constant),
  with equal intervals, and the bounded-K capability is enabled.

These stand in for the effect and bounds proofs that ``plan/proofs`` will own;
anything they do not establish keeps the conservative answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import tilec.ir as ir

from .options import PlannerOptions
from .work import AffineExtent, GroupWorkload, MatrixWorkload, ScalarDomains

__all__ = ["GroupSite", "extract_groups", "fold_index"]

_LOOPS = ("serial", "pipeline")
_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "floordiv": lambda a, b: a // b if b else None,
         "cdiv": lambda a, b: -(-a // b) if b else None,
         "min": min, "max": max}


@dataclass
class GroupSite:
    """One outermost ``parallel`` nest: its workload, or why it is not planned."""

    function: str
    """The enclosing function's name."""
    label: str
    """Stable identity, ``@function/parallel#i`` (i counts outermost nests in the module)."""
    op: ir.Operation
    """The ``parallel`` operation."""
    workload: GroupWorkload | None = None
    """The planner input, when the group is admitted."""
    reason: str | None = None
    """Why the group is not planned by the matrix mapper."""
    notes: list[str] = field(default_factory=list)
    """What extraction could not establish."""


def fold_index(v: ir.Value) -> int | None:
    """The integer an index value folds to through ``constant``/``arith``, or None."""
    op = v.defining_op
    if op is None:
        return None
    if op.name == "constant":
        val = op.attr("value")
        return val if isinstance(val, int) and not isinstance(val, bool) else None
    if op.name == "arith" and op.attr("fn") in _FOLD and op.num_operands == 2:
        a, b = fold_index(op.operand(0)), fold_index(op.operand(1))
        if a is None or b is None:
            return None
        return _FOLD[op.attr("fn")](a, b)
    return None


def _trips(loop: ir.Operation) -> int | None:
    lb, ub, step = (fold_index(loop.operand(i)) for i in range(3))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def _static_size(t: ir.Type) -> int | None:
    shape = getattr(t, "shape", None)
    if shape is None or not all(e.is_static for e in shape):
        return None
    return math.prod(int(e) for e in shape)


def _ancestors(op: ir.Operation, stop: ir.Operation) -> list[ir.Operation]:
    """Enclosing operations of ``op`` strictly inside ``stop``, innermost first."""
    out = []
    p = op.parent_op
    while p is not None and p is not stop:
        out.append(p)
        p = p.parent_op
    return out


def _executions(op: ir.Operation, group: ir.Operation) -> tuple[int, bool]:
    """(product of enclosing loop trip counts, all known); unknown trips count as one."""
    total, known = 1, True
    for a in _ancestors(op, group):
        if a.name in _LOOPS:
            t = _trips(a)
            if t is None:
                known = False
            else:
                total *= t
    return total, known


def _recurrence(mma: ir.Operation) -> tuple[ir.Operation, int] | None:
    """(the serial loop, carried position) when the mma is its sole closed carry update."""
    block = mma.parent
    loop = mma.parent_op
    if block is None or loop is None or loop.name != "serial":
        return None
    c = mma.operand(2)
    if not isinstance(c, ir.BlockArgument) or c.owner is not block or c.index == 0:
        return None
    if c.num_uses != 1:
        return None
    res = mma.result
    term = block.terminator
    if term is None or term.name != "yield" or res.num_uses != 1:
        return None
    use = next(iter(res.uses))
    if use.owner is not term or use.index != c.index - 1:
        return None
    return loop, c.index - 1


def _literal(v: ir.Value) -> float | None:
    op = v.defining_op
    if op is None or op.name != "constant" or not isinstance(op.result.type, ir.TileType):
        return None
    val = op.attr("value")
    return float(val) if isinstance(val, (int, float)) else None


_Affine = tuple[int, dict[ir.Value, int]]


def _affine(v: ir.Value) -> _Affine | None:
    """``v`` as ``constant + sum(coeff * block argument)`` through constant index arithmetic."""
    if isinstance(v, ir.BlockArgument):
        return 0, {v: 1}
    c = fold_index(v)
    if c is not None:
        return c, {}
    op = v.defining_op
    if op is None or op.name != "arith" or op.num_operands != 2:
        return None
    fn = op.attr("fn")
    a, b = _affine(op.operand(0)), _affine(op.operand(1))
    if a is None or b is None:
        return None
    if fn in ("add", "sub"):
        sign = 1 if fn == "add" else -1
        terms = dict(a[1])
        for k, x in b[1].items():
            terms[k] = terms.get(k, 0) + sign * x
        return a[0] + sign * b[0], {k: x for k, x in terms.items() if x}
    if fn == "mul" and (not a[1] or not b[1]):
        const, other = (a[0], b) if not a[1] else (b[0], a)
        return const * other[0], {k: const * x for k, x in other[1].items() if const * x}
    return None


def _arg_range(arg: ir.Value) -> tuple[int, int] | None:
    """Inclusive bounds of a parallel coordinate or a loop induction variable."""
    if not isinstance(arg, ir.BlockArgument):
        return None
    owner = arg.owner.parent_op
    if owner is None:
        return None
    if owner.name == "parallel" and arg.index < owner.attr("rank"):
        ext = fold_index(owner.operand(arg.index))
        return (0, ext - 1) if ext is not None and ext > 0 else None
    if owner.name in _LOOPS and arg.index == 0:
        lb, step, trips = fold_index(owner.operand(0)), fold_index(owner.operand(2)), \
            _trips(owner)
        if lb is None or step is None or not trips:
            return None
        return lb, lb + step * (trips - 1)
    return None


def _view_in_range(view: ir.Operation) -> bool:
    """True when every element of a static view lies inside its static base, for every instance."""
    base_t, view_t = view.operand(0).type, view.result.type
    if not all(e.is_static for e in tuple(base_t.shape) + tuple(view_t.shape)):
        return False
    imap: ir.IndexMap = view.attr("map")
    for j, expr in enumerate(imap.results):
        lo = hi = expr.constant
        for atom, c in expr.terms:
            if atom[0] == "d" and c == 1:
                hi += int(view_t.shape[atom[1]]) - 1
            elif atom[0] == "s":
                aff = _affine(view.operand(1 + atom[1]))
                if aff is None:
                    return False
                lo, hi = lo + c * aff[0], hi + c * aff[0]
                for arg, k in aff[1].items():
                    r = _arg_range(arg)
                    if r is None:
                        return False
                    lo += min(c * k * r[0], c * k * r[1])
                    hi += max(c * k * r[0], c * k * r[1])
            else:
                return False
        if lo < 0 or hi > int(base_t.shape[j]) - 1:
            return False
    return True


def _global_sink(v: ir.Value, group: ir.Operation, options: PlannerOptions
                 ) -> tuple[ir.Operation | None, str | None]:
    """The single global ``store`` of ``v`` inside ``group``, or the reason there is none."""
    if v.num_uses != 1:
        return None, f"the accumulator result has {v.num_uses} uses, not one sink"
    use = next(iter(v.uses))
    st = use.owner
    if st.name != "store" or use.index != 1 or not group.is_ancestor_of(st):
        return None, "the accumulator result is not stored by the group"
    dst = st.operand(0)
    if not isinstance(dst.type, ir.MemoryType) or dst.type.space != "global":
        return None, "the sink is not a global store"
    view = dst.defining_op
    if view is not None and view.name == "view" and view.attr("bounds") == "bounded" \
            and not options.bounded_store and not _view_in_range(view):
        return None, ("a bounded destination not proved in range needs the bounded-store "
                      "capability")
    return st, None


def _k_interval(load_v: ir.Value, k_axis: int, loop: ir.Operation | None, k: int
                ) -> AffineExtent | None:
    """The physical K of one operand read through a zero-filled bounded view, if provable."""
    ld = load_v.defining_op
    if ld is None or ld.name != "load":
        return None
    fill = ld.attr("fill", 0)
    if fill != 0 or math.copysign(1.0, float(fill)) < 0:
        return None
    view = ld.operand(0).defining_op
    if view is None or view.name != "view" or view.attr("bounds") != "bounded":
        return None
    base_t = view.operand(0).type
    imap: ir.IndexMap = view.attr("map")
    for j, expr in enumerate(imap.results):
        if expr.coefficient("d", k_axis) != 1:
            continue
        if any(atom[0] not in ("s",) and atom != ("d", k_axis) for atom, _ in expr.terms):
            return None
        extent = base_t.shape[j]
        if not extent.is_static:
            return None
        # origin = const + sum(c_s * symbol_s); each symbol affine in the loop iv only
        const, coeff = expr.constant, 0
        iv = loop.regions[0].entry.args[0] if loop is not None else None
        for atom, c in expr.terms:
            if atom[0] != "s":
                continue
            aff = _affine(view.operand(1 + atom[1]))
            if aff is None or any(arg is not iv for arg in aff[1]):
                return None
            const += c * aff[0]
            coeff += c * aff[1].get(iv, 0) if iv is not None else 0
        src = int(extent) - const
        if coeff == 0:
            return AffineExtent(src, (), (), k)
        assert loop is not None
        lb, step, trips = fold_index(loop.operand(0)), fold_index(loop.operand(2)), _trips(loop)
        if lb is None or step is None or not trips:
            return None
        # actual K(t) = min(k, source extent - origin(lb + step * t))
        return AffineExtent(src - coeff * lb, (-coeff * step,), (trips,), k)
    return None


def _mma_workload(mma: ir.Operation, group: ir.Operation, index: int,
                  options: PlannerOptions, notes: list[str]) -> tuple[MatrixWorkload | None,
                                                                      set[int]]:
    """One mma's workload and the ids of the scalar-domain ops it accounts for."""
    a, b, c = (v.type for v in mma.operands)
    name = f"mma#{index}"
    if not all(isinstance(t, ir.TileType) and all(e.is_static for e in t.shape)
               for t in (a, b, c)):
        notes.append(f"{name}: symbolic tile shape; not planned")
        return None, set()
    m, k = (int(e) for e in a.shape)
    n = int(b.shape[1])
    policy = mma.attr("policy")
    execs, known = _executions(mma, group)
    if execs == 0:
        notes.append(f"{name}: an enclosing loop runs zero times; one execution assumed")
        execs = 1
    if not known:
        notes.append(f"{name}: an enclosing trip count is not a constant; executions are "
                     f"unknown and {execs} is assumed")
    rec = _recurrence(mma)
    recurrence, direct, overwrite = None, False, False
    domains = ScalarDomains()
    owned: set[int] = set()
    loop_for_k = mma.parent_op if mma.parent_op is not None and \
        mma.parent_op.name in _LOOPS else None
    if rec is None:
        notes.append(f"{name}: no closed recurrence (resident accumulator not proved)")
    else:
        loop, pos = rec
        length = _trips(loop)
        recurrence = length if (length and known) else 1
        if not (length and known):
            notes.append(f"{name}: recurrence length unknown; residency priced as length 1")
        per = execs // recurrence
        yield_copy = m * n * execs
        init_v = loop.operand(3 + pos)
        lit = _literal(init_v)
        sink, why = _global_sink(loop.results[pos], group, options)
        initializer = m * n * per if lit is not None else 0
        sink_elems = m * n * per if sink is not None else 0
        domains = ScalarDomains(yield_copy, initializer, sink_elems)
        if lit is not None and init_v.defining_op is not None:
            owned.add(init_v.defining_op.id)
        if sink is not None:
            owned.add(sink.id)
        if lit is None:
            notes.append(f"{name}: the initial accumulator is not a literal fill; no direct "
                         f"output")
        elif sink is None:
            notes.append(f"{name}: no direct output ({why})")
        else:
            direct = True
            overwrite = (lit == 0.0 and math.copysign(1.0, lit) > 0 and recurrence == 1
                         and length == 1)
    physical = None
    if options.bounded_k_views:
        ka = _k_interval(mma.operand(0), 1, loop_for_k, k)
        kb = _k_interval(mma.operand(1), 0, loop_for_k, k)
        if ka is not None and ka == kb:
            physical = ka
        else:
            notes.append(f"{name}: physical K not proved (needs equal zero-filled bounded K "
                         f"views); nominal K kept")
    w = MatrixWorkload(
        op=name, m=m, n=n, k=k, dtype=str(a.dtype), acc_dtype=str(c.dtype),
        precision=policy.precision if policy is not None else "exact", executions=execs,
        executions_known=known, recurrence=recurrence, direct_output=direct,
        overwrite=overwrite, physical_k=physical, domains=domains, inputs_forwardable=False,
        location=str(mma.loc))
    return w, owned


def _common_elements(group: ir.Operation, owned: set[int], carried: set[tuple[int, int]],
                     notes: list[str]) -> int:
    """Scalar element work of the group outside the operations' removable domains."""
    total = 0
    unknown = 0
    for op in group.walk(include_self=False):
        if op.id in owned or op.name in ("mma", "view", "memory", "parallel") + _LOOPS:
            continue
        if op.name == "yield":
            vals = [(i, v) for i, v in enumerate(op.operands) if (op.id, i) not in carried]
        elif op.name in ("store", "atomic"):
            vals = [(1, op.operand(1))]
        else:
            vals = list(enumerate(op.results))
        vals = [(i, v) for i, v in vals if isinstance(v.type, ir.TileType)]
        if not vals:
            continue
        execs, known = _executions(op, group)
        for _, v in vals:
            size = _static_size(v.type)
            if size is None or not known:
                unknown += 1
                continue
            total += size * execs
    if unknown:
        notes.append(f"{unknown} scalar tile value(s) have symbolic sizes or counts and are "
                     f"not counted in the common work")
    return total


def extract_groups(module: ir.Module, options: PlannerOptions | None = None) -> list[GroupSite]:
    """Every outermost ``parallel`` nest of ``module``, in order, with its workload or reason."""
    options = options or PlannerOptions()
    sites: list[GroupSite] = []
    for fn in module:
        for op in fn.walk():
            if op.name != "parallel" or any(a.name == "parallel" for a in _ancestors(op, None)):
                continue
            sites.append(_site(fn.name, op, len(sites), options))
    return sites


def _site(fn_name: str, par: ir.Operation, index: int, options: PlannerOptions) -> GroupSite:
    label = f"@{fn_name}/parallel#{index}"
    site = GroupSite(fn_name, label, par)
    inner = list(par.walk(include_self=False))
    if any(o.name == "parallel" for o in inner):
        site.reason = "nested parallel scope: not admitted by the matrix mapper"
        return site
    mmas = [o for o in inner if o.name == "mma"]
    if not mmas:
        site.reason = "no mma: not a matrix group"
        return site
    if not options.map_gpu_cooperative_programs:
        site.reason = "cooperative program mapping disabled by PlannerOptions"
        return site
    rank = par.attr("rank")
    extents = [fold_index(v) for v in par.operands[:rank]]
    programs = math.prod(extents) if all(e is not None for e in extents) else None  # type: ignore
    if programs is None:
        site.notes.append("program count is symbolic; waves use one program")
    constraint = par.attr("constraint")
    exact = getattr(constraint, "threads", None)
    ops: list[MatrixWorkload] = []
    owned: set[int] = set()
    carried: set[tuple[int, int]] = set()
    for i, mma in enumerate(mmas):
        w, own = _mma_workload(mma, par, i, options, site.notes)
        if w is None:
            continue
        ops.append(w)
        owned |= own
        rec = _recurrence(mma)
        if rec is not None:
            term = mma.parent.terminator
            carried.add((term.id, rec[1]))
    if not ops:
        site.reason = "no mma with static shapes"
        return site
    common = _common_elements(par, owned, carried, site.notes)
    site.workload = GroupWorkload(group=label, ops=tuple(ops), programs=programs,
                                  common_elements=common, exact_threads=exact,
                                  location=str(par.loc), notes=tuple(site.notes))
    return site
