"""Measured selection (``docs/guide/tuning.md``): ``tune`` searches a kernel's tunables and
plan variants, validates and times the candidates, replays the finalists and stores a
record that later calls resolve their tunables from.

This package sits at the top of the layers (beside ``tilec.testing``): it calls the
frontend, the driver, the planner and the runtime, and nothing below calls it.
"""

from .measure import Sample, Timer, replay_orders
from .refit import RefitReport, SampleSet, fit, nnls, plan_terms, refit, sample_sets_from_files
from .search import TuneResult, tune
from .space import Candidate, Rejection, Space, enumerate_space, shortlist
from .validate import TOLERANCE, compare, make_inputs, validation_extent, written_only

__all__ = ["tune", "TuneResult", "Candidate", "Rejection", "Space", "enumerate_space",
           "shortlist", "Timer", "Sample", "replay_orders", "TOLERANCE", "compare",
           "make_inputs", "validation_extent", "written_only", "refit", "RefitReport",
           "SampleSet", "fit", "nnls", "plan_terms", "sample_sets_from_files"]
