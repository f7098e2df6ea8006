"""Operation numbers: an operation's ordinal in its module (1, 2, ... in walk order).

``Operation.id`` is unique in the process but counts every operation made before, so it
depends on what else the process compiled. What generated code prints about an operation
(a ``/* tilec: op#N */`` comment, the code a failing check reports) uses its number
instead: one kernel prints the same source in any process and so finds its cached binary.
Numbers are unique within a module. Cost: one O(module) walk per module, remembered
until an operation of the module that was not numbered is asked for.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from .core import Operation
from .module import Function, Module

__all__ = ["op_number"]

_TABLES: WeakKeyDictionary[Module | Function, dict[Operation, int]] = WeakKeyDictionary()


def _root(op: Operation) -> Module | Function | None:
    fn = op.function
    if fn is None:
        return None
    return fn.parent if fn.parent is not None else fn


def op_number(op: Operation) -> int:
    """``op``'s ordinal in its module (in its function when that is in no module); an
    operation outside any function keeps its ``id``."""
    root = _root(op)
    if root is None:
        return op.id
    table = _TABLES.get(root)
    if table is None or op not in table:
        table = {o: k for k, o in enumerate(root.walk(), 1)}
        _TABLES[root] = table
    return table.get(op, op.id)
