"""Interned attributes: records that operations carry and passes read.

Plain Python values (``int``, ``float``, ``str``, ``bool``, ``None`` and tuples
of them) are attributes as they are; the records here are the structured ones.
"""

from __future__ import annotations

from .interning import Interned

__all__ = ["ReductionPolicy", "ArithPolicy", "ExecConstraint", "STRICT_FOLD", "UNORDERED_TREE",
           "POLICY_KINDS", "PRECISIONS", "COMBINERS"]

POLICY_KINDS = ("strict_fold", "unordered_tree")
"""Regrouping permissions a reduction may carry."""

COMBINERS = ("add", "max", "min", "mul", "argmax", "argmin", "custom")
"""Recognized merge laws; ``custom`` means no recognized merge (serial only). ``argmax`` /
``argmin`` are the index state of an arg-reduction: they follow a ``max`` / ``min`` value
state (``ir/reductions.py``)."""


class ReductionPolicy(Interned):
    """The resolved order record of a reduction (seed 001, reduction contract).

    ``strict_fold`` evaluates contributions in source order; ``unordered_tree``
    permits any regrouping of the registered merge, which must be recognized.
    """

    __slots__ = ("kind", "explicit")
    kind: str
    """``strict_fold`` or ``unordered_tree``."""
    explicit: bool
    """True when the source named the policy; False when capture defaulted it."""

    @classmethod
    def _key(cls, kind: str = "unordered_tree", explicit: bool = False) -> tuple:
        if kind not in POLICY_KINDS:
            raise ValueError(f"unknown reduction policy {kind!r}; known: {', '.join(POLICY_KINDS)}")
        return (kind, bool(explicit))

    def _init(self, key: tuple) -> None:
        self._set("kind", key[0])
        self._set("explicit", key[1])

    @property
    def allows_tree(self) -> bool:
        """True when contributions may be regrouped."""
        return self.kind == "unordered_tree"

    def __str__(self) -> str:
        return f"#policy<{self.kind}{', explicit' if self.explicit else ''}>"


STRICT_FOLD = ReductionPolicy("strict_fold", True)
UNORDERED_TREE = ReductionPolicy("unordered_tree", False)

PRECISIONS = ("exact", "tf32", "bf16x3")
"""Arithmetic permissions for matrix products of f32 operands."""


class ArithPolicy(Interned):
    """The arithmetic permission of an ``mma``: product precision and summation order."""

    __slots__ = ("precision", "order")
    precision: str
    """``exact`` (IEEE products in the operand type) or a permitted approximation like ``tf32``."""
    order: str
    """Summation order over K: ``strict_fold`` or ``unordered_tree``."""

    @classmethod
    def _key(cls, precision: str = "exact", order: str = "unordered_tree") -> tuple:
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
        if order not in POLICY_KINDS:
            raise ValueError(f"unknown summation order {order!r}")
        return (precision, order)

    def _init(self, key: tuple) -> None:
        self._set("precision", key[0])
        self._set("order", key[1])

    def __str__(self) -> str:
        return f"#arith<{self.precision}, {self.order}>"


class ExecConstraint(Interned):
    """An explicit execution request on a ``parallel`` nest (never permission to merge groups)."""

    __slots__ = ("threads", "level")
    threads: int | None
    """Exact threads per group requested, or None."""
    level: str
    """The level the nest binds to: ``grid`` (programs) or ``group``."""

    @classmethod
    def _key(cls, threads: int | None = None, level: str = "grid") -> tuple:
        if threads is not None and (not isinstance(threads, int) or threads <= 0):
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        if level not in ("grid", "group", "subgroup", "lane"):
            raise ValueError(f"unknown execution level {level!r}")
        return (threads, level)

    def _init(self, key: tuple) -> None:
        self._set("threads", key[0])
        self._set("level", key[1])

    def __str__(self) -> str:
        t = f", threads = {self.threads}" if self.threads is not None else ""
        return f"#exec<{self.level}{t}>"
