"""Importing this module registers every feature family's producers and statements."""

from . import (  # noqa: F401
    gen_arange,
    gen_elementwise,
    gen_exchange,
    gen_gather,
    gen_gemm,
    gen_loops,
    gen_matrix,
    gen_memory,
    gen_parallel,
    gen_reduce,
    gen_scan,
    gen_shared,
    gen_two_products,
    gen_windows,
)
from .generator import PRODUCERS, STATEMENTS, canonical_order

canonical_order(PRODUCERS)  # whatever family module was imported first
canonical_order(STATEMENTS)
