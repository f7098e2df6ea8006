"""Proofs the planner and the lowering rely on, one module per proof.

Each returns a fact with its reasons (what holds, or why not), never a profitability
judgement; the schedule records the reasons in the plan report.

* ``split_k.split_loop``: which K loop of a matrix group may run split over programs per
  output tile (``LowerOptions.split_k``; docs/design/split_k.md).
"""

from __future__ import annotations

from .split_k import split_loop

__all__ = ["split_loop"]
