"""Python operators inside a kernel: arithmetic, unary, comparison and boolean operators
and conditional expressions, on Python numbers (folded), scalars and tiles.

These are the ``visit_*`` methods of ``Capture`` for operator nodes; the value rules
(promotion, broadcasting, folding) are ``tiles``'.
"""

from __future__ import annotations

import ast
from typing import Any

import tilec.ir as ir

from . import matrix, tiles
from .values import Elem, MemVal, ScalarVal, TileVal, ViewTile, describe, is_number

__all__ = ["OperatorCapture"]

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
           ast.FloorDiv: "floordiv", ast.Mod: "rem", ast.Pow: "pow", ast.BitAnd: "and",
           ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}


def _static(x: Any) -> bool:
    """True for compile-time values (not staged tiles, scalars or memory)."""
    return not isinstance(x, (ScalarVal, TileVal, ViewTile, Elem, MemVal))


class OperatorCapture:
    """Operator methods mixed into ``Capture`` (they use its state and helpers)."""

    def _binop_fn(self, op: ast.operator, node: ast.AST) -> str:
        if isinstance(op, ast.MatMult):
            return "matmul"
        fn = _BINOPS.get(type(op))
        if fn is None:
            raise self.error(node, f"the operator {type(op).__name__} is not supported in kernels")
        return fn

    def _binop(self, node: ast.AST, fn: str, a: Any, b: Any) -> Any:
        if fn == "matmul":
            site = tiles.CallSite(self, node, [a, b], {}, "@")  # type: ignore[arg-type]
            return matrix.dot(self, site, a, b)
        if isinstance(a, tuple) or isinstance(b, tuple):
            if fn == "add" and isinstance(a, tuple) and isinstance(b, tuple):
                return a + b
            if fn == "mul" and isinstance(a, tuple) and isinstance(b, int):
                return a * b
            raise self.error(node, f"unsupported operation on tuples: {fn}")
        if isinstance(a, str) or isinstance(b, str):
            if fn == "add" and isinstance(a, str) and isinstance(b, str):
                return a + b
            raise self.error(node, "strings only support + in kernels")
        if fn == "pow" and isinstance(b, int) and not isinstance(b, bool) and not is_number(a) \
                and b in (2, 3):
            # Integer powers are wrapping products. For floats only x * x is bit-identical
            # to pow (x**2 is exact in f64 for every narrower type, and specials agree);
            # x * x * x rounds twice, so x ** 3 stays a pow.
            dt = tiles.dtype_of(a)
            if dt is not None and (not dt.is_float or b == 2):
                out = a
                for _ in range(b - 1):
                    out = tiles.binary(self, node, "mul", out, a)
                return out
        return tiles.binary(self, node, fn, a, b)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        """``a + b``, ``a @ b`` (a ``dot``), ``a ** 2`` ..."""
        fn = self._binop_fn(node.op, node)
        return self._binop(node, fn, self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        """``-x``, ``+x``, ``not c``, ``~c``."""
        v = self.visit(node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            return tiles.unary(self, node, "neg", v)
        if isinstance(node.op, ast.Not):
            if is_number(v) or v is None or isinstance(v, (str, tuple)):
                return not v
            if tiles.dtype_of(v) is not ir.i1:
                raise self.error(node, f"not needs a boolean, got {describe(v)}")
            return tiles.unary(self, node, "not", v)
        return tiles.unary(self, node, "not", v)

    def visit_Compare(self, node: ast.Compare) -> Any:
        """Comparisons give ``i1``; chains are joined with ``and``."""
        out: Any = None
        left = self.visit(node.left)
        self._report(node.left, left)
        for op, rnode in zip(node.ops, node.comparators):
            right = self.visit(rnode)
            self._report(rnode, right)
            if isinstance(op, (ast.Is, ast.IsNot)) and (_static(left) and _static(right)):
                r = (left is right) == isinstance(op, ast.Is)
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, tuple):
                r = (left in right) == isinstance(op, ast.In)
            elif _static(left) and _static(right) and not (is_number(left) and is_number(right)):
                if not isinstance(op, (ast.Eq, ast.NotEq)):
                    raise self.error(node, f"cannot order {describe(left)} and {describe(right)}")
                r = (left == right) == isinstance(op, ast.Eq)
            else:
                fn = _CMPOPS.get(type(op))
                if fn is None:
                    raise self.error(node, f"the comparison {type(op).__name__} is not "
                                     f"supported in kernels")
                r = tiles.binary(self, node, fn, left, right)
            out = r if out is None else tiles.binary(self, node, "and", out, r)
            left = right
        return out

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        """``and``/``or``: Python semantics on compile-time values, ``arith and/or`` on ``i1``.

        With runtime operands both sides are evaluated (no short circuit).
        """
        vals = []
        for e in node.values:
            v = self.visit(e)
            if is_number(v) or v is None:
                if isinstance(node.op, ast.And) and not v:
                    return v if not vals else False
                if isinstance(node.op, ast.Or) and v:
                    return v if not vals else True
                continue
            if tiles.dtype_of(v) is not ir.i1:
                raise self.error(e, f"and/or need boolean operands, got {describe(v)}")
            vals.append(v)
        if not vals:
            return isinstance(node.op, ast.And)
        out = vals[0]
        for v in vals[1:]:
            out = tiles.binary(self, node, "and" if isinstance(node.op, ast.And) else "or",
                               out, v)
        return out

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        """``a if c else b``: a compile-time choice, or a ``select`` of both sides."""
        test = self.visit(node.test)
        if is_number(test) or test is None or isinstance(test, (str, tuple)):
            return self.visit(node.body if test else node.orelse)
        return tiles.elementwise(self, node, "select",
                                 [test, self.visit(node.body), self.visit(node.orelse)])
