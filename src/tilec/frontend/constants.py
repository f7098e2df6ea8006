"""Python numbers as typed constants: the value a number takes in a type, or why it cannot.

A number in a kernel is *weak*: it takes the type of the other operand (``off + 1`` is an
``i32`` with an ``int`` argument ``off``), or the one it is given (``tc.full(s, 300,
tc.int8)``, ``fill=``). An integer the type cannot hold is an error where it is written,
as in numpy (``np.int32(1) + 2**32`` raises ``OverflowError``), never a constant that
wraps or a failure in a later stage; ``i1`` holds ``False``/``True`` and the integers 0
and 1. Integral floats may become integers (``fill=0.0`` for an integer array); other
floats may not.
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir

__all__ = ["ConstantRangeError", "int_range", "typed_number", "narrowest_int"]


class ConstantRangeError(ValueError):
    """A Python number that the type it is given cannot hold (capture locates it)."""


def int_range(t: ir.ScalarType) -> tuple[int, int]:
    """The smallest and largest value of an integer type (``i1``: 0 and 1)."""
    return t.int_bounds


def narrowest_int(v: int, unsigned: bool = False) -> str | None:
    """The name of the narrowest ``tc`` integer type that holds ``v`` (None: none does);
    among the unsigned ones with ``unsigned``."""
    kinds = (("uint8", ir.u8), ("uint16", ir.u16), ("uint32", ir.u32)) if unsigned else \
        (("int8", ir.i8), ("int16", ir.i16), ("int32", ir.i32), ("int64", ir.i64))
    for name, t in kinds:
        lo, hi = int_range(t)
        if lo <= v <= hi:
            return name
    return None


def typed_number(v: Any, t: ir.ScalarType) -> Any:
    """``v`` as the attribute value of a ``t`` constant; ``ConstantRangeError`` if it cannot be.

    Floats keep their value (emitters and the interpreter round it to ``t`` once); an
    integer must lie in ``t``'s range; a float becomes an integer only when it is one.
    """
    if t.is_float:
        if isinstance(v, int) and not isinstance(v, bool):
            try:
                return float(v)
            except OverflowError:
                raise ConstantRangeError(f"the integer {v} is too large for any float "
                                         f"type") from None
        return float(v)
    if isinstance(v, float):
        if not v.is_integer():
            raise ConstantRangeError(f"the float {v!r} is not an integer, so it is no value "
                                     f"of {t}")
        v = int(v)
    v = int(v)
    lo, hi = int_range(t)
    if not lo <= v <= hi:
        raise ConstantRangeError(f"{v} does not fit in {t} [{lo}, {hi}]")
    return bool(v) if t is ir.i1 else v
