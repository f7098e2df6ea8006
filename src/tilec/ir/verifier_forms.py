"""The Scheduled and Machine verifier forms: their attribute vocabulary and invariants.

``verifier.py`` owns the structural checks and the Candidate invariants; this
module supplies what the two later forms add (seed 001, "Forms and
invariants"; docs/design/lowering.md):

* the attributes the lowering commits (``SCHEDULED_ATTRS``,
  ``MACHINE_ATTRS``), accepted on top of each opcode's own and checked for
  their kinds;
* Scheduled invariants 2, 3, 5, 6, 7, 8, 11, 12, 13: bindings, nesting,
  distributions covering their tiles, memory plans;
* Machine invariants 15, 16, 17 plus the Machine structure (grid and lane
  levels, atoms from the catalog with their operand layouts, guards); the
  per-atom checks of invariant 16 are ``verifier_atoms``'.

A function *claims* a form with its ``form`` attribute (the lowering sets it).
The form's vocabulary and invariants apply to functions that claim it; any
other function is held to the candidate checks (with the form's op families
admitted), so ``verify(candidate_module, "machine")`` still means "nothing
in it is illegal in Machine form".

Distribution attributes are ``tilec.ir.dist_layout.DistLayout`` objects and
atoms come from the catalog of Machine TileIR, ``tilec.ir.atoms``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .allocation import buffer_bytes, shared_buffers
from .atoms import SWIZZLE_ALIGN
from .core import Operation
from .dist_layout import DistLayout
from .layout_reduce import in_place_reduction
from .opdef import OPS, AttrDef, OpVerifyError
from .ops import check_signature
from .traversal import check_traversal, parse_traversal
from .types import MemoryType, TileType
from .verifier import _FAMILY_FORMS, Check, _Context, _internal, _Issue, _per_op
from .verifier_atoms import atom_call_issues

__all__ = ["SCHEDULED_ATTRS", "MACHINE_ATTRS", "SCHEDULED_INVARIANTS", "MACHINE_INVARIANTS",
           "form_checks", "ROLE_SPLITS"]

ROLE_SPLITS = (("producer", "consumer"), ("consumer 1", "consumer 0"))
"""The ``roles`` of a role split ``if``: its then and else regions' roles. The second splits
the consumers' region of a ping-pong group (docs/design/warp_specialization.md)."""


def _is_dist(x: Any) -> bool:
    return isinstance(x, DistLayout)


def _dist_or_tuple(x: Any) -> bool:
    return _is_dist(x) or (isinstance(x, tuple) and all(e is None or _is_dist(e) for e in x))


def _mem_plan(x: Any) -> bool:
    ok = ("regs", "shared", "global")
    return x in ok or (isinstance(x, tuple) and all(e is None or e in ok for e in x))


def _pos_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


