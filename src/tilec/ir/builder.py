"""Insertion points and a builder that creates operations in place."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .core import Block, Operation, Region, Value
from .location import UNKNOWN, Location
from .types import Type

__all__ = ["InsertionPoint", "Builder"]


class InsertionPoint:
    """Where new operations go: before ``before`` in ``block`` (at its end when None)."""

    __slots__ = ("block", "before")

    def __init__(self, block: Block, before: Operation | None = None) -> None:
        self.block = block
        """The block receiving new operations."""
        self.before = before
        """The operation new ones are inserted in front of, or None for the end."""

    @staticmethod
    def at_end(block: Block) -> InsertionPoint:
        """The end of ``block``."""
        return InsertionPoint(block, None)

    @staticmethod
    def before_op(op: Operation) -> InsertionPoint:
        """Just before ``op``."""
        assert op.parent is not None, "operation is detached"
        return InsertionPoint(op.parent, op)

    @staticmethod
    def after_op(op: Operation) -> InsertionPoint:
        """Just after ``op``."""
        assert op.parent is not None, "operation is detached"
        return InsertionPoint(op.parent, op.next_op)


class Builder:
    """Creates operations at an insertion point, stamping a current source location."""

    def __init__(self, ip: InsertionPoint | None = None, loc: Location = UNKNOWN) -> None:
        self.ip = ip
        """The current insertion point (None: operations are created detached)."""
        self.loc = loc
        """Location given to new operations that do not name one."""

    def insert(self, op: Operation) -> Operation:
        """Insert a detached operation at the insertion point."""
        if self.ip is not None:
            self.ip.block.insert_op(op, self.ip.before)
        return op

    def create(self, name: str, operands: Sequence[Value] = (),
               result_types: Sequence[Type] = (), attributes: dict[str, Any] | None = None,
               regions: Sequence[Region] = (), successors: Sequence[Block] = (),
               loc: Location | None = None,
               result_names: Sequence[str | None] | None = None) -> Operation:
        """Create ``name`` and insert it."""
        op = Operation(name, operands, result_types, attributes, regions, successors,
                       loc if loc is not None else self.loc, result_names)
        return self.insert(op)

    def value(self, name: str, operands: Sequence[Value] = (), result_type: Type | None = None,
              attributes: dict[str, Any] | None = None, loc: Location | None = None,
              name_hint: str | None = None) -> Value:
        """Create a single-result operation and return its result."""
        assert result_type is not None
        return self.create(name, operands, [result_type], attributes, loc=loc,
                           result_names=[name_hint]).result

    @contextmanager
    def at(self, ip: InsertionPoint) -> Iterator[Builder]:
        """Temporarily move the insertion point."""
        saved = self.ip
        self.ip = ip
        try:
            yield self
        finally:
            self.ip = saved

    @contextmanager
    def located(self, loc: Location) -> Iterator[Builder]:
        """Temporarily change the default location."""
        saved = self.loc
        self.loc = loc
        try:
            yield self
        finally:
            self.loc = saved
