"""Importing this module registers every feature family's producers and statements."""

from . import gen_elementwise, gen_loops, gen_matrix, gen_reduce, gen_windows  # noqa: F401
