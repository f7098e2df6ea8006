"""Proofs the planner and the lowering rely on, one module per proof.

Each returns a fact with its reasons (what holds, or why not), never a profitability
judgement; the schedule records the reasons in the plan report.

* ``split_k.split_loop``: which K loop of a matrix group may run split over programs per
  output tile (``LowerOptions.split_k``; docs/design/split_k.md).
* ``scalar_epilogue.epilogue_of``: a closed elementwise expression between an accumulator
  and its store, computed by the thread that owns each element
  (``PlannerOptions.fuse_matrix_epilogues``).
* ``independent_subgroups.prove``: which of the lowering's own group barriers order only
  subgroup-local (or thread-local) accesses
  (``PlannerOptions.elide_independent_subgroup_barriers``); the lowering reports the fact
  per group (``independent_subgroups``).
"""

from __future__ import annotations

from .independent_subgroups import IndependentSubgroups
from .scalar_epilogue import ScalarEpilogue, epilogue_of
from .split_k import split_loop

__all__ = ["split_loop", "epilogue_of", "ScalarEpilogue", "IndependentSubgroups"]
