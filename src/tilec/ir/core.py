"""The mutable SSA spine: values, uses, operations, blocks and regions.

Ownership (seed 001, "Ownership and mutation contract"):

* a ``Block`` holds its operations in an ordered, doubly linked intrusive list;
  a ``Region`` holds its blocks the same way; both give O(1) detach, insert
  and move;
* an ``Operation`` owns its results and its regions (one structural owner
  each) and keeps one ``Use`` per operand slot;
* a ``Use`` is linked into its value's use list only while its user operation
  is *attached*: inserted in a block that is itself inside a function, or
  inside an attached operation's region. Detaching an operation unlinks the
  uses of it and of everything nested in it; re-insertion re-links the same
  ``Use`` objects.

Nothing outside this module touches a link field.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .location import UNKNOWN, Location
from .types import Type

if TYPE_CHECKING:
    from .module import Function
    from .opdef import OpDef

__all__ = ["Value", "OpResult", "BlockArgument", "Use", "Operation", "Block", "Region",
           "IRError", "IList"]

_ids = itertools.count(1)


class IRError(Exception):
    """A misuse of the IR mutation API (an illegal erase, a double insert, ...)."""


# --------------------------------------------------------------------------- uses


class Use:
    """One operand slot's reference to a value; linked into ``value``'s use list when attached."""

    __slots__ = ("owner", "index", "_value", "_prev", "_next", "_list")

    owner: Operation
    """The operation whose operand this is."""
    index: int
    """The operand slot number in ``owner``."""

    def __init__(self, owner: Operation, index: int, value: Value) -> None:
        self.owner = owner
        self.index = index
        self._value = value
        self._prev: Use | None = None
        self._next: Use | None = None
        self._list: Value | None = None  # the value whose use list physically holds this link

    @property
    def value(self) -> Value:
        """The value this slot names (its logical definition)."""
        return self._value

    @property
    def is_linked(self) -> bool:
        """True while the use sits in its value's use list."""
        return self._list is not None

    @property
    def linked_list_owner(self) -> Value | None:
        """The value whose use list physically contains this link (for the verifier)."""
        return self._list

    @property
    def neighbours_consistent(self) -> bool:
        """True when the intrusive neighbours point back at this use."""
        if self._list is None:
            return self._prev is None and self._next is None
        if self._prev is None:
            if self._list._first_use is not self:
                return False
        elif self._prev._next is not self:
            return False
        return self._next is None or self._next._prev is self

    def _link(self) -> None:
        if self._list is not None:
            return
        v = self._value
        head = v._first_use
        self._next = head
        self._prev = None
        if head is not None:
            head._prev = self
        v._first_use = self
        v._num_uses += 1
        self._list = v

    def _unlink(self) -> None:
        v = self._list
        if v is None:
            return
        if self._prev is not None:
            self._prev._next = self._next
        else:
            v._first_use = self._next
        if self._next is not None:
            self._next._prev = self._prev
        self._prev = self._next = None
        v._num_uses -= 1
        self._list = None

    def __repr__(self) -> str:
        return f"<Use {self.owner.name}#{self.owner.id} operand {self.index}>"


# -------------------------------------------------------------------------- values


