"""What a GPU kernel may hold outside its ``tc.parallel`` nest (lowering.md, "Machine TileIR").

A GPU kernel is one launch of one grid: its Machine function is straight-line
scalar code the host evaluates (grid extents, host checks), exactly one grid
``parallel`` and ``return``. ``check_top_level`` refuses anything else before
scheduling starts, with a located ``LoweringError``, so that every consumer of
the Machine form (the CUDA emitter and the SIMT simulator alike) refuses the
same programs with the same message:

* a second top-level ``parallel``: each nest would be a launch of its own;
* a kernel without a top-level ``parallel``: there is nothing to launch;
* a top-level ``serial``, ``pipeline`` or ``if``: host code has no control flow
  (and the programs of a nest inside one would be launches too).

The reference interpreter and the C target run top-level code in program
order and take all of these.
"""

from __future__ import annotations

import tilec.ir as ir

from .options import LoweringError

__all__ = ["check_top_level"]


def check_top_level(fn: ir.Function, target: str) -> None:
    """Refuse (``LoweringError`` at the offending operation) a function whose top level is
    not a GPU kernel's: scalar code and checks around exactly one ``parallel`` nest."""
    nest: ir.Operation | None = None
    for op in fn.entry.operations:
        if op.name == "parallel":
            if nest is not None:
                raise LoweringError(ir.format_located(
                    f"{target} runs one tc.parallel nest per kernel (a kernel is one launch), "
                    f"and this is a second one in @{fn.name} (the first is at {nest.loc}): "
                    "write each nest as a kernel of its own and call them in order", op.loc))
            nest = op
        elif op.regions:
            what, fix = ("a runtime if", "move it into the nest, or choose a scalar with "
                         "tc.where(cond, a, b)") if op.name == "if" else \
                ("a loop", "move it into the nest")
            raise LoweringError(ir.format_located(
                f"{target} cannot run {what} ('{op.name}') outside the tc.parallel nest of "
                f"@{fn.name}: the code around a GPU kernel's nest is straight-line scalar code "
                f"that the host evaluates; {fix}", op.loc))
    if nest is None:
        raise LoweringError(ir.format_located(
            f"@{fn.name} has no tc.parallel nest, and {target} runs a kernel's work in the "
            "programs of one (a kernel without it launches nothing)", fn.loc))
