"""Module and Function: the roots of TileIR, with a symbol table."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from .core import Block, IList, IRError, Operation, Region
from .location import UNKNOWN, Location
from .types import Type

__all__ = ["Function", "Module"]

_fn_ids = itertools.count(1)


class Function:
    """A named kernel or helper: a body region whose entry block arguments are the parameters.

    ``shape_symbols`` names the symbolic extents used by parameter types; the
    last ``len(shape_symbols)`` entry arguments are those extents as ``index``
    values, so shapes are ordinary SSA values inside the body.
    """

    __slots__ = ("name", "body", "result_types", "attributes", "loc", "id",
                 "_prev", "_next", "_parent", "__weakref__")

    name: str
    """Symbol name, unique in the module."""
    body: Region
    """The body; its entry block's arguments are the parameters."""
    result_types: tuple[Type, ...]
    """Types ``return`` must produce."""
    attributes: dict[str, Any]
    """Function attributes (``shape_symbols``, ``kernel``, constexpr values, ...)."""
    loc: Location
    """Where the function was defined."""

    def __init__(self, name: str, arg_types: Sequence[Type] = (),
                 result_types: Sequence[Type] = (), arg_names: Sequence[str | None] | None = None,
                 attributes: dict[str, Any] | None = None, loc: Location = UNKNOWN) -> None:
        self.name = name
        self.body = Region([Block(arg_types, arg_names)])
        self.body.owner = self
        self.result_types = tuple(result_types)
        self.attributes = dict(attributes or {})
        self.loc = loc
        self.id = next(_fn_ids)
        self._prev: Function | None = None
        self._next: Function | None = None
        self._parent: Module | None = None

    @property
    def entry(self) -> Block:
        """The entry block."""
        return self.body.entry

    @property
    def args(self) -> list:
        """The parameters (entry block arguments)."""
        return self.entry.args

    @property
    def parent(self) -> Module | None:
        """The module holding this function."""
        return self._parent

    @property
    def shape_symbols(self) -> tuple[str, ...]:
        """Names of the symbolic extents bound by the trailing index parameters."""
        return tuple(self.attributes.get("shape_symbols", ()))

    def walk(self) -> Iterator[Operation]:
        """Pre-order walk of every operation in the body."""
        return self.body.walk()

    def __repr__(self) -> str:
        return f"<Function @{self.name}>"


class Module:
    """An ordered list of functions with a symbol table."""

    __slots__ = ("functions", "_symbols", "attributes", "__weakref__")

    functions: IList
    """Functions in order (an intrusive list)."""
    attributes: dict[str, Any]
    """Module attributes."""

    def __init__(self, functions: Sequence[Function] = ()) -> None:
        self.functions = IList(self)
        self._symbols: dict[str, Function] = {}
        self.attributes: dict[str, Any] = {}
        for f in functions:
            self.add_function(f)

    def add_function(self, fn: Function, before: Function | None = None) -> Function:
        """Insert ``fn``; its name must be unique."""
        if fn.name in self._symbols:
            raise IRError(f"duplicate function name @{fn.name}")
        self.functions.insert_before(fn, before)
        self._symbols[fn.name] = fn
        return fn

    def remove_function(self, fn: Function) -> Function:
        """Detach ``fn`` from the module."""
        self.functions.remove(fn)
        del self._symbols[fn.name]
        return fn

    def lookup(self, name: str) -> Function | None:
        """The function named ``name``."""
        return self._symbols.get(name)

    def walk(self) -> Iterator[Operation]:
        """Pre-order walk of every operation in every function."""
        for f in self.functions:
            yield from f.walk()

    def __iter__(self) -> Iterator[Function]:
        return iter(self.functions)

    def __str__(self) -> str:
        from .printer import print_module

        return print_module(self)

    def __repr__(self) -> str:
        return f"<Module ({len(self.functions)} functions)>"