class Value:
    """A typed SSA value with a use list of its attached users."""

    __slots__ = ("type", "name_hint", "_first_use", "_num_uses", "__weakref__")

    type: Type
    """The value's type."""
    name_hint: str | None
    """A preferred printed name (e.g. the Python local it came from)."""

    def __init__(self, type: Type, name_hint: str | None = None) -> None:
        if not isinstance(type, Type):
            raise TypeError(f"a value's type must be a Type, got {type!r}")
        self.type = type
        self.name_hint = name_hint
        self._first_use: Use | None = None
        self._num_uses = 0

    @property
    def uses(self) -> Iterator[Use]:
        """Attached uses, in no semantic order. Safe against unlinking the current use."""
        u = self._first_use
        while u is not None:
            nxt = u._next
            yield u
            u = nxt

    @property
    def num_uses(self) -> int:
        """Number of attached uses, O(1)."""
        return self._num_uses

    @property
    def has_uses(self) -> bool:
        """True if any attached operation reads this value."""
        return self._first_use is not None

    def users(self) -> list[Operation]:
        """Distinct attached user operations."""
        seen: dict[int, Operation] = {}
        for u in self.uses:
            seen.setdefault(id(u.owner), u.owner)
        return list(seen.values())

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every attached use name ``new`` instead. O(uses of self), never O(module)."""
        if new is self:
            return
        if new.type is not self.type:
            raise IRError(f"replace_all_uses_with: type mismatch {self.type} vs {new.type}")
        u = self._first_use
        while u is not None:
            nxt = u._next
            u._unlink()
            u._value = new
            u._link()
            u = nxt

    @property
    def defining_op(self) -> Operation | None:
        """The operation that defines this value, or None for block arguments."""
        return None

    @property
    def parent_block(self) -> Block | None:  # pragma: no cover - overridden
        """The block where the value is defined."""
        raise NotImplementedError


class OpResult(Value):
    """The ``index``-th result of ``owner``."""

    __slots__ = ("owner", "index")

    def __init__(self, type: Type, owner: Operation, index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.owner = owner
        self.index = index

    @property
    def defining_op(self) -> Operation:
        """The operation that owns this result."""
        return self.owner

    @property
    def parent_block(self) -> Block | None:
        """The block holding the defining operation."""
        return self.owner.parent

    def __repr__(self) -> str:
        return f"<OpResult {self.owner.name}#{self.owner.id}.{self.index}: {self.type}>"


class BlockArgument(Value):
    """The ``index``-th argument of ``owner``."""

    __slots__ = ("owner", "index")

    def __init__(self, type: Type, owner: Block, index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.owner = owner
        self.index = index

    @property
    def parent_block(self) -> Block:
        """The block that declares this argument."""
        return self.owner

    def __repr__(self) -> str:
        return f"<BlockArgument {self.index}: {self.type}>"


# -------------------------------------------------------------- intrusive list


class IList:
    """An ordered, doubly linked intrusive list of nodes with ``_prev/_next/_parent``.

    The container is the node's parent; all operations are O(1) except
    iteration and ``index_of``.
    """

    __slots__ = ("owner", "_head", "_tail", "_len")

    def __init__(self, owner: Any) -> None:
        self.owner = owner
        self._head: Any = None
        self._tail: Any = None
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[Any]:
        n = self._head
        while n is not None:
            nxt = n._next
            yield n
            n = nxt

    def __reversed__(self) -> Iterator[Any]:
        n = self._tail
        while n is not None:
            prv = n._prev
            yield n
            n = prv

    @property
    def first(self) -> Any:
        """First node or None."""
        return self._head

    @property
    def last(self) -> Any:
        """Last node or None."""
        return self._tail

    def insert_before(self, node: Any, ref: Any | None) -> None:
        """Insert a parentless ``node`` before ``ref`` (at the end when ``ref`` is None)."""
        if node._parent is not None:
            raise IRError(f"{node!r} is already inserted; detach it first")
        if ref is not None and ref._parent is not self.owner:
            raise IRError(f"insertion point {ref!r} is not in this list")
        if ref is None:
            node._prev = self._tail
            node._next = None
            if self._tail is not None:
                self._tail._next = node
            else:
                self._head = node
            self._tail = node
        else:
            node._prev = ref._prev
            node._next = ref
            if ref._prev is not None:
                ref._prev._next = node
            else:
                self._head = node
            ref._prev = node
        node._parent = self.owner
        self._len += 1

    def append(self, node: Any) -> None:
        """Insert at the end."""
        self.insert_before(node, None)

    def remove(self, node: Any) -> None:
        """Unlink ``node`` from this list."""
        if node._parent is not self.owner:
            raise IRError(f"{node!r} is not in this list")
        if node._prev is not None:
            node._prev._next = node._next
        else:
            self._head = node._next
        if node._next is not None:
            node._next._prev = node._prev
        else:
            self._tail = node._prev
        node._prev = node._next = None
        node._parent = None
        self._len -= 1

    def index_of(self, node: Any) -> int:
        """Position of ``node`` (O(n))."""
        for i, n in enumerate(self):
            if n is node:
                return i
        raise IRError(f"{node!r} is not in this list")


# ------------------------------------------------------------------- operation


class Operation:
    """One operation: a registered opcode with operands, results, regions and attributes.

    Operations are generic; their signature and verify hook come from the
    declarative ``OpDef`` registered under ``name`` (see ``ops.py``).
    """

    __slots__ = ("name", "opdef", "_operands", "results", "regions", "successors",
                 "attributes", "loc", "id", "_prev", "_next", "_parent", "_attached",
                 "__weakref__")

    name: str
    """The opcode, e.g. ``mma``."""
    opdef: OpDef
    """The declarative definition of the opcode."""
    results: tuple[OpResult, ...]
    """Result values, owned by this operation."""
    regions: tuple[Region, ...]
    """Child regions, owned by this operation."""
    successors: tuple[Block, ...]
    """Successor blocks of a branch terminator."""
    attributes: dict[str, Any]
    """Attribute name to interned attribute or plain value."""
    loc: Location
    """Source location."""
    id: int
    """Unique, stable identity (analysis side tables key on it)."""

    def __init__(self, name: str, operands: Sequence[Value] = (),
                 result_types: Sequence[Type] = (), attributes: dict[str, Any] | None = None,
                 regions: Sequence[Region] = (), successors: Sequence[Block] = (),
                 loc: Location = UNKNOWN, result_names: Sequence[str | None] | None = None):
        from .ops import lookup_op  # the inventory imports core; resolve lazily

        self.name = name
        self.opdef = lookup_op(name)
        self.id = next(_ids)
        self._prev: Operation | None = None
        self._next: Operation | None = None
        self._parent: Block | None = None
        self._attached = False
        self.loc = loc
        self.attributes = dict(attributes or {})
        for v in operands:
            if not isinstance(v, Value):
                raise IRError(f"operand of {name} is not a Value: {v!r}")
        self._operands: list[Use] = [Use(self, i, v) for i, v in enumerate(operands)]
        names = list(result_names) if result_names is not None else [None] * len(result_types)
        self.results = tuple(OpResult(t, self, i, names[i]) for i, t in enumerate(result_types))
        for r in regions:
            if r.owner is not None:
                raise IRError("a region already has an owner; move its blocks instead")
            r.owner = self
        self.regions = tuple(regions)
        self.successors = tuple(successors)

    # -- operands ------------------------------------------------------------------
    @property
    def operands(self) -> tuple[Value, ...]:
        """Operand values in slot order."""
        return tuple(u._value for u in self._operands)

    @property
    def operand_uses(self) -> tuple[Use, ...]:
        """The ``Use`` of each operand slot (stable identities)."""
        return tuple(self._operands)

    @property
    def num_operands(self) -> int:
        """Number of operand slots."""
        return len(self._operands)

    def operand(self, i: int) -> Value:
        """The value in slot ``i``."""
        return self._operands[i]._value

    def operand_named(self, name: str) -> Value:
        """The operand the opcode names ``name`` (``OpDef.operand_names``: ``mma``'s ``a``,
        ``b``, ``acc``; the ``memory`` of a ``load``/``store``/``atomic`` and a ``store``'s
        ``value``; a ``view``'s ``base``; a ``reindex``'s ``source``; a ``check``'s
        ``condition``)."""
        names = self.opdef.operand_names
        if name not in names:
            raise KeyError(f"'{self.name}' has no operand named {name!r}"
                           + (f" (it names {', '.join(names)})" if names else ""))
        return self._operands[names.index(name)]._value

    def set_operand(self, i: int, value: Value) -> None:
        """Point slot ``i`` at ``value``; moves one use between lists in O(1)."""
        use = self._operands[i]
        linked = use._list is not None
        use._unlink()
        use._value = value
        if linked:
            use._link()

    def set_operands(self, values: Sequence[Value]) -> None:
        """Replace the whole operand list (slot count may change)."""
        for u in self._operands:
            u._unlink()
        self._operands = [Use(self, i, v) for i, v in enumerate(values)]
        if self._attached:
            for u in self._operands:
                u._link()

    # -- results ---------------------------------------------------------------------
    @property
    def result(self) -> OpResult:
        """The single result (raises if there is not exactly one)."""
        if len(self.results) != 1:
            raise IRError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    # -- attributes ------------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        """An attribute or ``default``."""
        return self.attributes.get(name, default)

    # -- structure --------------------------------------------------------------------
    @property
    def parent(self) -> Block | None:
        """The block holding this operation, or None when detached."""
        return self._parent

    @property
    def parent_region(self) -> Region | None:
        """The region holding this operation's block."""
        return self._parent.parent if self._parent is not None else None

    @property
    def parent_op(self) -> Operation | None:
        """The operation whose region (transitively through one block) holds this one."""
        r = self.parent_region
        return r.owner if r is not None and isinstance(r.owner, Operation) else None

    @property
    def function(self) -> Function | None:
        """The function this operation is nested in, if any."""
        op: Operation | None = self
        while op is not None:
            r = op.parent_region
            if r is None:
                return None
            if not isinstance(r.owner, Operation):
                return r.owner
            op = r.owner
        return None

    @property
    def next_op(self) -> Operation | None:
        """The following operation in the block."""
        return self._next

    @property
    def prev_op(self) -> Operation | None:
        """The preceding operation in the block."""
        return self._prev

    @property
    def is_attached(self) -> bool:
        """True when this operation is inside the IR (its uses are linked)."""
        return self._attached

    def is_ancestor_of(self, other: Operation) -> bool:
        """True when ``other`` is nested (at any depth) in one of this operation's regions."""
        op: Operation | None = other.parent_op
        while op is not None:
            if op is self:
                return True
            op = op.parent_op
        return False

    def walk(self, include_self: bool = True) -> Iterator[Operation]:
        """Pre-order walk of this operation and everything nested in it."""
        if include_self:
            yield self
        for r in self.regions:
            yield from r.walk()

    # -- mutation --------------------------------------------------------------------
    def _set_attached(self, attached: bool) -> None:
        if self._attached == attached:
            return
        self._attached = attached
        for u in self._operands:
            if attached:
                u._link()
            else:
                u._unlink()
        for r in self.regions:
            r._set_attached(attached)

    def remove_self(self) -> Operation:
        """Detach from the parent block, unlinking operand uses (here and nested); returns self."""
        if self._parent is None:
            raise IRError(f"{self.name}#{self.id} is not in a block")
        self._parent.operations.remove(self)
        self._set_attached(False)
        return self

    def erase(self) -> None:
        """Remove and destroy; legal only when no result has attached uses."""
        for r in self.results:
            if r.has_uses:
                users = ", ".join(f"{u.owner.name}#{u.owner.id}" for u in r.uses)
                raise IRError(f"cannot erase {self.name}#{self.id}: result {r.index} is still "
                              f"used by {users}")
        if self._parent is not None:
            self._parent.operations.remove(self)
        self._set_attached(False)
        # Nested operations may use this op's (now unreferenced) nested values; drop all links.
        for op in self.walk():
            for u in op._operands:
                u._unlink()

    def __repr__(self) -> str:
        return f"<Operation {self.name}#{self.id}>"


