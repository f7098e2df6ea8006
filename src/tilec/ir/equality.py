"""Structural equality of IR: same shape, names and locations aside.

Two IR objects are structurally equal when they have the same operations in
the same order, with equal attributes and result types, and their operands
name corresponding values. The correspondence is built during one walk:
block arguments and results pair up positionally where they are defined, and
blocks pair up positionally within their regions. A value (or block) defined
outside the compared objects pairs with whatever the other side uses in the
same slot the first time it is seen, and must keep that partner afterwards,
so two operations reading different free values in a consistent way compare
equal. The pairing is one-to-one in both directions.

Locations and name hints are ignored. Attributes are compared by kind and
value: ``1``, ``1.0`` and ``True`` differ; ``nan`` equals ``nan``; ``0.0`` and
``-0.0`` differ (they print differently).
"""

from __future__ import annotations

import math
from typing import Any

from .core import Block, Operation, Region, Value
from .module import Function, Module
from .printer import format_attr

__all__ = ["structurally_equal", "explain_difference"]

IRObject = Module | Function | Operation | Region | Block


def structurally_equal(a: IRObject, b: IRObject) -> bool:
    """True when ``a`` and ``b`` (both modules, functions, operations, regions or blocks) match."""
    return explain_difference(a, b) is None


def explain_difference(a: IRObject, b: IRObject) -> str | None:
    """Where ``a`` and ``b`` first differ, as ``path: reason``; None when they are equal."""
    return _Matcher().compare(a, b)


def _attr_equal(x: Any, y: Any) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_attr_equal(p, q) for p, q in zip(x, y))
    if isinstance(x, float):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    return bool(x == y)


def _join(path: str, part: str) -> str:
    return f"{path} / {part}" if path else part


def _show(v: Any) -> str:
    try:
        return format_attr(v)
    except TypeError:
        return repr(v)


class _Difference(Exception):
    """The first mismatch found; carries the explanation."""