def _nat(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _str(x: Any) -> bool:
    return isinstance(x, str)


EXEC_BINDINGS = ("grid", "group", "uniform")
"""``exec`` values: the grid nest, work of one group (distributed or replicated), or
function-level code computed before the launch."""

SCHEDULED_ATTRS: dict[str, AttrDef] = {
    "exec": AttrDef(lambda x: x in EXEC_BINDINGS, False, "execution binding"),
    "threads": AttrDef(_pos_int, False, "threads per group (grid parallel)"),
    "layout": AttrDef(_dist_or_tuple, False, "distribution of each tile result"),
    "mem": AttrDef(_mem_plan, False, "memory plan of each tile result"),
    "use_layouts": AttrDef(lambda x: isinstance(x, tuple) and all(e is None or _is_dist(e)
                                                                  for e in x),
                           False, "repartition: the layout each operand is consumed in"),
    "realization": AttrDef(_str, False, "mma: atom catalog id, ffma or reference"),
    "atom": AttrDef(_str, False, "mma: the planner's atom id"),
    "distribution": AttrDef(lambda x: x in ("rectangle", "one_atom", "scalar"), False,
                            "mma: atom-grid distribution family"),
    "gm": AttrDef(_pos_int, False, "mma: subgroup rows"),
    "gn": AttrDef(_pos_int, False, "mma: subgroup columns"),
    "rm": AttrDef(_pos_int, False, "mma: atom rows per subgroup"),
    "rn": AttrDef(_pos_int, False, "mma: atom columns per subgroup"),
    "accumulator": AttrDef(lambda x: x in ("resident", "direct", "nonresident"), False,
                           "mma: accumulator residency"),
    "physical_k": AttrDef(lambda x: x is True, False,
                          "mma: bounded K views realized (K steps past the physical K "
                          "skipped, their columns not staged)"),
    "bounded_mn": AttrDef(lambda x: x in ("m", "n", "mn"), False,
                          "mma: bounded M/N views realized (accumulator rectangles outside "
                          "the arrays along these axes are not computed)"),
    "strategy": AttrDef(lambda x: x in ("lane", "warp_shuffle", "shared", "serial", "in_place"),
                        False,
                        "reduce: realization strategy"),
    "stage_layouts": AttrDef(lambda x: isinstance(x, tuple), False,
                             "pipeline: distribution of each stage argument"),
    "schedule": AttrDef(lambda x: x in ("double_buffer",), False,
                        "loop: the committed schedule of its staged matrix operands"),
    "versions": AttrDef(_pos_int, False, "loop: ring-buffer versions of its staged operands"),
    "in_flight": AttrDef(_pos_int, False, "loop: warpgroup instruction groups left in flight "
                         "at the end of each iteration (retired after the loop)"),
    "release": AttrDef(lambda x: x in ("mbarrier", "producer"), False,
                       "loop: its ring versions are released through shared-memory barriers "
                       "(one full and one empty barrier per version) instead of a group "
                       "barrier per iteration; \"producer\": refilled by a producer "
                       "warpgroup of its own (warp specialization)"),
    "persistent": AttrDef(_pos_int, False,
                          "loop: its warp-specialized group runs as a persistent grid of at "
                          "most this many programs, each walking output tiles"),
    "traversal": AttrDef(lambda x: not isinstance(parse_traversal(x), str), False,
                         "loop: the order its persistent group walks the output tiles "
                         "(ir.traversal)"),
    "cluster": AttrDef(lambda x: isinstance(x, tuple) and len(x) == 2 and x[0] == 2
                       and _nat(x[1]), False,
                       "loop: its persistent group runs in clusters of (n, axis): n groups "
                       "on neighbouring tiles of grid axis `axis` share the operands whose "
                       "window does not depend on that axis through multicast copies"),
    "pingpong": AttrDef(lambda x: x == 2, False,
                        "loop: its persistent warp-specialized group has this many consumer "
                        "warpgroups, each walking every other output tile, their K loops "
                        "taking turns"),
    "turns": AttrDef(lambda x: x == 2, False,
                     "loop: this many consumer warpgroups of its warp-specialized group take "
                     "turns at its two warpgroup products per iteration "
                     "(docs/design/warp_specialization.md, \"Warpgroup turns\")"),
    "tensor_store": AttrDef(lambda x: _nat(x) and x >= 2, False,
                            "store: after a warp-specialized loop, the tile goes through this "
                            "many swizzled shared buffers of 128-byte column chunks and tensor "
                            "stores (docs/design/warp_specialization.md, \"Tensor stores\")"),
    "forwarded": AttrDef(lambda x: x is True, False,
                         "load, plain transpose and mma: a matrix operand read from its source "
                         "window where the mma runs, neither staged nor loaded into registers "
                         "(the snapshot forwarding proof)"),
    "split_k": AttrDef(lambda x: _pos_int(x) and x >= 2, False,
                       "loop: its iterations are split over this many programs per output "
                       "tile, whose partial sums one program combines in split order "
                       "(docs/design/split_k.md)"),
}
"""Attributes the Scheduled form adds, with their checks."""

MACHINE_ATTRS: dict[str, AttrDef] = {
    "threads": AttrDef(_pos_int, False, "threads per group (grid parallel)"),
    "shared_bytes": AttrDef(_nat, False, "shared memory of the group (grid parallel)"),
    "min_groups": AttrDef(_pos_int, False, "groups per compute unit the compiler should fit "
                          "(grid parallel; CUDA: __launch_bounds__'s second argument)"),
    "role": AttrDef(_str, False, "memory: what a shared allocation holds"),
    "versions": AttrDef(_pos_int, False, "memory: ring-buffer versions (leading axis)"),
    "swizzle": AttrDef(lambda x: x == 128, False,
                       "memory: 128-byte swizzle of a shared buffer (1024-byte aligned)"),
    "guard": AttrDef(_str, False, "if: a specialization guard (what it establishes)"),
    "roles": AttrDef(lambda x: tuple(x) in ROLE_SPLITS, False,
                     "if: the role split of a warp-specialized group (its regions run "
                     "concurrently, coupled only by mbarriers): (producer, consumer), or "
                     "inside the consumers' region the two ping-pong consumers"),
    "offset": AttrDef(_nat, False, "memory: byte offset of a shared buffer from the group's "
                      "base (the allocate stage)"),
    "traversal": AttrDef(lambda x: not isinstance(parse_traversal(x), str), False,
                         "grid parallel: the program numbering (ir.traversal, a bijection)"),
    "shared_base_align": AttrDef(_pos_int, False, "grid parallel: the alignment the group's "
                                 "shared base needs (a swizzled buffer's)"),
    "cluster": AttrDef(lambda x: x == 2, False,
                       "grid parallel: consecutive programs of its one axis form clusters of "
                       "this many groups (barrier.cluster, mbarrier.arrive.peer and multicast "
                       "tma.load couple them)"),
    "split_k": AttrDef(lambda x: _pos_int(x) and x >= 2, False,
                       "grid parallel: its leading axis numbers the K splits of each output "
                       "tile (split.* atoms combine them)"),
}
"""Attributes the Machine form adds, with their checks."""

SCHEDULED_INVARIANTS: dict[str, str] = {
    "2": "every group binds the grid with a thread count; its distributions are total maps "
         "(static tiles, layouts over exactly the group's threads)",
    "3": "execution bindings nest grid > group: group work only inside a grid binding",
    "5": "execution remaps preserve the active domain: the grid nest keeps its extents",
    "6": "matrix realizations satisfy the atom's participant contract (whole subgroups)",
    "7": "every distributed value covers its tile exactly unless replication/masking is "
         "declared",
    "8": "ancestor updates keep their typed update record (checked by the op hooks)",
    "11": "manual memory resolves to a resource class its space allows",
    "12": "accesses resolve to one resource: a parameter or a group allocation",
    "13": "repartitions are explicit (use_layouts) where a consumer needs another layout",
}
"""Invariant ids a Scheduled-form error can carry (beyond the candidate ones)."""

MACHINE_INVARIANTS: dict[str, str] = {
    "machine": "one grid nest with threads and one lane nest of that many threads per group; "
               "shared allocations at group level",
    "15": "ring-buffer versions of a staged buffer are addressed by distinct version indices",
    "16": "atom calls name catalog atoms, with the catalog's operand layouts and types",
    "17": "asynchronous and vectorized accesses sit under a specialization guard",
}
"""Invariant ids a Machine-form error can carry."""


# ------------------------------------------------------------ vocabulary-aware core


class _SignatureView:
    """An operation seen without the form's own attributes (for ``check_signature``)."""

    def __init__(self, op: Operation, attributes: dict[str, Any]) -> None:
        self._op = op
        self.attributes = attributes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._op, name)