# ------------------------------------------------------------------------- blocks


class Block:
    """A straight-line list of operations with typed arguments."""

    __slots__ = ("args", "operations", "_prev", "_next", "_parent", "id", "__weakref__")

    args: list[BlockArgument]
    """Block arguments in order."""
    operations: IList
    """The operations, in order (an intrusive list)."""
    id: int
    """Unique, stable identity."""

    def __init__(self, arg_types: Sequence[Type] = (),
                 arg_names: Sequence[str | None] | None = None) -> None:
        names = list(arg_names) if arg_names is not None else [None] * len(arg_types)
        self.args = [BlockArgument(t, self, i, names[i]) for i, t in enumerate(arg_types)]
        self.operations = IList(self)
        self._prev: Block | None = None
        self._next: Block | None = None
        self._parent: Region | None = None
        self.id = next(_ids)

    @property
    def parent(self) -> Region | None:
        """The region holding this block."""
        return self._parent

    @property
    def parent_op(self) -> Operation | None:
        """The operation owning this block's region (None for a function body)."""
        if self._parent is None:
            return None
        owner = self._parent.owner
        return owner if isinstance(owner, Operation) else None

    @property
    def is_attached(self) -> bool:
        """True when the block is part of attached IR."""
        return self._parent is not None and self._parent.is_attached

    def add_argument(self, type: Type, name_hint: str | None = None) -> BlockArgument:
        """Append a new argument."""
        a = BlockArgument(type, self, len(self.args), name_hint)
        self.args.append(a)
        return a

    def insert_argument(self, i: int, type: Type, name_hint: str | None = None) -> BlockArgument:
        """Insert a new argument at position ``i``."""
        a = BlockArgument(type, self, i, name_hint)
        self.args.insert(i, a)
        for j in range(i + 1, len(self.args)):
            self.args[j].index = j
        return a

    def erase_argument(self, i: int) -> None:
        """Remove argument ``i``; legal only when it has no uses."""
        a = self.args[i]
        if a.has_uses:
            raise IRError(f"cannot erase block argument {i}: it still has {a.num_uses} uses")
        del self.args[i]
        for j in range(i, len(self.args)):
            self.args[j].index = j

    def insert_op(self, op: Operation, before: Operation | None = None) -> Operation:
        """Insert a detached ``op`` before ``before`` (at the end when None)."""
        self.operations.insert_before(op, before)
        op._set_attached(self.is_attached)
        return op

    def append(self, op: Operation) -> Operation:
        """Insert ``op`` at the end."""
        return self.insert_op(op, None)

    @property
    def terminator(self) -> Operation | None:
        """The last operation if it is a terminator."""
        last = self.operations.last
        return last if last is not None and last.opdef.terminator else None

    def walk(self) -> Iterator[Operation]:
        """Pre-order walk of every operation in this block."""
        for op in self.operations:
            yield from op.walk()

    def _set_attached(self, attached: bool) -> None:
        for op in self.operations:
            op._set_attached(attached)

    def remove_self(self) -> Block:
        """Detach from the parent region (unlinking nested uses); returns self."""
        if self._parent is None:
            raise IRError("block is not in a region")
        self._parent.blocks.remove(self)
        self._set_attached(False)
        return self

    def __iter__(self) -> Iterator[Operation]:
        return iter(self.operations)

    def __len__(self) -> int:
        return len(self.operations)

    def __repr__(self) -> str:
        return f"<Block #{self.id} ({len(self.operations)} ops)>"