class _Matcher:
    """One comparison: the value and block correspondences built so far."""

    def __init__(self) -> None:
        self.values: dict[int, Value] = {}
        """id(value of a) -> its partner in b."""
        self.values_back: dict[int, Value] = {}
        """id(value of b) -> its partner in a."""
        self.blocks: dict[int, Block] = {}
        """id(block of a) -> its partner in b."""
        self.blocks_back: dict[int, Block] = {}
        """id(block of b) -> its partner in a."""
        self.keep: list[Any] = []  # holds compared objects so their ids stay unique

    def compare(self, a: IRObject, b: IRObject) -> str | None:
        """Run the comparison; the explanation of the first difference, or None."""
        try:
            if type(a) is not type(b):
                raise _Difference(f"comparing a {type(a).__name__} with a {type(b).__name__}")
            if isinstance(a, Module):
                self.module(a, b)  # type: ignore[arg-type]
            elif isinstance(a, Function):
                self.function(a, b, "")  # type: ignore[arg-type]
            elif isinstance(a, Operation):
                self.op(a, b, "")  # type: ignore[arg-type]
            elif isinstance(a, Region):
                self.region(a, b, "")  # type: ignore[arg-type]
            elif isinstance(a, Block):
                self.pair_block(a, b, "")  # type: ignore[arg-type]
                self.block(a, b, "")  # type: ignore[arg-type]
            else:
                raise _Difference(f"cannot compare {type(a).__name__} objects structurally")
        except _Difference as d:
            return str(d)
        return None

    # -- correspondences ----------------------------------------------------------
    @staticmethod
    def fail(path: str, reason: str) -> None:
        raise _Difference(f"{path}: {reason}" if path else reason)

    def pair_value(self, va: Value, vb: Value, path: str, what: str) -> None:
        """Pair two values, or check that they are already partners."""
        pa = self.values.get(id(va))
        pb = self.values_back.get(id(vb))
        if pa is None and pb is None:
            if va.type is not vb.type:
                self.fail(path, f"{what} has type {va.type} vs {vb.type}")
            self.values[id(va)] = vb
            self.values_back[id(vb)] = va
            self.keep += [va, vb]
        elif pa is not vb or pb is not va:
            self.fail(path, f"{what} names values that do not correspond")

    def pair_block(self, ba: Block, bb: Block, path: str) -> None:
        """Pair two blocks, or check that they are already partners."""
        pa = self.blocks.get(id(ba))
        pb = self.blocks_back.get(id(bb))
        if pa is None and pb is None:
            self.blocks[id(ba)] = bb
            self.blocks_back[id(bb)] = ba
            self.keep += [ba, bb]
        elif pa is not bb or pb is not ba:
            self.fail(path, "blocks do not correspond")

    def attrs(self, a: dict[str, Any], b: dict[str, Any], path: str) -> None:
        """Same attribute names and values."""
        for k in sorted(set(a) | set(b)):
            if k not in b:
                self.fail(path, f"attribute '{k}' only on the left")
            if k not in a:
                self.fail(path, f"attribute '{k}' only on the right")
            if not _attr_equal(a[k], b[k]):
                self.fail(path, f"attribute '{k}' is {_show(a[k])} vs {_show(b[k])}")

    # -- structure ----------------------------------------------------------------
    def module(self, a: Module, b: Module) -> None:
        """Functions pairwise, in order."""
        self.attrs(a.attributes, b.attributes, "module")
        fa, fb = list(a.functions), list(b.functions)
        for x, y in zip(fa, fb):
            self.function(x, y, "")
        if len(fa) != len(fb):
            self.fail("module", f"{len(fa)} functions vs {len(fb)}")

    def function(self, a: Function, b: Function, path: str) -> None:
        """Name, signature, attributes and body."""
        here = _join(path, f"@{a.name}")
        if a.name != b.name:
            self.fail(here, f"function name @{a.name} vs @{b.name}")
        if a.result_types != b.result_types:
            self.fail(here, "result types (" + ", ".join(map(str, a.result_types)) + ") vs ("
                      + ", ".join(map(str, b.result_types)) + ")")
        self.attrs(a.attributes, b.attributes, here)
        self.region(a.body, b.body, here)

    def region(self, a: Region, b: Region, path: str) -> None:
        """Blocks pairwise; all pairs are made first so forward branches resolve."""
        ba, bb = list(a.blocks), list(b.blocks)
        if len(ba) != len(bb):
            self.fail(path, f"{len(ba)} blocks vs {len(bb)}")
        for k, (x, y) in enumerate(zip(ba, bb)):
            self.pair_block(x, y, _join(path, f"block {k}"))
        for k, (x, y) in enumerate(zip(ba, bb)):
            self.block(x, y, _join(path, f"block {k}"))

    def block(self, a: Block, b: Block, path: str) -> None:
        """Arguments, then operations pairwise."""
        if len(a.args) != len(b.args):
            self.fail(path, f"{len(a.args)} arguments vs {len(b.args)}")
        for k, (x, y) in enumerate(zip(a.args, b.args)):
            self.pair_value(x, y, path, f"argument {k}")
        oa, ob = list(a.operations), list(b.operations)
        for k, (x, y) in enumerate(zip(oa, ob)):
            self.op(x, y, _join(path, f"op {k}"))
        if len(oa) != len(ob):
            self.fail(path, f"{len(oa)} operations vs {len(ob)}")

    def op(self, a: Operation, b: Operation, path: str) -> None:
        """Name, attributes, operands, results, successors and regions."""
        here = f"{path} ({a.name})" if path else a.name
        if a.name != b.name:
            self.fail(path, f"operation '{a.name}' vs '{b.name}'")
        self.attrs(a.attributes, b.attributes, here)
        if a.num_operands != b.num_operands:
            self.fail(here, f"{a.num_operands} operands vs {b.num_operands}")
        for k, (x, y) in enumerate(zip(a.operands, b.operands)):
            self.pair_value(x, y, here, f"operand {k}")
        if len(a.results) != len(b.results):
            self.fail(here, f"{len(a.results)} results vs {len(b.results)}")
        for k, (x, y) in enumerate(zip(a.results, b.results)):
            self.pair_value(x, y, here, f"result {k}")
        if len(a.successors) != len(b.successors):
            self.fail(here, f"{len(a.successors)} successors vs {len(b.successors)}")
        for k, (x, y) in enumerate(zip(a.successors, b.successors)):
            self.pair_block(x, y, _join(here, f"successor {k}"))
        if len(a.regions) != len(b.regions):
            self.fail(here, f"{len(a.regions)} regions vs {len(b.regions)}")
        for k, (x, y) in enumerate(zip(a.regions, b.regions)):
            self.region(x, y, _join(here, f"region {k}"))
