"""The TileIR verifier: structural invariants plus the invariants of each verified form.

``verify(ir, form)`` checks a ``Module`` or a ``Function`` and raises a
``VerificationError`` at the first broken invariant (``collect=True`` returns
every error instead). Each error names its invariant and reprints the
enclosing function around the offending operation with that operation
underlined. Unexpected exceptions inside a check or an op's verify hook are
reported as ``internal error while verifying ...`` errors naming the
operation, never as raw tracebacks.

Checks are data: ``FORM_CHECKS`` maps each form to an ordered tuple of
``Check`` records (a name, the invariant it enforces, and a function). Adding
an invariant to a form is one entry. The order matters: the structural checks
come first and later checks rely on them (in collect mode a structural failure
stops the run, because walking a broken spine can mislead every later check);
an operation that failed one check is skipped by the per-operation checks
after it, so one defect yields one error.

``CANDIDATE_INVARIANTS`` (the ids a candidate-form error can carry):

* structural: ``ordering`` (intrusive lists are consistent), ``parent``
  (parent pointers match membership), ``unique-id``, ``definition`` (results,
  block arguments and operands name live definitions of the same function),
  ``use-list`` (both directions of every use-def edge), ``terminator``,
  ``dominance`` (lexical, via ``DominanceInfo``), ``symbol`` and ``types``
  (calls and function signatures), ``op-signature`` and ``region-state-flow``
  (opcode counts, attributes, types and region flow, from ``ops.py``);
* seed 001 invariants: ``1`` (index-map compositions and images), ``4``
  (semantic tile operations sit in a ``parallel``, nested levels ordered),
  ``8`` and ``11`` (only the parts the op hooks check), ``9`` (reduction
  contract, including merge recognition for tree policies), ``10`` (vacuous:
  no sort or selection operations exist), ``14`` (pipeline stages) and ``18``
  (registered families in a legal form, no unknown attributes).

``LATER_FORM_INVARIANTS`` lists the seed invariants that need Scheduled or
Machine facts (execution bindings, distributions, memory plans, atom
contracts, guards) that candidate IR does not carry yet, each with the reason.
The ``scheduled`` and ``machine`` forms currently run the candidate checks
(with ``atom.call`` legal in machine form).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .core import Block, BlockArgument, IList, Operation, OpResult, Region, Use, Value
from .diagnostics import VerificationError
from .dominance import DominanceInfo
from .module import Function, Module
from .opdef import OPS, OpVerifyError
from .ops import check_signature
from .printer import Printer
from .types import index
from .verifier_render import to_error

__all__ = ["verify", "CANDIDATE_INVARIANTS", "LATER_FORM_INVARIANTS", "FORMS", "FORM_CHECKS",
           "Check"]

FORMS = ("candidate", "scheduled", "machine")
"""The verified forms, weakest first (seed 001, "Forms and invariants")."""

CANDIDATE_INVARIANTS: dict[str, str] = {
    "ordering": "function, block and operation lists are consistent doubly linked lists",
    "parent": "every function, region, block and operation points at the container holding it",
    "unique-id": "operation ids, block ids and function names are unique",
    "definition": "results, block arguments and operands name live definitions of the function",
    "use-list": "each operand's Use is linked into exactly its value's list, and vice versa",
    "terminator": "blocks end in their terminator (yield / return or br) and only there",
    "op-signature": "operations have their opcode's counts, attributes and operand types",
    "region-state-flow": "region arguments, yields, returns and branches carry the typed state",
    "types": "call sites match the callee's signature; shape symbols are index parameters",
    "symbol": "every called function exists in the module",
    "dominance": "every operand's definition lexically dominates its use",
    "1": "index maps of views and reindexes compose with matching spaces and stay in range",
    "4": "semantic tile operations sit inside a parallel region; nested levels are ordered",
    "8": "(partial, op hooks) parallel ancestor updates are typed payload/origin patches",
    "9": "reductions: valid grouping, resolved policy, typed pure update, recognized tree merge",
    "10": "vacuous: the inventory has no sort or selection operation, so no comparator exists",
    "11": "(partial, op hooks) manual memory has static extents",
    "14": "pipeline stages: single-block ordered stage regions, unique names, typed stage flow",
    "18": "every operation is a registered opcode of a family legal in the form, known attrs only",
}
"""Each invariant id a candidate-form ``VerificationError`` can carry, with what it means."""

LATER_FORM_INVARIANTS: dict[str, str] = {
    "2": "scheduled: needs ParallelMap / temporal child maps of a concrete ExecStructure",
    "3": "scheduled: needs execution bindings to a target-scope containment poset",
    "5": "scheduled: needs ExecRemap records with their proofs",
    "6": "scheduled/machine: anchors, frontiers and atom participant contracts are planned",
    "7": "scheduled: needs concrete distributions to check exact coverage",
    "8": "scheduled: footprint/old-snapshot preservation needs the realized assembly "
         "(candidate checks only the typed update record)",
    "11": "scheduled: memory resource classes and instance topology come from the memory plan",
    "12": "machine: resource instances, allocation slices and addresses are realized there",
    "13": "scheduled/machine: visibility needs realized synchronization",
    "15": "scheduled: ring-buffer versions exist only after pipeline scheduling",
    "16": "machine: atom operand layouts exist only after atom selection",
    "17": "scheduled: specialization guards are produced by planning",
}
"""Seed invariants that belong to the scheduled or machine form, with the reason."""

_FAMILY_FORMS: dict[str, tuple[str, ...]] = {
    "control": FORMS, "structured": FORMS, "aggregation": FORMS, "pure": FORMS,
    "effect": FORMS, "machine": ("machine",),
}
"""Forms in which each op family is legal. A new family must be added here to verify at all."""

# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class _Issue:
    """One broken invariant, before rendering."""

    message: str
    invariant: str
    op: Operation | None = None
    function: Function | None = None


@dataclass(frozen=True)
class Check:
    """One named verifier check and the invariant it enforces."""

    name: str
    """Short stable name (used in internal-error messages)."""
    invariant: str
    """The invariant id it enforces (issues may carry a more specific one from a hook)."""
    run: Callable[[_Context], Iterable[_Issue]]
    """Yields the problems found."""
    structural: bool = False
    """True when later checks are meaningless if this one fails."""


class _Stop(Exception):
    """Unwinds the run at the first issue when not collecting."""


# --------------------------------------------------------------------------- context


class _Context:
    """What one ``verify`` call knows: the reached IR, the issues so far, render caches."""

    def __init__(self, root: Module | Function, form: str, collect: bool) -> None:
        self.form = form
        self.collect = collect
        self.module: Module | None = root if isinstance(root, Module) else root.parent
        self.is_module_root = isinstance(root, Module)
        self.functions: list[Function] = []
        self.ops: list[Operation] = []
        """Every reached operation, pre-order."""
        self.blocks: list[Block] = []
        self.regions: list[tuple[Region, Operation | Function]] = []
        """Every reached region with the owner it was reached from."""
        self.op_block: dict[Operation, Block] = {}
        """Operation -> the block whose list yielded it."""
        self.block_region: dict[Block, Region] = {}
        self.fn_of: dict[Operation | Block, Function] = {}
        self.link_issues: list[_Issue] = []
        """Broken list links found while collecting (reported by the ordering check)."""
        self.issues: list[_Issue] = []
        self.bad: set[Operation] = set()
        """Operations already reported; later per-op checks skip them."""
        self.cursor: Operation | None = None
        """The operation a check is looking at (named by internal errors)."""
        self._dominance: dict[Function, DominanceInfo] = {}
        self._printed: dict[Function, Printer | None] = {}
        self._seen_regions: set[Region] = set()
        fns = self._walk_list(root.functions, Function, root) if isinstance(root, Module) \
            else [root]
        for fn in fns:
            self.functions.append(fn)
            self._collect_region(fn.body, fn, fn)

    # -- collection ---------------------------------------------------------------------
    def _walk_list(self, ilist: IList, kind: type, anchor: Any) -> list[Any]:
        """The nodes of ``ilist``; link defects go to ``link_issues``. Safe on cycles."""
        nodes: list[Any] = []
        seen: set[int] = set()
        prev = None
        node = ilist.first
        what = kind.__name__.lower()
        while node is not None:
            if not isinstance(node, kind):
                self._link_issue(f"a {what} list holds {node!r}", anchor)
                break
            if id(node) in seen:
                self._link_issue(f"the {what} list loops back to {node!r}", node)
                break
            if node._prev is not prev:  # read-only look at the link (the verifier's job)
                self._link_issue(f"{node!r}: its 'previous' link does not point at the "
                                 f"{what} before it", node)
            seen.add(id(node))
            nodes.append(node)
            prev = node
            node = node._next
        if ilist.last is not prev:
            self._link_issue(f"the {what} list's tail is not its last {what}", prev or anchor)
        if len(ilist) != len(nodes):
            self._link_issue(f"the {what} list records length {len(ilist)} but holds "
                             f"{len(nodes)}", prev or anchor)
        return nodes

    def _link_issue(self, message: str, where: Any) -> None:
        op = where if isinstance(where, Operation) else None
        fn = where if isinstance(where, Function) else None
        if isinstance(where, Block):
            op = where.operations.first or where.parent_op
        self.link_issues.append(_Issue(message, "ordering", op, fn))

    def _collect_region(self, region: Region, owner: Operation | Function, fn: Function) -> None:
        if region in self._seen_regions:
            self._link_issue("a region is reached twice (shared by two owners)", owner)
            return
        self._seen_regions.add(region)
        self.regions.append((region, owner))
        for block in self._walk_list(region.blocks, Block, owner):
            if block in self.block_region:
                self._link_issue(f"{block!r} is reached twice", owner)
                continue
            self.blocks.append(block)
            self.block_region[block] = region
            self.fn_of[block] = fn
            for op in self._walk_list(block.operations, Operation, block):
                if op in self.op_block:
                    self._link_issue(f"{op.name}#{op.id} is reached twice", op)
                    continue
                self.ops.append(op)
                self.op_block[op] = block
                self.fn_of[op] = fn
                for r in op.regions:
                    self._collect_region(r, op, fn)

    # -- reporting ----------------------------------------------------------------------
    def add(self, issue: _Issue) -> None:
        """Record ``issue``; stops the run unless collecting."""
        self.issues.append(issue)
        if issue.op is not None:
            self.bad.add(issue.op)
        if not self.collect:
            raise _Stop

    def dominance(self, fn: Function) -> DominanceInfo:
        """The dominance snapshot of ``fn`` (built once per verify call)."""
        info = self._dominance.get(fn)
        if info is None:
            info = self._dominance[fn] = DominanceInfo(fn)
        return info

    def printer(self, fn: Function) -> Printer | None:
        """``fn`` printed once, or None when printing is unsafe or fails."""
        if fn in self._printed:
            return self._printed[fn]
        p: Printer | None = None
        if not self.link_issues:  # a broken list could make the printer loop
            try:
                p = Printer()
                p.function(fn)
            except Exception:  # an unprintable attribute must not hide the real error
                p = None
        self._printed[fn] = p
        return p

    def name(self, v: Value, fn: Function | None) -> str:
        """``v`` as the context excerpt prints it."""
        p = self.printer(fn) if fn is not None else None
        if p is not None:
            return p.name_of(v)
        if isinstance(v, OpResult):
            return f"result {v.index} of {v.owner.name}#{v.owner.id}"
        if isinstance(v, BlockArgument):
            return f"argument {v.index} of block #{v.owner.id}"
        return repr(v)


# ---------------------------------------------------------------------- check helpers


def _per_op(invariant: str) -> Callable[[Callable[[_Context, Operation], Iterable[_Issue]]],
                                        Callable[[_Context], Iterator[_Issue]]]:
    """Lift a per-operation check over every reached operation not yet reported."""
    return lambda check: _lift(check, invariant)


def _lift(check: Callable[[_Context, Operation], Iterable[_Issue]], invariant: str
          ) -> Callable[[_Context], Iterator[_Issue]]:
    """``check`` run on each operation, a crash on one op reported as an internal error."""

    def run(ctx: _Context) -> Iterator[_Issue]:
        for op in ctx.ops:
            if op in ctx.bad:
                continue
            ctx.cursor = op
            try:
                issues = list(check(ctx, op))
            except Exception as e:  # one broken hook or check must not hide the rest
                issues = [_internal(ctx, op, invariant, e)]
            yield from issues

    run.__name__ = check.__name__
    run.__doc__ = check.__doc__
    return run


def _where(ctx: _Context, op: Operation) -> str:
    """``@function`` holding ``op``, for messages."""
    fn = ctx.fn_of.get(op)
    return f"@{fn.name}" if fn is not None else "the IR"


# -------------------------------------------------------------------- structural checks


def _check_ordering(ctx: _Context) -> Iterator[_Issue]:
    """Doubly linked function, block and operation lists: links, tails, lengths, no cycles."""
    yield from ctx.link_issues


def _check_parents(ctx: _Context) -> Iterator[_Issue]:
    """Each node's parent pointer names the container whose list (or tuple) holds it."""
    for fn in ctx.functions:
        if ctx.is_module_root and fn.parent is not ctx.module:
            yield _Issue(f"@{fn.name} is listed in the module but its parent is {fn.parent!r}",
                         "parent", None, fn)
    for region, owner in ctx.regions:
        if region.owner is not owner:
            where = owner if isinstance(owner, Operation) else None
            yield _Issue(f"a region of {owner!r} names {region.owner!r} as its owner", "parent",
                         where, owner if isinstance(owner, Function) else None)
        if region.blocks.owner is not region:
            yield _Issue("a region's block list belongs to another region", "parent",
                         owner if isinstance(owner, Operation) else None)
    for block in ctx.blocks:
        region = ctx.block_region[block]
        if block.parent is not region or block.operations.owner is not block:
            anchor = block.operations.first or block.parent_op
            yield _Issue(f"{block!r} sits in a region's list but its parent pointer disagrees",
                         "parent", anchor, ctx.fn_of[block] if anchor is None else None)
    for op in ctx.ops:
        ctx.cursor = op
        if op.parent is not ctx.op_block[op]:
            yield _Issue(f"{op.name}#{op.id} sits in {ctx.op_block[op]!r} but its parent is "
                         f"{op.parent!r}", "parent", op)


