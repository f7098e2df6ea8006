"""Errors of the SIMT simulator: what a hardware run would have got wrong, located in the IR.

A ``SimulationError`` is raised for a property of the *realization* that a
GPU would not report but that makes the result wrong or undefined: a
shared-memory race, an out-of-range access, a barrier or loop bound that not
every thread agrees on, or Machine IR the simulator cannot execute. Runtime
errors of the program itself are raised as the reference interpreter raises
them (an integer division by zero is ``KernelArithmeticError``).
"""

from __future__ import annotations

from collections.abc import Sequence

import tilec.ir as ir

__all__ = ["SimulationError", "KINDS", "op_text", "describe_op"]

KINDS = ("race", "out_of_range", "divergence", "unsupported", "hang")
"""The kinds of ``SimulationError`` (``hang``: an asynchronous operation that nothing ever
waits for, which on the GPU leaves its results undefined or blocks forever)."""


def op_text(op: ir.Operation) -> str:
    """The first printed line of ``op`` (regions elided), for messages."""
    line = ir.print_op(op).splitlines()[0]
    return line[:-3] + " ...)" if line.endswith(" ({") else line


def describe_op(op: ir.Operation) -> str:
    """``'<printed op>' at <file:line:col>``: how a message names an operation."""
    return f"'{op_text(op)}' at {op.loc}"


class SimulationError(ir.UserError, RuntimeError):
    """A race, out-of-range access, divergent barrier/loop, or unsupported Machine IR.

    The message names every offending operation with its location and printed
    text; ``ops`` and ``locations`` hold them for programs (and tests).
    """

    def __init__(self, message: str, kind: str, ops: Sequence[ir.Operation] = (),
                 locations: Sequence[ir.Location] | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown SimulationError kind {kind!r}; known: {', '.join(KINDS)}")
        self.kind = kind
        """One of ``KINDS``."""
        self.ops = tuple(ops)
        """The operations involved (for a race: the earlier access first)."""
        self.locations = tuple(locations) if locations is not None \
            else tuple(op.loc for op in self.ops)
        """Their source locations, in the same order."""
        self.reason = message
        """The bare message."""
        text = f"{kind.replace('_', '-')}: {message}"
        for op in self.ops:
            text += f"\n  {describe_op(op)}"
        super().__init__(text)