def _vocabulary(form: str) -> dict[str, AttrDef]:
    return SCHEDULED_ATTRS if form == "scheduled" else {**SCHEDULED_ATTRS, **MACHINE_ATTRS}


def _claims(ctx: _Context, op: Operation) -> bool:
    """True when ``op``'s function declares the form being verified."""
    fn = ctx.fn_of.get(op)
    return fn is not None and fn.attributes.get("form") == ctx.form


def _family_form(ctx: _Context, op: Operation) -> _Issue | None:
    """Invariant 18 as the candidate check has it: a registered opcode legal in the form."""
    d = op.opdef
    if OPS.get(op.name) is not d:
        return _Issue(f"'{op.name}' is not a registered operation", "18", op)
    forms = _FAMILY_FORMS.get(d.family)
    if forms is None:
        return _Issue(f"'{op.name}' belongs to family '{d.family}', which no verifier form "
                      "admits yet", "18", op)
    if ctx.form not in forms:
        return _Issue(f"'{op.name}' is a {d.family}-form operation; it is not legal in "
                      f"{ctx.form} form (only in {', '.join(forms)})", "18", op)
    return None


def _signature_check(ctx: _Context) -> Iterator[_Issue]:
    """Family, op signature and verify hook, accepting (and checking) the form's attributes."""
    vocab = _vocabulary(ctx.form)
    for op in ctx.ops:
        if op in ctx.bad:
            continue
        ctx.cursor = op
        family = _family_form(ctx, op)
        if family is not None:
            yield family
            continue
        own = op.opdef.attrs
        claimed = _claims(ctx, op) and not op.opdef.open_attrs
        extra = {k: v for k, v in op.attributes.items() if k in vocab and k not in own} \
            if claimed else {}
        bad = [k for k, v in extra.items() if not vocab[k].check(v)]
        if bad:
            yield _Issue(f"{op.name} attribute '{bad[0]}' has a bad value "
                         f"{op.attributes[bad[0]]!r} ({vocab[bad[0]].doc})", "18", op)
            continue
        rest = {k: v for k, v in op.attributes.items() if k not in extra}
        try:
            check_signature(_SignatureView(op, rest))  # type: ignore[arg-type]
            if op.opdef.verify is not None:
                op.opdef.verify(op)
        except OpVerifyError as e:
            yield _Issue(str(e), e.invariant, op)
        except Exception as e:
            yield _internal(ctx, op, "op-signature", e)