def _check_unique_ids(ctx: _Context) -> Iterator[_Issue]:
    """Operation ids and block ids are unique; function names match the symbol table."""
    ops: dict[int, Operation] = {}
    for op in ctx.ops:
        ctx.cursor = op
        other = ops.setdefault(op.id, op)
        if other is not op:
            yield _Issue(f"{op.name} has id {op.id}, already used by {other.name}", "unique-id",
                         op)
    blocks: dict[int, Block] = {}
    for b in ctx.blocks:
        other_b = blocks.setdefault(b.id, b)
        if other_b is not b:
            yield _Issue(f"two blocks share id {b.id}", "unique-id",
                         b.operations.first or b.parent_op)
    names: set[str] = set()
    for fn in ctx.functions:
        if fn.name in names:
            yield _Issue(f"two functions are named @{fn.name}", "unique-id", None, fn)
        names.add(fn.name)
        if ctx.is_module_root and ctx.module is not None and ctx.module.lookup(fn.name) is not fn:
            yield _Issue(f"the symbol table does not map @{fn.name} to this function",
                         "unique-id", None, fn)


def _defined_in(ctx: _Context, v: Value) -> tuple[Function | None, str | None]:
    """The function defining ``v``, or None with the reason ``v`` is not a live definition."""
    if isinstance(v, OpResult):
        d = v.owner
        if d not in ctx.op_block:
            return None, f"a result of {d.name}#{d.id}, which is not in the IR (detached or erased)"
        if not (0 <= v.index < len(d.results)) or d.results[v.index] is not v:
            return None, f"a stale result object of {d.name}#{d.id}"
        return ctx.fn_of[d], None
    if isinstance(v, BlockArgument):
        b = v.owner
        if b not in ctx.block_region:
            return None, "an argument of a block that is not in the IR"
        if not (0 <= v.index < len(b.args)) or b.args[v.index] is not v:
            return None, "a block argument that its block no longer declares"
        return ctx.fn_of[b], None
    return None, f"{v!r}, which is neither an operation result nor a block argument"


