"""Dominance: lexical across nested regions, CFG dominators inside multi-block regions.

Rules (seed 001 lists "dominance and post-dominance" as an essential analysis
and the verifier checks "lexical dominance"):

* Inside one block, an operation dominates the operations after it.
* Inside one region with several blocks (connected by ``br`` successors on
  each block's terminator), block dominance is the usual CFG dominance with
  the region's first block as the entry. A block unreachable from the entry
  can never execute, so every block of its region dominates it (the LLVM and
  MLIR convention); an unreachable block dominates no reachable one.
* Regions nest lexically: an operation, block or value inside a region of
  ``op`` is treated as sitting at ``op``'s position for every query against
  the enclosing blocks. So a value defined earlier in an enclosing block, or
  a block argument of an enclosing block, dominates everything nested below.
* The results of an operation do *not* dominate the operations nested in its
  own regions (those run before the results exist), but the operation itself
  properly dominates them (``properly_dominates``, as in MLIR).
* Detached operations and blocks are outside the IR: every query involving
  them is False.

The analysis is a snapshot. Block orders and region dominator trees are built
lazily on first query, O(size of that block or region) each, and cached; a
cache miss on an operation or block that is not in the snapshot rebuilds
just that block or region. After mutating, get a fresh ``DominanceInfo``
(the ``AnalysisManager`` does this when a mutation invalidates it).
"""

from __future__ import annotations

from typing import Any

from .analysis import Analysis
from .core import Block, BlockArgument, Operation, OpResult, Region, Value

__all__ = ["DominanceInfo"]


class _RegionTree:
    """The dominator tree of one multi-block region, as DFS intervals for O(1) queries."""

    __slots__ = ("members", "enter", "leave", "idom")

    def __init__(self, region: Region) -> None:
        self.members: frozenset[Block] = frozenset(region.blocks)
        """The blocks of the region when the tree was built."""
        self.enter: dict[Block, int] = {}
        """Block -> pre-order number in the dominator tree (reachable blocks only)."""
        self.leave: dict[Block, int] = {}
        """Block -> largest pre-order number in its dominator subtree."""
        self.idom: dict[Block, Block | None] = {}
        """Block -> immediate dominator (None for the entry)."""
        self._build(region)

    @staticmethod
    def _successors(block: Block, region: Region) -> list[Block]:
        last = block.operations.last
        if last is None:
            return []
        # Only edges within the region count; a branch elsewhere is a verifier error.
        return [s for s in last.successors if s.parent is region]

    def _build(self, region: Region) -> None:
        entry = region.blocks.first
        if entry is None:
            return
        # Iterative DFS post-order from the entry (no recursion limit on deep CFGs).
        post: list[Block] = []
        visited = {entry}
        stack: list[tuple[Block, list[Block]]] = [(entry, self._successors(entry, region))]
        preds: dict[Block, list[Block]] = {entry: []}
        while stack:
            b, succs = stack[-1]
            if succs:
                s = succs.pop()
                preds.setdefault(s, []).append(b)
                if s not in visited:
                    visited.add(s)
                    stack.append((s, self._successors(s, region)))
            else:
                stack.pop()
                post.append(b)
        number = {b: i for i, b in enumerate(post)}
        rpo = post[::-1]
        # Cooper, Harvey and Kennedy's iterative algorithm; converges in a few RPO sweeps.
        idom: dict[Block, Block] = {entry: entry}

        def meet(a: Block, b: Block) -> Block:
            """The nearest common dominator of ``a`` and ``b`` found so far."""
            while a is not b:
                while number[a] < number[b]:
                    a = idom[a]
                while number[b] < number[a]:
                    b = idom[b]
            return a

        changed = True
        while changed:
            changed = False
            for b in rpo[1:]:
                new: Block | None = None
                for p in preds.get(b, ()):
                    if p in idom:
                        new = p if new is None else meet(p, new)
                if new is not None and idom.get(b) is not new:
                    idom[b] = new
                    changed = True
        children: dict[Block, list[Block]] = {b: [] for b in rpo}
        for b in rpo[1:]:
            children[idom[b]].append(b)
        self.idom = {b: (None if b is entry else idom[b]) for b in rpo}
        counter = 0
        walk: list[tuple[Block, bool]] = [(entry, False)]
        while walk:
            b, done = walk.pop()
            if done:
                self.leave[b] = counter - 1
                continue
            self.enter[b] = counter
            counter += 1
            walk.append((b, True))
            walk.extend((c, False) for c in children[b])

    def dominates(self, a: Block, b: Block) -> bool:
        """``a`` dominates ``b`` (both in this region; reflexive)."""
        eb = self.enter.get(b)
        if eb is None:
            return True  # b is unreachable: vacuously dominated
        ea = self.enter.get(a)
        if ea is None:
            return False
        return ea <= eb <= self.leave[a]