# ------------------------------------------------------------------ scheduled checks


def _group_of(op: Operation) -> Operation | None:
    p = op.parent_op
    while p is not None:
        if p.name == "parallel" and p.attr("exec") == "grid":
            return p
        p = p.parent_op
    return None


@_per_op("2")
def _check_bindings(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariants 2/3/5: grid nests carry threads; group work sits inside one."""
    if not _claims(ctx, op):
        return
    binding = op.attr("exec")
    if op.name == "parallel" and binding == "grid":
        if not _pos_int(op.attr("threads")):
            yield _Issue("a grid-bound parallel needs its threads per group", "2", op)
        if op.attr("level") != "grid":
            yield _Issue("a grid-bound parallel must bind level 'grid'", "5", op)
        return
    inside_scalar = any(p.name in ("map", "reduce") for p in _ancestors(op))
    if inside_scalar:
        return
    group = _group_of(op)
    if binding is None:
        yield _Issue(f"'{op.name}' has no execution binding (exec)", "2", op)
    elif binding == "group" and group is None:
        yield _Issue(f"'{op.name}' is bound to a group but sits outside every grid nest", "3",
                     op)
    elif binding == "uniform" and group is not None:
        yield _Issue(f"'{op.name}' inside a group is bound 'uniform' (function level)", "3", op)


def _ancestors(op: Operation) -> Iterator[Operation]:
    p = op.parent_op
    while p is not None:
        yield p
        p = p.parent_op


def _result_layouts(op: Operation) -> list[Any]:
    lay = op.attr("layout")
    if lay is None:
        return [None] * len(op.results)
    return list(lay) if isinstance(lay, tuple) else [lay]


@_per_op("7")
def _check_layouts(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 7 (and 2): each tile result has a distribution covering it exactly."""
    if not _claims(ctx, op):
        return
    if op.attr("exec") != "group":
        return
    group = _group_of(op)
    threads = group.attr("threads") if group is not None else None
    lays = _result_layouts(op)
    if len(lays) != len(op.results):
        yield _Issue(f"{op.name} lists {len(lays)} layouts for {len(op.results)} results", "7",
                     op)
        return
    for k, (r, lay) in enumerate(zip(op.results, lays)):
        if not isinstance(r.type, TileType):
            continue
        if lay is None:
            yield _Issue(f"tile result {k} of {op.name} has no distribution", "7", op)
            return
        shape = tuple(int(e) for e in r.type.shape) if all(e.is_static for e in r.type.shape) \
            else None
        if shape != lay.shape:
            yield _Issue(f"result {k}: distribution of a {list(lay.shape)} tile for {r.type}",
                         "7", op)
            return
        if threads is not None and lay.threads != threads:
            yield _Issue(f"result {k}: distribution over {lay.threads} threads in a group of "
                         f"{threads}", "2", op)
            return
        problems = lay.coverage().problems(lay)
        if problems:
            yield _Issue(f"result {k} distribution: " + "; ".join(problems), "7", op)
            return
    uses = op.attr("use_layouts")
    if uses is not None:
        if len(uses) != op.num_operands:
            yield _Issue(f"use_layouts lists {len(uses)} entries for {op.num_operands} "
                         "operands", "13", op)
            return
        for k, (v, lay) in enumerate(zip(op.operands, uses)):
            if lay is None:
                continue
            if not isinstance(v.type, TileType) or tuple(int(e) for e in v.type.shape) \
                    != lay.shape:
                yield _Issue(f"use_layouts[{k}] does not describe operand {k} ({v.type})",
                             "13", op)
                return
            problems = lay.coverage().problems(lay)
            if problems:
                yield _Issue(f"use_layouts[{k}]: " + "; ".join(problems), "7", op)
                return


def _operand_layout(op: Operation, k: int) -> Any:
    """The layout ``op`` consumes operand ``k`` in: its repartition record, else the
    producer's result layout (a ``serial`` body's carried argument: the loop's result
    layout; None when unknown, e.g. another block argument)."""
    uses = op.attr("use_layouts")
    if uses is not None and k < len(uses) and uses[k] is not None:
        return uses[k]
    v = op.operand(k)
    d = v.defining_op
    if d is None:
        owner = v.owner.parent_op  # type: ignore[attr-defined]
        if owner is None or owner.name != "serial" or v.index == 0:  # type: ignore[attr-defined]
            return None
        lays = _result_layouts(owner)
        return lays[v.index - 1] if v.index - 1 < len(lays) else None  # type: ignore
    lays = _result_layouts(d)
    return lays[v.index] if v.index < len(lays) else None  # type: ignore[attr-defined]


def _consumed_as(op: Operation) -> Iterator[tuple[int, Any]]:
    """(operand, layout) pairs ``op`` must read in a fixed layout: a map's tiles in its own,
    an mma's accumulator in its result's, a ``serial``'s initial values and its body's
    yielded values in the loop's carried layouts."""
    if op.name == "map":
        want = _result_layouts(op)[0]
        for k, v in enumerate(op.operands):
            if isinstance(v.type, TileType):
                yield k, want
    elif op.name == "mma":
        yield 2, _result_layouts(op)[0]
    elif op.name == "serial":
        for k, lay in enumerate(_result_layouts(op)):
            yield 3 + k, lay
    elif op.name == "yield" and op.parent_op is not None and op.parent_op.name == "serial":
        for k, lay in enumerate(_result_layouts(op.parent_op)):
            yield k, lay


@_per_op("13")
def _check_repartitions(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 13: an op that computes in a fixed distribution (elementwise ops, matrix
    accumulators, loop-carried values) reads its tiles in it, so any other distribution of
    a producer is an explicit repartition (``use_layouts``)."""
    if not _claims(ctx, op) or op.attr("exec") != "group":
        return
    for k, want in _consumed_as(op):
        if want is None or not isinstance(op.operand(k).type, TileType):
            continue
        got = _operand_layout(op, k)
        if got is not None and got is not want:
            yield _Issue(f"{op.name} operand {k} arrives in another distribution than the "
                         f"{op.name} reads it in, with no repartition record into that one "
                         "(use_layouts)", "13", op)
            return


@_per_op("6")
def _check_reduction_layouts(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 6: a row-reduction strategy reads the rows layout and produces its result
    layout, with a team size that fits the strategy."""
    if not _claims(ctx, op) or op.name != "reduce":
        return
    strategy = op.attr("strategy")
    if strategy == "in_place":
        src, out = _operand_layout(op, 0), _result_layouts(op)[0]
        why = "no input layout" if src is None else in_place_reduction(src, out)
        if isinstance(why, str):
            yield _Issue(f"an 'in_place' reduction of {src} into {out}: {why}", "6", op)
        return
    if strategy not in ("lane", "warp_shuffle", "shared"):
        return
    src = _operand_layout(op, 0)
    out = _result_layouts(op)[0]
    if src is None or src.kind != "rows":
        yield _Issue(f"a '{strategy}' reduction reads a rows layout, not {src}", "6", op)
        return
    team = src.param("team")
    want = "lane" if team == 1 else "warp_shuffle" if team <= 32 else "shared"
    if want != strategy:
        yield _Issue(f"a team of {team} threads per row is a '{want}' reduction, not "
                     f"'{strategy}'", "6", op)
        return
    if out.kind not in ("row_reduced", "replicated") or (out.kind == "row_reduced"
                                                          and out.param("team") != team):
        yield _Issue(f"the result of a team-{team} row reduction is its row_reduced layout, "
                     f"not {out}", "6", op)


@_per_op("6")
def _check_matrix(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 6: a matrix realization's subgroups are whole and match the group, and its
    accumulator layout is the realization's."""
    if not _claims(ctx, op):
        return
    if op.name != "mma" or op.attr("realization") in (None, "reference"):
        return
    lay = _result_layouts(op)[0]
    if op.attr("distribution") == "rectangle" and lay is not None and any(
            lay.param(k) != op.attr(k) for k in ("gm", "gn", "rm", "rn")):
        yield _Issue(f"the accumulator layout {lay} is not the {op.attr('gm')}x{op.attr('gn')}"
                     f"/{op.attr('rm')}x{op.attr('rn')} rectangle the realization uses", "6", op)
        return
    group = _group_of(op)
    threads = group.attr("threads") if group is not None else None
    if threads is None or threads % 32:
        yield _Issue(f"matrix atoms need whole 32-lane subgroups; the group has {threads} "
                     "threads", "6", op)
        return
    if op.attr("distribution") == "rectangle" and op.attr("gm") * op.attr("gn") * 32 != threads:
        yield _Issue(f"the {op.attr('gm')}x{op.attr('gn')} subgroup grid does not use the "
                     f"group's {threads} threads", "6", op)


@_per_op("11")
def _check_memory_plans(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariants 11/12: manual memory has a legal class; accesses have one root resource."""
    if not _claims(ctx, op):
        return
    if op.name == "memory" and ctx.form == "scheduled":
        space = op.result.type.space
        plan = op.attr("mem")
        allowed = {"local": ("shared", "regs"), "shared": ("shared",), "global": ("global",),
                   "fragment": ("regs",)}[space]
        if plan not in allowed:
            yield _Issue(f"manual {space} memory planned as {plan!r}; allowed: "
                         f"{', '.join(allowed)}", "11", op)
    if op.name in ("load", "store", "atomic"):
        root = op.operand(0)
        seen = 0
        while root.defining_op is not None and root.defining_op.name == "view" and seen < 64:
            root = root.defining_op.operand(0)
            seen += 1
        d = root.defining_op
        if d is not None and d.name != "memory":
            yield _Issue(f"{op.name} reaches memory through '{d.name}', not a view chain of a "
                         "parameter or an allocation", "12", op)
        elif not isinstance(root.type, MemoryType):
            yield _Issue(f"{op.name} does not reach a memory", "12", op)


# -------------------------------------------------------------------- machine checks


@_per_op("machine")
def _check_machine_structure(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Grid nests hold allocations and one lane nest of exactly their thread count."""
    if not _claims(ctx, op):
        return
    if op.name != "parallel":
        if op.name == "memory" and op.result.type.space == "shared":
            p = op.parent_op
            if p is None or p.name != "parallel" or p.attr("level") != "grid":
                yield _Issue("a shared allocation belongs to a group: directly in the grid "
                             "nest's body", "machine", op)
        if op.name == "atom.call":
            lane = next((p for p in _ancestors(op) if p.name == "parallel"
                         and p.attr("level") == "lane"), None)
            if lane is None:
                yield _Issue("atom.call outside the lane nest", "machine", op)
        return
    level = op.attr("level")
    if level == "grid":
        threads = op.attr("threads")
        if threads is not None and not _pos_int(threads):
            yield _Issue(f"grid nest threads = {threads!r} is not a positive count", "machine",
                         op)
            return
        trav = op.attr("traversal")
        if trav is not None:
            rank = int(op.attr("rank"))
            static = [d.attr("value") if (d := v.defining_op) is not None
                      and d.name == "constant" else None for v in op.operands[:rank]]
            why = check_traversal(trav, rank, static)
            if why is not None:
                yield _Issue(why, "machine", op)
        body = op.regions[0].entry
        lanes = [o for o in body.operations if o.name == "parallel"]
        if len(lanes) != 1 or lanes[0].attr("level") != "lane":
            yield _Issue("a grid nest holds exactly one lane nest", "machine", op)
            return
        ext = lanes[0].operand(0).defining_op
        if ext is None or ext.name != "constant":
            yield _Issue("the lane nest runs a constant number of threads", "machine",
                         lanes[0])
        elif threads is not None and ext.attr("value") != threads:
            yield _Issue(f"the lane nest must run exactly threads = {threads} lanes",
                         "machine", lanes[0])
    elif level == "lane":
        p = op.parent_op
        if p is None or p.name != "parallel" or p.attr("level") != "grid":
            yield _Issue("a lane nest sits directly in a grid nest", "machine", op)
    else:
        yield _Issue(f"Machine form nests are grid or lane level, not {level!r}", "machine", op)


@_per_op("16")
def _check_atoms(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 16: catalog atoms with the catalog's operand layouts, types and roles."""
    if not _claims(ctx, op):
        return
    if op.name != "atom.call":
        return
    yield from atom_call_issues(op)


@_per_op("machine")
def _check_shared_placement(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """A group whose shared buffers are placed: all of them, aligned, disjoint, and inside
    the group's ``shared_bytes`` (``ir.allocation``)."""
    if not _claims(ctx, op) or op.name != "parallel" or op.attr("level") != "grid":
        return
    bufs = list(shared_buffers(op))
    unplaced = [b for b in bufs if b.attr("offset") is None]
    if not bufs or len(unplaced) == len(bufs):
        return
    if unplaced:
        yield _Issue("this shared buffer has no offset while others of its group have one; "
                     "the allocate stage places every buffer", "machine", unplaced[0])
        return
    spans = sorted((b.attr("offset"), b.attr("offset") + buffer_bytes(b), k)
                   for k, b in enumerate(bufs))
    for b in bufs:
        if b.attr("swizzle") and b.attr("offset") % SWIZZLE_ALIGN:
            yield _Issue(f"a swizzled shared buffer at offset {b.attr('offset')} is not "
                         f"{SWIZZLE_ALIGN}-byte aligned", "machine", b)
            return
    for (_, end, k0), (start, _, k1) in zip(spans, spans[1:]):
        if start < end:
            yield _Issue(f"shared buffers overlap: bytes {start}..{end - 1} are also those of "
                         f"the buffer at offset {bufs[k0].attr('offset')}", "machine", bufs[k1])
            return
    need = spans[-1][1]
    if not isinstance(op.attr("shared_bytes"), int) or op.attr("shared_bytes") < need:
        yield _Issue(f"the group's shared_bytes {op.attr('shared_bytes')!r} is less than the "
                     f"{need} bytes its placed buffers reach", "machine", op)


@_per_op("15")
def _check_versions(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 15: a versioned buffer is only viewed with its version axis fixed."""
    if not _claims(ctx, op):
        return
    if op.name != "view":
        return
    base = op.operand(0)
    d = base.defining_op
    if d is None or d.name != "memory" or not _pos_int(d.attr("versions")):
        return
    if d.attr("versions") == 1:
        return
    first = op.attr("map").results[0]
    if any(atom[0] == "d" for atom, _ in first.terms) or first.max_dim():
        yield _Issue("a view of a ring buffer must select one version (its first result may "
                     "not depend on the view's coordinates)", "15", op)


@_per_op("17")
def _check_guards(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 17: asynchronous copies run under a specialization guard."""
    if not _claims(ctx, op):
        return
    if op.name != "atom.call" or not str(op.attr("catalog_id")).startswith("cp.async."):
        return
    if op.attr("catalog_id") in ("cp.async.commit", "cp.async.wait"):
        return
    if not any(p.name == "if" and isinstance(p.attr("guard"), str) for p in _ancestors(op)):
        yield _Issue(f"{op.attr('catalog_id')} assumes aligned addresses; it must sit under a "
                     "specialization guard (an 'if' with a guard attribute)", "17", op)


# ---------------------------------------------------------------------------- tables


def form_checks(structural: tuple[Check, ...], core: tuple[Check, ...],
                candidate: tuple[Check, ...]) -> dict[str, tuple[Check, ...]]:
    """The scheduled and machine check tables, built from ``verifier.py``'s pieces."""
    new_core = tuple(Check("form-signature", "op-signature", _signature_check)
                     if c.name == "op-signature" else c for c in core
                     if c.name != "family-form")
    scheduled = (
        Check("bindings", "2", _check_bindings),
        Check("layouts", "7", _check_layouts),
        Check("matrix-participants", "6", _check_matrix),
        Check("reduction-layouts", "6", _check_reduction_layouts),
        Check("memory-plans", "11", _check_memory_plans),
        Check("repartitions", "13", _check_repartitions),
    )
    machine = (
        Check("machine-structure", "machine", _check_machine_structure),
        Check("atoms", "16", _check_atoms),
        Check("ring-versions", "15", _check_versions),
        Check("guards", "17", _check_guards),
        Check("memory-roots", "12", _check_memory_plans),
        Check("shared-placement", "machine", _check_shared_placement),
    )
    return {
        "scheduled": structural + new_core + candidate + scheduled,
        "machine": structural + new_core + candidate + machine,
    }
