"""Proofs the planner and the lowering rely on, one module per proof.

Each returns a fact with its reasons (what holds, or why not), never a profitability
judgement; the schedule records the reasons in the plan report.

* ``split_k.split_loop``: which K loop of a matrix group may run split over programs per
  output tile (``LowerOptions.split_k``; docs/design/split_k.md).
* ``scalar_epilogue.epilogue_of``: a closed elementwise expression between an accumulator
  and its store, computed by the thread that owns each element
  (``PlannerOptions.fuse_matrix_epilogues``).
* ``snapshot_forwarding.snapshot_forwarding``: which loaded tiles a matrix operand may read
  from their source windows instead of a compiler-owned copy
  (``PlannerOptions.forward_snapshots``).
* ``bounded_views.bounded_mn``: the actual M/N extents of an ``mma``'s bounded input views
  and the proof that the accumulator elements past them are never stored
  (``PlannerOptions.bounded_mn_views``).
* ``independent_subgroups.prove``: which of the lowering's own group barriers order only
  subgroup-local (or thread-local) accesses
  (``PlannerOptions.elide_independent_subgroup_barriers``); the lowering reports the fact
  per group (``independent_subgroups``).
"""

from __future__ import annotations

from .bounded_views import BoundedAxis, BoundedViews, bounded_mn, subgroup_extents
from .independent_subgroups import IndependentSubgroups
from .scalar_epilogue import ScalarEpilogue, epilogue_of
from .snapshot_forwarding import SnapshotFact, SnapshotForwarding, snapshot_forwarding
from .split_k import split_loop

__all__ = ["split_loop", "epilogue_of", "ScalarEpilogue", "snapshot_forwarding",
           "SnapshotForwarding", "SnapshotFact", "bounded_mn", "BoundedViews", "BoundedAxis",
           "subgroup_extents", "IndependentSubgroups"]