def _check_definitions(ctx: _Context) -> Iterator[_Issue]:
    """Results and block arguments know their owner and index; operands are live, same-function."""
    for block in ctx.blocks:
        for i, a in enumerate(block.args):
            if not isinstance(a, BlockArgument) or a.owner is not block or a.index != i:
                anchor = block.operations.first or block.parent_op
                yield _Issue(f"argument {i} of {block!r} records owner/index "
                             f"{getattr(a, 'owner', None)!r}/{getattr(a, 'index', None)}",
                             "definition", anchor)
    for op in ctx.ops:
        ctx.cursor = op
        fn = ctx.fn_of[op]
        for i, r in enumerate(op.results):
            if not isinstance(r, OpResult) or r.owner is not op or r.index != i:
                yield _Issue(f"result {i} of {op.name} records owner/index "
                             f"{getattr(r, 'owner', None)!r}/{getattr(r, 'index', None)}",
                             "definition", op)
        for i, use in enumerate(op.operand_uses):
            where, why = _defined_in(ctx, use.value)
            if why is not None:
                yield _Issue(f"operand {i} of {op.name} is {why}", "definition", op)
            elif where is not fn:
                yield _Issue(f"operand {i} of {op.name} is defined in @{where.name}, not in "
                             f"@{fn.name}", "definition", op)
        for k, s in enumerate(op.successors):
            if s not in ctx.block_region or ctx.fn_of[s] is not fn:
                yield _Issue(f"successor {k} of {op.name} is not a block of @{fn.name}",
                             "definition", op)


