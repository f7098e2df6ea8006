"""Interning for immutable IR values: equal constructions return the same object.

Types, dimensions, layouts and attributes are built through ``Interned``
subclasses, so identity comparison is equality and hashing is cheap. The cache
is keyed by the class and the normalized constructor key each class computes.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Interned"]


class Interned:
    """Base of frozen, interned values.

    Subclasses implement ``_key(*args, **kwargs)`` returning a hashable tuple
    that fully describes the value, and ``_init(key)`` that sets the fields
    from it. ``__setattr__`` is blocked after construction.
    """

    __slots__ = ("_ikey", "__weakref__")
    _cache: ClassVar[dict[tuple[type, tuple], Interned]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Interned:
        return _reintern(cls, cls._key(*args, **kwargs))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Construction happens in ``__new__``; nothing to do here."""

    @classmethod
    def _key(cls, *args: Any, **kwargs: Any) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def _init(self, key: tuple) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (tried to set {name!r})")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self):
        # Pickling re-interns through the constructor key.
        return (_reintern, (type(self), self._ikey))

    def __copy__(self) -> Interned:
        return self

    def __deepcopy__(self, memo: dict) -> Interned:
        return self


def _reintern(cls: type[Interned], key: tuple) -> Interned:
    """The one object of ``cls`` with normalized key ``key`` (made on first request)."""
    full = (cls, key)
    obj = Interned._cache.get(full)
    if obj is None:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_ikey", key)
        obj._init(key)
        Interned._cache[full] = obj
    return obj
