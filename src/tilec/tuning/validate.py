"""Validation of a candidate against the reference interpreter, before it is timed.

Inputs are fresh random arrays (not the ones the search times with). For a
shape-generic kernel every symbolic extent is shrunk (``validation_extent``:
extents up to 300 stay, larger ones map to 300..328, equal extents to equal
ones), so the reference runs in seconds while every tile of the largest
configuration still meets a ragged edge. Arrays the kernel only writes are
poisoned with NaN first, on both sides, so an element a candidate forgets to
write is a mismatch.

The comparison: the same NaN and infinity positions; integers and booleans
bit for bit; floats within ``TOLERANCE[dtype] * (|want| + mean |want|)``,
which admits a different summation order (the configurations regroup K) and
nothing of the size a wrong mapping produces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tilec.ir as ir

__all__ = ["TOLERANCE", "validation_extent", "written_only", "make_inputs", "compare",
           "Check"]

TOLERANCE = {"float64": 1e-9, "float32": 1e-3, "float16": 2e-2, "bfloat16": 4e-2}
"""Relative tolerance per output element type (see the module docstring)."""


def validation_extent(e: int) -> int:
    """A smaller extent with the same role: ``e`` up to 300, else 300 + e mod 29."""
    return e if e <= 300 else 300 + e % 29


def written_only(fn: ir.Function) -> set[int]:
    """Indices of the array parameters the kernel writes and never reads."""
    effects = ir.MemoryEffects(fn)
    reads, writes = set(), set()
    params = {a: i for i, a in enumerate(fn.args)}
    for block in fn.body.blocks:
        for op in block.operations:
            for rec in effects.effects(op):
                i = params.get(rec.root)
                if i is None:
                    continue
                if rec.kind == "read":
                    reads.add(i)
                elif rec.kind == "write":
                    writes.add(i)
    return writes - reads


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -8), min(info.max, 8)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def make_inputs(fn: ir.Function, specs: Sequence[Any], args: Sequence[Any],
                rng: np.random.Generator, shrink: bool = True) -> list[Any]:
    """Fresh host arguments like ``args``: arrays of the same rank and element type with
    random contents (shrunk extents when ``shrink``), write-only arrays full of NaN (or
    zeros for integers), scalars as given."""
    from tilec.frontend.dtypes import numpy_dtype

    poison = written_only(fn)
    out: list[Any] = []
    for i, (s, a) in enumerate(zip(specs, args)):
        if s.kind != "array":
            out.append(a)
            continue
        shape = tuple(int(e) for e in a.shape)
        if shrink:
            shape = tuple(validation_extent(e) if want is None else e
                          for e, want in zip(shape, s.shape))
        dt = np.dtype(numpy_dtype(s.dtype))
        if i in poison:
            x = np.full(shape, np.nan, dt) if dt.kind == "f" or dt.name == "bfloat16" \
                else np.zeros(shape, dt)
        else:
            x = _random(rng, shape, dt)
        out.append(x)
    return out


@dataclass(frozen=True)
class Check:
    """The comparison of one candidate's outputs with the reference's."""

    ok: bool
    """True when every array matches."""
    detail: str = ""
    """The first mismatch (argument, positions, values), else empty."""


def compare(names: Sequence[str], got: Sequence[Any], want: Sequence[Any]) -> Check:
    """Compare every array of ``got`` with ``want`` (see the module docstring), by the
    fuzzer's rules (``testing.fuzz.compare.compare_arrays``) with the bound
    ``TOLERANCE[dtype] * (|want| + mean |want|)`` (0, bit for bit, for integers)."""
    from tilec.testing.fuzz.compare import compare_arrays

    for name, g, w in zip(names, got, want):
        if not isinstance(w, np.ndarray):
            continue
        if w.dtype.kind in "biu":
            e = np.zeros(w.shape)
            what = ""
        else:
            wf = w.astype(np.float64)
            tol = TOLERANCE.get(w.dtype.name, 1e-3)
            with np.errstate(all="ignore"):
                finite = np.isfinite(wf)
                scale = float(np.mean(np.abs(wf[finite]))) if finite.any() else 0.0
                # finite everywhere, so NaN and infinity positions are compared too
                e = np.maximum(tol * (np.where(finite, np.abs(wf), 0.0) + scale),
                               np.finfo(np.float64).tiny)
            what = f" (relative tolerance {tol:g})"
        verdict = compare_arrays(g, w, e)
        if not verdict.ok:
            return Check(False, f"{name}: {verdict.detail}{what}")
    return Check(True)