# ------------------------------------------------------------------------ regions


class Region:
    """An ordered list of blocks owned by one operation or function."""

    __slots__ = ("blocks", "owner", "__weakref__")

    blocks: IList
    """The blocks, entry first (an intrusive list)."""
    owner: Operation | Function | None
    """The single structural owner."""

    def __init__(self, blocks: Iterable[Block] = ()) -> None:
        self.blocks = IList(self)
        self.owner = None
        for b in blocks:
            self.blocks.append(b)

    @property
    def is_attached(self) -> bool:
        """True when the region is part of attached IR."""
        o = self.owner
        if o is None:
            return False
        if isinstance(o, Operation):
            return o._attached
        return True  # a function body is a root

    @property
    def entry(self) -> Block:
        """The first block (raises when the region is empty)."""
        b = self.blocks.first
        if b is None:
            raise IRError("region has no blocks")
        return b

    def add_block(self, block: Block, before: Block | None = None) -> Block:
        """Insert a detached ``block``; its operations become attached if the region is."""
        self.blocks.insert_before(block, before)
        block._set_attached(self.is_attached)
        return block

    def walk(self) -> Iterator[Operation]:
        """Pre-order walk of every operation in the region."""
        for b in self.blocks:
            yield from b.walk()

    def _set_attached(self, attached: bool) -> None:
        for b in self.blocks:
            b._set_attached(attached)

    def take_body(self, other: Region) -> None:
        """Move every block of ``other`` to the end of this region."""
        for b in list(other.blocks):
            b.remove_self()
            self.add_block(b)

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def __repr__(self) -> str:
        return f"<Region ({len(self.blocks)} blocks)>"