class DominanceInfo(Analysis):
    """Dominance queries over a Function or Module (lexical across regions, CFG within)."""

    name = "dominance"
    reads_attributes = False

    def __init__(self, root: Any) -> None:
        self.root = root
        """The Function or Module this snapshot describes."""
        self._order: dict[Block, dict[Operation, int]] = {}
        self._trees: dict[Region, _RegionTree] = {}

    # -- per-block and per-region tables -------------------------------------------------
    def _position(self, op: Operation) -> int:
        """Index of ``op`` in its block; builds the block's table on a miss. O(1) amortized."""
        block = op.parent
        assert block is not None
        table = self._order.get(block)
        if table is None or op not in table:
            table = {o: i for i, o in enumerate(block.operations)}
            self._order[block] = table
        return table[op]

    def _tree(self, region: Region, a: Block, b: Block) -> _RegionTree:
        """The region's dominator tree; rebuilt when a queried block is not in the snapshot."""
        tree = self._trees.get(region)
        if tree is None or a not in tree.members or b not in tree.members:
            tree = _RegionTree(region)
            self._trees[region] = tree
        return tree

    # -- walking up the nest -------------------------------------------------------------
    @staticmethod
    def _op_in_region(op: Operation, region: Region) -> Operation | None:
        """The ancestor of ``op`` (maybe ``op``) whose block lies directly in ``region``."""
        cur: Operation | None = op
        while cur is not None:
            block = cur.parent
            if block is None:
                return None
            if block.parent is region:
                return cur
            cur = block.parent_op
        return None

    @staticmethod
    def _block_in_region(block: Block, region: Region) -> Block | None:
        """The ancestor block of ``block`` (maybe itself) that lies directly in ``region``."""
        cur: Block | None = block
        while cur is not None:
            if cur.parent is region:
                return cur
            owner = cur.parent_op
            cur = owner.parent if owner is not None else None
        return None

    def _blocks_dominate(self, a: Block, b: Block) -> bool:
        """``a`` dominates ``b``, both directly in the same region."""
        if a is b:
            return True
        region = a.parent
        assert region is not None
        if region.blocks.first is region.blocks.last:
            return False
        return self._tree(region, a, b).dominates(a, b)

    # -- public queries ------------------------------------------------------------------
    def block_dominates(self, a: Block, b: Block) -> bool:
        """Every path to ``b`` (or to the op holding ``b``'s region) passes through ``a``.

        Reflexive. ``b`` may be nested in regions of operations inside blocks
        that ``a`` dominates. O(nesting depth) after the region's tree is built.
        """
        if not (a.is_attached and b.is_attached) or a.parent is None:
            return False
        anc = self._block_in_region(b, a.parent)
        return anc is not None and self._blocks_dominate(a, anc)

    def properly_dominates(self, a: Operation, b: Operation) -> bool:
        """``a`` runs before ``b`` on every path to ``b``, or ``b`` is nested inside ``a``.

        Irreflexive. O(nesting depth) after the tables are built.
        """
        if a is b or not (a.is_attached and b.is_attached):
            return False
        block = a.parent
        assert block is not None
        anc = self._op_in_region(b, block.parent)  # type: ignore[arg-type]
        if anc is None:
            return False
        if anc is a:
            return True  # b is nested in a's regions
        if anc.parent is block:
            return self._position(a) < self._position(anc)
        return self._blocks_dominate(block, anc.parent)  # type: ignore[arg-type]

    def dominates(self, value: Value, op: Operation) -> bool:
        """The definition of ``value`` is available at ``op`` (``op`` may use it)."""
        if not op.is_attached:
            return False
        if isinstance(value, BlockArgument):
            owner = value.owner
            if not owner.is_attached or owner.parent is None:
                return False
            anc = self._op_in_region(op, owner.parent)
            return anc is not None and self._blocks_dominate(owner, anc.parent)  # type: ignore
        if isinstance(value, OpResult):
            d = value.owner
            if d is op or not d.is_attached or d.is_ancestor_of(op):
                return False
            return self.properly_dominates(d, op)
        return False

    def __repr__(self) -> str:
        return f"<DominanceInfo of {self.root!r}>"

