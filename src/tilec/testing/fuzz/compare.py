"""The comparison rules (``docs/design/fuzzing.md``): identical NaN and infinity positions,
bits where the model's bound is 0, ``|got - want| <= factor * e`` elsewhere, unknown elements
skipped.

``factor`` is 1 against the model (every correct result lies within ``e`` of
it) and 2 between two paths (each lies within ``e``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Verdict", "compare_arrays", "bits_equal"]


@dataclass
class Verdict:
    """The result of comparing one output."""

    bad: int
    """Elements that break a rule."""
    unknown: int
    """Elements not compared (the model's bound is infinite)."""
    exact: int
    """Elements compared bit for bit."""
    detail: str = ""
    """The first offending elements."""
    kinds: tuple[str, ...] = ()
    """Which rules were broken: ``nan`` (NaN positions), ``inf`` (infinities), ``bits``
    (a bit-exact element), ``bound`` (a bounded element)."""

    @property
    def ok(self) -> bool:
        """True when no element breaks a rule."""
        return self.bad == 0


def bits_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equality of the bit patterns (any NaN equals any NaN)."""
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b).astype(a.dtype)
    if a.dtype.kind in "iub":
        return a == b
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    return (a.view(width) == b.view(width)) | (np.isnan(fa) & np.isnan(fb))


def compare_arrays(got: np.ndarray, want: np.ndarray, e: np.ndarray, factor: float = 1.0
                   ) -> Verdict:
    """Compare ``got`` with ``want`` under the per-element bound ``e``."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return Verdict(1, 0, 0, f"shape {got.shape} != {want.shape}")
    known = np.isfinite(e)
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    with np.errstate(all="ignore"):
        gn, wn = np.isnan(g), np.isnan(w)
        bad_nan = known & (gn != wn)
        ginf, winf = np.isinf(g), np.isinf(w)
        bad_inf = known & ~gn & ~wn & (ginf | winf) & \
            ~(ginf & winf & (np.sign(g) == np.sign(w)))
        exact = known & (e == 0)
        bad_bits = exact & ~bits_equal(got, want) & ~bad_nan & ~bad_inf
        bounded = known & (e > 0) & ~(gn | wn | ginf | winf)
        bad_bound = bounded & ~(np.abs(g - w) <= factor * e)
    bad = bad_nan | bad_inf | bad_bits | bad_bound
    kinds = tuple(k for k, m in (("nan", bad_nan), ("inf", bad_inf), ("bits", bad_bits),
                                 ("bound", bad_bound)) if m.any())
    n_bad = int(bad.sum())
    detail = ""
    if n_bad:
        rows = []
        for pos in np.argwhere(bad)[:4]:
            t = tuple(int(x) for x in pos)
            rows.append(f"at {t}: got {got[t]!r}, want {want[t]!r}"
                        + (f" (bound {factor * e[t]:.3g})" if e[t] > 0 else " (bit-exact)"))
        detail = f"{n_bad} of {got.size} elements differ; " + "; ".join(rows)
    return Verdict(n_bad, int((~known).sum()), int(exact.sum()), detail, kinds)
