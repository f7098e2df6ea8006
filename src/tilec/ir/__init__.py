"""TileIR: the verified SSA IR of tilec (seed 001). This facade is the only import path.

Build IR with ``Builder``/``Operation``; check it with ``verify``; print it with
``str(module)`` and read it back with ``parse``; mutate it through
``IRRewriter`` so cached analyses are invalidated.
"""

from .allocation import SharedCapacityError, SharedLayout, allocate_shared, shared_layout
from .analysis import Analysis, AnalysisManager, f64_user
from .attributes import (
    COMBINERS,
    POLICY_KINDS,
    PRECISIONS,
    STRICT_FOLD,
    UNORDERED_TREE,
    ArithPolicy,
    ExecConstraint,
    ReductionPolicy,
)
from .builder import Builder, InsertionPoint
from .core import Block, BlockArgument, IList, IRError, Operation, OpResult, Region, Use, Value
from .diagnostics import (
    ArgumentError,
    ParseError,
    PerformanceWarning,
    TileIRError,
    UserError,
    VerificationError,
    format_located,
)
from .dims import AffineExpr, Dim, IndexSet, as_dim, as_expr, const, d, s
from .dominance import DominanceInfo
from .effects import MemoryEffects, alias_root
from .equality import explain_difference, structurally_equal
from .layout import IndexMap, LayoutError
from .liveness import Liveness
from .location import UNKNOWN, Location, caret_snippet
from .module import Function, Module
from .numbering import op_number
from .opdef import OPS, AttrDef, OpDef, OpVerifyError, lookup_op
from .ops import ARITH_FNS, ATOMIC_KINDS, EXCHANGE_KINDS, arith_result_type
from .parser import parse
from .passes import Pass, PassManager, PassResult
from .printer import Printer, format_attr, print_function, print_module, print_op
from .reductions import (
    ARG_LAWS,
    MERGES,
    emit_merge,
    is_merge_identity,
    merge_identity,
    merge_laws,
    merge_region,
    recognize_merges,
    strip_casts,
)
from .rewriter import IRRewriter
from .traversal import check_traversal, parse_traversal, traversal_point, traversal_points
from .types import (
    MEMORY_SPACES,
    SCALARS,
    MemoryType,
    ScalarType,
    TileType,
    TokenType,
    TupleType,
    Type,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
    scalar_type,
    token,
    u8,
    u16,
    u32,
)
from .verifier import CANDIDATE_INVARIANTS, verify

__all__ = [
    "f64_user", "check_traversal", "parse_traversal", "traversal_point", "traversal_points",
    "Analysis", "AnalysisManager", "COMBINERS", "POLICY_KINDS", "PRECISIONS", "STRICT_FOLD",
    "UNORDERED_TREE", "ArithPolicy", "ExecConstraint", "ReductionPolicy", "Builder",
    "InsertionPoint", "Block", "BlockArgument", "IList", "IRError", "Operation", "OpResult",
    "Region", "Use", "Value", "ParseError", "TileIRError", "VerificationError", "format_located",
    "UserError", "ArgumentError", "PerformanceWarning",
    "AffineExpr", "Dim", "IndexSet", "as_dim", "as_expr", "const", "d", "s", "DominanceInfo",
    "MemoryEffects", "alias_root", "structurally_equal", "explain_difference", "IndexMap",
    "LayoutError", "Liveness", "UNKNOWN",
    "Location", "caret_snippet", "Function", "Module", "ARITH_FNS", "ATOMIC_KINDS",
    "EXCHANGE_KINDS", "OPS", "AttrDef", "OpDef",
    "OpVerifyError", "arith_result_type", "lookup_op", "parse", "Pass", "PassManager",
    "PassResult", "Printer", "format_attr", "print_function", "print_module", "print_op",
    "IRRewriter", "MEMORY_SPACES", "SCALARS", "MemoryType", "ScalarType", "TileType",
    "TokenType", "TupleType", "Type", "bf16", "f16", "f32", "f64", "i1", "i8", "i16", "i32",
    "i64", "u8", "u16", "u32", "index", "scalar_type", "token", "CANDIDATE_INVARIANTS",
    "verify", "MERGES",
    "merge_laws", "recognize_merges", "strip_casts", "ARG_LAWS", "emit_merge", "merge_region",
    "merge_identity", "is_merge_identity", "SharedLayout", "SharedCapacityError",
    "allocate_shared",
    "shared_layout", "op_number",
]