def _check_use_lists(ctx: _Context) -> Iterator[_Issue]:
    """Every operand's Use is linked into its value's list, and every listed Use is an operand."""
    for op in ctx.ops:
        ctx.cursor = op
        if not op.is_attached:
            yield _Issue(f"{op.name}#{op.id} is inside the IR but marked detached, so its uses "
                         "are not linked", "use-list", op)
            continue
        for slot, use in enumerate(op.operand_uses):
            v = use.value
            if use.owner is not op or use.index != slot:
                yield _Issue(f"operand {slot} of {op.name}: its Use records owner "
                             f"{use.owner!r} slot {use.index}", "use-list", op)
            elif use.linked_list_owner is None:
                yield _Issue(f"operand {slot} of {op.name}: its Use is not linked into "
                             f"{ctx.name(v, ctx.fn_of[op])}'s use list", "use-list", op)
            elif use.linked_list_owner is not v:
                yield _Issue(f"operand {slot} of {op.name} names {ctx.name(v, ctx.fn_of[op])} "
                             "but its Use is linked into the use list of "
                             f"{ctx.name(use.linked_list_owner, ctx.fn_of[op])}", "use-list", op)
            elif not _neighbours_ok(use):
                yield _Issue(f"operand {slot} of {op.name}: the neighbours of its Use in the use "
                             "list do not point back at it", "use-list", op)
    values: list[tuple[Value, Operation | None, Function]] = []
    for op in ctx.ops:
        values.extend((r, op, ctx.fn_of[op]) for r in op.results)
    for b in ctx.blocks:
        anchor = b.operations.first or b.parent_op
        values.extend((a, anchor, ctx.fn_of[b]) for a in b.args)
    for v, anchor, fn in values:
        ctx.cursor = anchor
        count = 0
        for use in _bounded(v.uses, v.num_uses + 1):
            count += 1
            if not isinstance(use, Use) or not _neighbours_ok(use):
                yield _Issue(f"the use list of {ctx.name(v, fn)} is broken: a link does not "
                             "lead to a Use that points back", "use-list", anchor,
                             fn if anchor is None else None)
                break
            user = use.owner
            slots = user.operand_uses
            where = user if user in ctx.op_block else anchor
            if user not in ctx.op_block:
                yield _Issue(f"the use list of {ctx.name(v, fn)} holds a Use of "
                             f"{user.name}#{user.id}, which is not in the IR", "use-list", where)
            elif not (0 <= use.index < len(slots)) or slots[use.index] is not use:
                yield _Issue(f"the use list of {ctx.name(v, fn)} holds a Use that {user.name} "
                             f"does not have in slot {use.index}", "use-list", where)
            elif use.value is not v or use.linked_list_owner is not v:
                yield _Issue(f"the use list of {ctx.name(v, fn)} holds a Use of {user.name} "
                             "that names another value", "use-list", where)
        if count != v.num_uses:
            yield _Issue(f"{ctx.name(v, fn)} counts {v.num_uses} uses but its list holds "
                         f"{count if count <= v.num_uses else 'more'}", "use-list", anchor,
                         fn if anchor is None else None)


