"""``reduce`` on the CPU: the emission methods of ``CEmitter`` for aggregation.

* ``unordered_tree`` with a recognized merge (the ``combiner`` attribute, or
  an update ``state op x`` through ``cast`` chains with ``x`` independent of
  the states, as the reference recognizes it) over a suffix of the axes: each
  contribution (the update applied to the merge's exact identity) joins one of
  the plan's lane partials (``plan.py``: 8 or 16, a vectorizable loop), the
  lanes merge pairwise, then
  ``merge(seed, partial)``. The regrouping differs from the reference's tree,
  so sums agree within their rounding error, max/min exactly;
* otherwise, in source order (``strict_fold``): a row loop with the state in
  a register when the reduced axes are a suffix, else state arrays over the
  kept coordinates updated in row-major order of the whole tile, which keeps
  every state's contributions in order and vectorizes over a kept innermost axis.
"""

from __future__ import annotations

from collections.abc import Sequence

import tilec.ir as ir
from tilec.targets.clike import prod
from tilec.targets.cpu.access import CopyLoops
from tilec.targets.cpu.values import Tile

__all__ = ["ReductionEmission"]


class ReductionEmission:
    """Mixin of ``CEmitter``: the ``reduce`` operation."""

    def emit_reduce(self, op: ir.Operation) -> None:
        """Fold along axes: lanes for recognized tree merges, else in source order."""
        n_in = op.attr("n_inputs")
        axes = tuple(sorted(op.attr("axes")))
        inputs = [self.materialize(v, op) for v in op.operands[:n_in]]
        seeds = [self.scalar(v, op) for v in op.operands[n_in:]]
        shape = inputs[0].shape
        rank = len(shape)
        kept = [j for j in range(rank) if j not in axes]
        n_keep = prod(shape[j] for j in kept)
        n_red = prod(shape[j] for j in axes)
        outs = [self.new_tile(r) for r in op.results]
        block = op.regions[0].entry
        choice = self.plan.reductions[ir.op_number(op)]  # the realization plan (plan.py)
        if choice.kind == "lanes":
            self._reduce_lanes(op, block, inputs, seeds, outs, ir.merge_laws(op), n_keep, n_red,
                               choice.lanes)
        elif choice.kind == "rows":
            self._reduce_rows(op, block, inputs, seeds, outs, n_keep, n_red)
        else:
            self._reduce_general(op, block, inputs, seeds, outs, shape, kept)
        for r, o in zip(op.results, outs):
            self.bind(r, o)

    def merge_expr(self, fn: str, a: str, b: str, t: ir.ScalarType) -> str:
        """``fn(a, b)`` on values of type ``t`` (rounded for narrow floats)."""
        if t is ir.i1:
            return self.BOOL_FNS[fn].format(a, b)
        table = self.FLOAT_FNS if t.is_float else self.INT_FNS
        expr = table[fn].format(a, b, t=self.ctype(t), s=self.suffix(t), op=0, tmin="0")
        rnd = self.NARROW_ROUND.get(t.name)
        return rnd.format(expr) if rnd else expr

    def identity(self, fn: str, t: ir.ScalarType) -> str:
        """The exact identity of a merge (``-0.0`` for float add, so ``-0.0`` survives)."""
        if t is ir.i1:
            return "1" if fn in ("mul", "min") else "0"
        if t.is_float:
            return self.literal({"add": -0.0, "mul": 1.0, "max": float("-inf"),
                                 "min": float("inf")}[fn], t)
        lo, hi = t.int_bounds
        return self.literal({"add": 0, "mul": 1, "max": lo, "min": hi}[fn], t)

    def _reduce_lanes(self, op: ir.Operation, block: ir.Block, inputs: list[Tile],
                      seeds: list[str], outs: list[Tile], merges: Sequence[str], n_keep: int,
                      n_red: int, w: int) -> None:
        """Tree order: each contribution (the update applied to the identity) joins one of W
        lane partials; lanes merge pairwise at the end, then ``merge(seed, partial)``."""
        b = self.buf
        o, q = self.fresh("o"), self.fresh("q")
        idents = [self.identity(fn, out.dtype) for fn, out in zip(merges, outs)]
        with b.block(f"for (int64_t {o} = 0; {o} < {n_keep}; ++{o})"):
            accs = []
            for out, ident in zip(outs, idents):
                acc = self.fresh("acc")
                accs.append(acc)
                b.line(f"{self.ctype(out.dtype)} {acc}[{w}];")
                b.line(f"for (int l = 0; l < {w}; ++l) {acc}[l] = {ident};")
            b.line(f"int64_t {q} = 0;")
            for header, lane in ((f"for (; {q} + {w} <= {n_red}; {q} += {w}) "
                                  f"for (int l = 0; l < {w}; ++l)", "l"),
                                 (f"for (; {q} < {n_red}; ++{q})", "0")):
                with b.block(header):
                    at = f"{o} * {n_red} + {q}" + (" + l" if lane == "l" else "")
                    ys = self._inline_update(block, idents, outs,
                                             [f"{x.name}[{at}]" for x in inputs], op)
                    for acc, y, fn, out in zip(accs, ys, merges, outs):
                        b.line(f"{acc}[{lane}] = "
                               f"{self.merge_expr(fn, f'{acc}[{lane}]', y, out.dtype)};")
            for acc, fn, out in zip(accs, merges, outs):
                pair = self.merge_expr(fn, f"{acc}[l]", f"{acc}[l + w]", out.dtype)
                b.line(f"for (int w = {w // 2}; w >= 1; w >>= 1) for (int l = 0; l < w; ++l) "
                       f"{acc}[l] = {pair};")
            for out, seed, acc, fn in zip(outs, seeds, accs, merges):
                b.line(f"{out.name}[{o}] = {self.merge_expr(fn, seed, f'{acc}[0]', out.dtype)};")

    def _inline_update(self, block: ir.Block, states: list[str], outs: list[Tile],
                       elems: list[str], op: ir.Operation) -> list[str]:
        """Emit the update region with fixed state expressions; returns the yielded values."""
        term = self.emit_update(block, states, elems, op)
        return [self.scalar(v, term) for v in term.operands]

    def _reduce_rows(self, op: ir.Operation, block: ir.Block, inputs: list[Tile],
                     seeds: list[str], outs: list[Tile], n_keep: int, n_red: int) -> None:
        b = self.buf
        o, q = self.fresh("o"), self.fresh("q")
        with b.block(f"for (int64_t {o} = 0; {o} < {n_keep}; ++{o})"):
            states = []
            for out, seed in zip(outs, seeds):
                s = self.fresh("s")
                b.line(f"{self.ctype(out.dtype)} {s} = {seed};")
                states.append(s)
            with b.block(f"for (int64_t {q} = 0; {q} < {n_red}; ++{q})"):
                self.fold_update(block, states, [f"{x.name}[{o} * {n_red} + {q}]"
                                                 for x in inputs], op)
            for out, s in zip(outs, states):
                b.line(f"{out.name}[{o}] = {s};")

    def _reduce_general(self, op: ir.Operation, block: ir.Block, inputs: list[Tile],
                        seeds: list[str], outs: list[Tile], shape: tuple[int, ...],
                        kept: list[int]) -> None:
        b = self.buf
        for out, seed in zip(outs, seeds):
            b.line(f"for (int64_t e = 0; e < {out.size}; ++e) {out.name}[e] = {seed};")
        idx = [self.fresh("i") for _ in shape]
        for j, ext in enumerate(shape):
            b.line(f"for (int64_t {idx[j]} = 0; {idx[j]} < {ext}; ++{idx[j]})")
        with b.block(""):
            ko = self.fresh("k")
            b.line(f"const int64_t {ko} = "
                   f"{CopyLoops.flat([idx[j] for j in kept], [shape[j] for j in kept])};")
            f = CopyLoops.flat(idx, shape)
            states = []
            for out in outs:
                s = self.fresh("s")
                b.line(f"{self.ctype(out.dtype)} {s} = {out.name}[{ko}];")
                states.append(s)
            self.fold_update(block, states, [f"{x.name}[{f}]" for x in inputs], op)
            for out, s in zip(outs, states):
                b.line(f"{out.name}[{ko}] = {s};")
