"""Scans along one axis with every policy: ``tc.cumsum`` / ``tc.cumprod`` (``dtype=``) and
``tc.associative_scan`` with a recognized combine (``max``, ``min``, ``a + b``) or the
custom ``a * 0.5 + b`` folded in source order.

Each prefix is modelled as the source-order fold from the first element (a scan has no
seed: ``y[0] = x[0]``, a signed zero included), exact under ``strict_fold``, for integers
and for ``max``/``min``; under ``unordered_tree`` a float sum or product is bounded as any
regrouping of its prefix is (``gen_reduce.fold``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import numerics as nx
from .gen_reduce import fold
from .generator import PRODUCERS, Gen, Producer
from .numerics import DT, DTYPES, MV
from .program import Env, Expr

__all__ = ["Scan"]

_COMBINE = {"max": "lambda a, b: tc.maximum(a, b)", "min": "lambda a, b: tc.minimum(a, b)",
            "add": "lambda a, b: a + b", "halve": "lambda a, b: a * 0.5 + b"}
"""The lambda ``associative_scan`` draws for each combine."""


@dataclass
class Scan(Expr):
    """``tc.cumsum(x, axis=..., dtype=..., policy=...)``, ``tc.cumprod`` or
    ``tc.associative_scan(fn, x, axis=..., policy=...)``."""

    kind: str
    """``cumsum``, ``cumprod`` or ``associative_scan``."""
    law: str
    """The combine: ``add``, ``mul``, ``max``, ``min`` or ``halve`` (strict only)."""
    x: Expr
    """The tile scanned."""
    axis: int
    """The scanned axis."""
    policy: str | None
    """``strict_fold``, ``unordered_tree`` or None (the default)."""
    shape: tuple[int, ...]
    """The result's shape (the input's)."""
    dt: DT
    """The result's type."""
    dtype: DT | None = None
    """``dtype=`` of cumsum/cumprod."""

    def render(self) -> str:
        args = [f"axis={self.axis}"]
        if self.dtype is not None:
            args.append(f"dtype={self.dtype.tc}")
        if self.policy is not None:
            args.append(f"policy={self.policy!r}")
        if self.kind == "associative_scan":
            return (f"tc.associative_scan({_COMBINE[self.law]}, {self.x.render()}, "
                    f"{', '.join(args)})")
        return f"tc.{self.kind}({self.x.render()}, {', '.join(args)})"

    def model(self, env: Env) -> MV:
        x = nx.cast(self.x.model(env), self.dt)
        n = x.shape[self.axis]
        a = np.moveaxis(x.a, self.axis, 0)
        e = np.moveaxis(x.e, self.axis, 0)
        half = nx.exact(nx.round_to(np.full(a.shape[1:], 0.5), self.dt), self.dt) \
            if self.dt.is_float else None
        law = "add" if self.law == "halve" else self.law
        acc = MV(np.array(a[0]), np.array(e[0]), self.dt)
        outs = [acc]
        for j in range(1, n):  # the source-order fold from the first element
            el = MV(np.array(a[j]), np.array(e[j]), self.dt)
            if self.law == "halve":
                acc = nx.binary("add", nx.binary("mul", acc, half), el)  # type: ignore[arg-type]
            else:
                acc = nx.binary(law, acc, el)
            outs.append(acc)
        va = np.stack([o.a for o in outs])
        ve = np.stack([o.e for o in outs])
        if self.policy != "strict_fold" and self.dt.is_float and law in ("add", "mul"):
            # unordered_tree: each prefix is bounded as any regrouping of it is
            for j in range(1, n):
                pre = MV(np.moveaxis(a[:j + 1], 0, -1), np.moveaxis(e[:j + 1], 0, -1), self.dt)
                ve[j] = np.reshape(fold(law, pre, (pre.a.ndim - 1,), self.dt, False).e,
                                   ve[j].shape)
        return MV(np.moveaxis(va, 0, self.axis), np.moveaxis(ve, 0, self.axis), self.dt)

    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    @property
    def features(self) -> tuple[str, ...]:  # type: ignore[override]
        return (f"scan:{self.kind}:{self.law}",)


def _applies(g: Gen, shape: tuple[int, ...], dt: DT) -> bool:
    return 1 <= len(shape) <= 3 and dt.name != "i1" and max(shape) <= 64


def _scan(g: Gen, shape: tuple[int, ...], dt: DT, depth: int) -> Expr:
    s = g.s
    axis = s.draw(len(shape))
    kind = s.pick(["cumsum", "cumsum", "cumprod", "associative_scan"])
    policy = s.pick([None, "strict_fold", "unordered_tree"])
    dtype = None
    src = dt
    if kind == "associative_scan":
        law = s.pick(["max", "min", "add"] + (["halve"] if dt.is_float else []))
        if law == "halve":
            policy = "strict_fold"
    else:
        law = "add" if kind == "cumsum" else "mul"
        if s.coin(4):  # dtype=: scan another type's tile in this one
            dtype = dt
            src = DTYPES[s.pick(["f32", "i32", "f16", "i8"])]
            if src.is_float and not dt.is_float:
                src = dt
    x = g.tile(shape, src, depth)
    return Scan(kind, law, x, axis, policy, shape, dt, dtype)


PRODUCERS.append(Producer("scan", "scan", 2, _applies, _scan))