def _bounded(uses: Iterator[Use], n: int) -> Iterator[Any]:
    """At most ``n`` items of a use list (a corrupted one may loop or hold a non-Use)."""
    try:
        for i, x in enumerate(uses):
            if i >= n:
                return
            yield x
    except AttributeError:
        yield None  # the walk fell off a link that is not a Use


def _neighbours_ok(use: Use) -> bool:
    """``use.neighbours_consistent``, False (not a crash) when a link is not a Use at all."""
    try:
        return use.neighbours_consistent
    except AttributeError:
        return False


# ------------------------------------------------------------------ form and signature


@_per_op("18")
def _check_family_form(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 18: a registered opcode, of a family legal in this form, with known attributes."""
    d = op.opdef
    if OPS.get(op.name) is not d:
        yield _Issue(f"'{op.name}' is not a registered operation", "18", op)
        return
    forms = _FAMILY_FORMS.get(d.family)
    if forms is None:
        yield _Issue(f"'{op.name}' belongs to family '{d.family}', which no verifier form "
                     "admits yet", "18", op)
    elif ctx.form not in forms:
        yield _Issue(f"'{op.name}' is a {d.family}-form operation; it is not legal in "
                     f"{ctx.form} form (only in {', '.join(forms)})", "18", op)
    elif not d.open_attrs:
        extra = sorted(set(op.attributes) - set(d.attrs))
        if extra:
            yield _Issue(f"{op.name} has unknown attribute(s) {', '.join(extra)}; it takes "
                         f"{', '.join(sorted(d.attrs)) or 'none'}", "18", op)


def _check_terminators(ctx: _Context) -> Iterator[_Issue]:
    """Function blocks end in return/br, op-region blocks in yield; terminators only last."""
    for fn in ctx.functions:
        if fn.body.blocks.first is None:
            yield _Issue(f"@{fn.name} has no entry block", "terminator", None, fn)
    for block in ctx.blocks:
        region = ctx.block_region[block]
        owner = region.owner
        in_function = isinstance(owner, Function)
        want = ("return", "br") if in_function else ("yield",)
        ops = list(block.operations)
        for op in ops[:-1]:
            if op.opdef.terminator:
                ctx.cursor = op
                yield _Issue(f"'{op.name}' terminates a block but is not its last operation",
                             "terminator", op)
        last = ops[-1] if ops else None
        what = f"a block of @{owner.name}" if isinstance(owner, Function) \
            else f"a region block of '{owner.name}'"  # type: ignore[union-attr]
        if last is None:
            yield _Issue(f"{what} is empty; it must end in {' or '.join(want)}", "terminator",
                         None if in_function else owner,  # type: ignore[arg-type]
                         ctx.fn_of[block] if in_function else None)
        elif last.name not in want:
            yield _Issue(f"{what} ends in '{last.name}'; it must end in {' or '.join(want)}",
                         "terminator", last)
        elif last.name == "br":
            for s in last.successors:
                if s is region.blocks.first:
                    yield _Issue("br targets the entry block of its region", "terminator", last)


@_per_op("14")
def _check_pipeline_stages(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Invariant 14: stage cuts are the pipeline's own single-block regions, uniquely named."""
    if op.name != "pipeline":
        return
    stages = op.attr("stages")
    if not (isinstance(stages, tuple) and all(isinstance(n, str) for n in stages)):
        return  # a malformed attribute is the signature check's to report
    if len(stages) != len(op.regions):
        yield _Issue(f"pipeline names {len(stages)} stage(s) but has {len(op.regions)} stage "
                     "region(s)", "14", op)
        return
    for k, region in enumerate(op.regions):
        if len(region.blocks) != 1:
            yield _Issue(f"pipeline stage {k} has {len(region.blocks)} blocks; a stage is one "
                         "block (a second block would be a cut inside the stage)", "14", op)
            return
    named = [n for n in stages if n]
    for n in named:
        if not n.isidentifier():
            yield _Issue(f"pipeline stage name {n!r} is not an identifier", "14", op)
            return
    dup = sorted({n for n in named if named.count(n) > 1})
    if dup:
        yield _Issue(f"pipeline stage name(s) {', '.join(dup)} are not unique", "14", op)
        return
    window = op.attr("window")
    if isinstance(window, int) and window < 1:
        yield _Issue(f"pipeline window {window} must keep at least one iteration in flight",
                     "14", op)


@_per_op("op-signature")
def _check_op_signature(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Counts and attributes (``check_signature``), then the opcode's own verify hook."""
    for step in (check_signature, op.opdef.verify):
        if step is None:
            continue
        try:
            step(op)
        except OpVerifyError as e:
            yield _Issue(str(e), e.invariant, op)
            return
        except Exception as e:  # a buggy hook is reported, not raised
            yield _internal(ctx, op, "op-signature", e)
            return


def _check_function_signatures(ctx: _Context) -> Iterator[_Issue]:
    """Shape symbols are strings naming the trailing ``index`` parameters."""
    for fn in ctx.functions:
        syms = fn.attributes.get("shape_symbols", ())
        if not (isinstance(syms, (tuple, list)) and all(isinstance(x, str) for x in syms)):
            yield _Issue(f"@{fn.name}: shape_symbols must be a tuple of names", "types", None, fn)
            continue
        args = fn.entry.args if fn.body.blocks.first is not None else []
        tail = args[len(args) - len(syms):] if syms else []
        if len(tail) != len(syms) or any(a.type is not index for a in tail):
            yield _Issue(f"@{fn.name}: the last {len(syms)} parameters must be the index "
                         f"extents {', '.join(syms)}", "types", None, fn)


@_per_op("dominance")
def _check_dominance(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """Every operand's definition dominates its use (lexically, CFG within a region)."""
    fn = ctx.fn_of[op]
    dom = ctx.dominance(fn)
    for i, v in enumerate(op.operands):
        if not dom.dominates(v, op):
            yield _Issue(f"operand {i} of {op.name}: {ctx.name(v, fn)} "
                         f"{_why_not_dominating(ctx, v, op)}", "dominance", op)
            return


def _why_not_dominating(ctx: _Context, v: Value, user: Operation) -> str:
    """A phrase saying why ``v`` is not available at ``user``."""
    block = v.owner if isinstance(v, BlockArgument) else v.owner.parent  # type: ignore[union-attr]
    region = block.parent
    anc: Operation | None = user
    while anc is not None and anc.parent_region is not region:
        anc = anc.parent_op
    if anc is None:
        owner = region.owner
        if isinstance(owner, Operation):
            k = next(i for i, r in enumerate(owner.regions) if r is region)
            return (f"is defined inside region {k} of '{owner.name}', which does not enclose "
                    "this use (a value never escapes its region, and sibling regions cannot "
                    "see each other's values)")
        return "is defined in a region that does not enclose this use"
    if isinstance(v, OpResult) and v.owner is anc:
        if anc is user:
            return "is this operation's own result"
        return f"is a result of the enclosing '{anc.name}', which does not exist inside it"
    if anc.parent is block:
        return "is used before its definition"
    p = ctx.printer(ctx.fn_of[user])
    bname = (lambda b: p.label_of(b)) if p is not None else (lambda b: f"block #{b.id}")
    return (f"is defined in {bname(block)}, which does not dominate {bname(anc.parent)} "
            "where it is used")


@_per_op("symbol")
def _check_calls(ctx: _Context, op: Operation) -> Iterator[_Issue]:
    """A call names a function of the module and matches its parameter and result types."""
    if op.name != "call":
        return
    name = op.attr("callee")
    callee = ctx.module.lookup(name) if ctx.module is not None else None
    if callee is None:
        where = "the module" if ctx.module is not None else "any module (the caller is not in one)"
        yield _Issue(f"call to @{name}, which is not a function of {where}", "symbol", op)
        return
    got = [v.type for v in op.operands]
    want = [a.type for a in callee.args]
    if got != want:
        yield _Issue(f"call passes ({', '.join(map(str, got))}) to @{name}, which takes "
                     f"({', '.join(map(str, want))})", "types", op)
    rgot = [r.type for r in op.results]
    if rgot != list(callee.result_types):
        yield _Issue(f"call expects ({', '.join(map(str, rgot))}) from @{name}, which returns "
                     f"({', '.join(map(str, callee.result_types))})", "types", op)


# ------------------------------------------------------------------------ the tables


_STRUCTURAL: tuple[Check, ...] = (
    Check("list-links", "ordering", _check_ordering, structural=True),
    Check("parents", "parent", _check_parents, structural=True),
    Check("unique-ids", "unique-id", _check_unique_ids, structural=True),
    Check("definitions", "definition", _check_definitions, structural=True),
    Check("use-lists", "use-list", _check_use_lists, structural=True),
)
_CORE: tuple[Check, ...] = (
    Check("family-form", "18", _check_family_form),
    Check("terminators", "terminator", _check_terminators),
    Check("pipeline-stages", "14", _check_pipeline_stages),
    Check("op-signature", "op-signature", _check_op_signature),
    Check("function-signatures", "types", _check_function_signatures),
    Check("dominance", "dominance", _check_dominance),
    Check("calls", "symbol", _check_calls),
)
FORM_CHECKS: dict[str, tuple[Check, ...]] = {}
"""The ordered checks of each form (filled in at the end of this module: the candidate checks
are ``verifier_candidate``'s, the scheduled and machine tables ``verifier_forms``')."""


# ---------------------------------------------------------------------------- driver


def _internal(ctx: _Context, op: Operation | None, invariant: str, exc: Exception) -> _Issue:
    what = f"{op.name}#{op.id}" if op is not None else "the IR"
    return _Issue(f"internal error while verifying {what}: {type(exc).__name__}: {exc}",
                  invariant, op)


def verify(ir: Module | Function, form: str = "candidate", *,
           collect: bool = False) -> list[VerificationError]:
    """Check ``ir`` in ``form``; raise the first ``VerificationError`` (all if ``collect``)."""
    if not isinstance(ir, (Module, Function)):
        raise TypeError(f"verify takes a Module or a Function, not {type(ir).__name__}")
    if form not in FORM_CHECKS:
        raise ValueError(f"unknown form {form!r}; known: {', '.join(FORM_CHECKS)}")
    ctx: _Context | None = None
    try:
        ctx = _Context(ir, form, collect)
        for check in FORM_CHECKS[form]:
            ctx.cursor = None
            try:
                for issue in check.run(ctx):
                    ctx.add(issue)
            except _Stop:
                raise
            except Exception as e:  # a check crashed: report it against what it was looking at
                ctx.add(_internal(ctx, ctx.cursor, check.invariant, e))
            if check.structural and ctx.issues:
                break
    except _Stop:
        pass
    except Exception as e:  # collecting the IR itself failed on a badly broken spine
        err = VerificationError(f"internal error while collecting the IR: "
                                f"{type(e).__name__}: {e}", "ordering")
        if collect:
            return [err]
        raise err from None
    errors = [to_error(ctx, i) for i in ctx.issues]
    if errors and not collect:
        raise errors[0] from None
    return errors


from .verifier_candidate import CANDIDATE_CHECKS as _CANDIDATE  # noqa: E402  (needs the above)
from .verifier_forms import form_checks as _form_checks  # noqa: E402  (needs everything above)

FORM_CHECKS.update({form: _STRUCTURAL + _CORE + _CANDIDATE for form in FORMS})
FORM_CHECKS.update(_form_checks(_STRUCTURAL, _CORE, _CANDIDATE))  # scheduled, machine
