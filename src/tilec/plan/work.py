"""Realization-derived work: the facts a group's matrix operations bring to the planner.

``MatrixWorkload`` and ``GroupWorkload`` are the planner's input: shapes,
execution counts, which proofs hold (closed recurrence, direct output,
overwrite), the mean physical K and the scalar domains a realization may
remove. They are plain data, built from TileIR by ``extract`` or by hand in
tests, so the planner itself never reads IR.

Two analyses live here because every cost basis shares them:

* ``mean_physical_k``: the mean of a constant or one-varying-axis affine
  expression, optionally capped by a positive constant, over a static
  unit-step rectangular domain, summed analytically in either traversal
  direction. Anything else (several varying axes, a non-positive value) has no
  proved mean, and the caller keeps the nominal K.
* ``elided_elements``: which counted scalar domains a candidate removes. A
  retained accumulator removes the yield copy; a direct output additionally
  removes the literal initializer and the scalar output sink.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .proofs.bounded_views import BoundedViews

__all__ = ["DTYPE_BYTES", "AffineExtent", "mean_physical_k", "ScalarDomains", "elided_elements",
           "ACCUMULATOR_MODES", "OPERAND_STAGING", "B_MAJORS", "MatrixWorkload", "GroupWorkload"]

DTYPE_BYTES = MappingProxyType({"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2,
                                "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4})
"""Storage bytes per element of each scalar type the planner prices."""

ACCUMULATOR_MODES = ("nonresident", "resident", "direct")
"""How a realization holds the accumulator across a recurrence."""

OPERAND_STAGING = ("ring", "once", "value")
"""How a matrix operand reaches shared memory (``MatrixWorkload.a_staging``)."""

B_MAJORS = ("n", "k")
"""The axis B's staged rows run along (``MatrixWorkload.b_major``)."""


@dataclass(frozen=True)
class AffineExtent:
    """``min(cap, constant + sum(coeff_i * t_i))`` over ``t_i`` in ``[0, extent_i)``."""

    constant: int
    """The value at the domain origin."""
    coeffs: tuple[int, ...] = ()
    """Coefficient of each domain axis (unit-step axes)."""
    extents: tuple[int, ...] = ()
    """Static positive extent of each domain axis."""
    cap: int | None = None
    """Positive upper cap (the logical tile extent), or None."""

    def __post_init__(self) -> None:
        if len(self.coeffs) != len(self.extents):
            raise ValueError("one coefficient per axis is required")
        if any(e < 1 for e in self.extents):
            raise ValueError(f"domain extents must be positive, got {self.extents}")
        if self.cap is not None and self.cap < 1:
            raise ValueError(f"the cap must be positive, got {self.cap}")

    def values(self) -> list[int]:
        """Every value, by brute force (tests and small diagnostics only)."""
        out = [self.constant]
        for c, e in zip(self.coeffs, self.extents):
            out = [v + c * t for v in out for t in range(e)]
        if self.cap is not None:
            out = [min(self.cap, v) for v in out]
        return out

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"constant": self.constant, "coeffs": list(self.coeffs),
                "extents": list(self.extents), "cap": self.cap}


def _sum_linear(a: int, b: int, lo: int, hi: int) -> int:
    """Sum of a + b*t for t in [lo, hi)."""
    if hi <= lo:
        return 0
    n = hi - lo
    return n * a + b * (lo + hi - 1) * n // 2


def _capped_progression_sum(a: int, b: int, n: int, cap: int | None) -> int:
    """Sum of min(cap, a + b*t) for t in [0, n), in closed form for either sign of b."""
    if cap is None:
        return _sum_linear(a, b, 0, n)
    if b == 0:
        return n * min(cap, a)
    if b > 0:
        # a + b*t < cap exactly for t < ceil((cap - a) / b)
        t0 = min(n, max(0, -((a - cap) // b)))
        return _sum_linear(a, b, 0, t0) + (n - t0) * cap
    # decreasing: a + b*t >= cap exactly for t <= floor((a - cap) / -b)
    t1 = min(n, max(0, (a - cap) // (-b) + 1))
    return t1 * cap + _sum_linear(a, b, t1, n)


def mean_physical_k(expr: AffineExtent) -> Fraction | None:
    """The exact mean of ``expr`` over its domain, or None when no positive mean is proved.

    Supported: a constant, or one axis with a non-zero coefficient (other axes
    only repeat the same values). Every value must be positive; a zero or
    negative physical extent is not a K view the bounded-K realization accepts.
    """
    varying = [(c, e) for c, e in zip(expr.coeffs, expr.extents) if c != 0 and e > 1]
    if len(varying) > 1:
        return None
    if not varying:
        v = expr.constant if expr.cap is None else min(expr.cap, expr.constant)
        return Fraction(v) if v > 0 else None
    b, n = varying[0]
    a = expr.constant
    first, last = a, a + b * (n - 1)
    smallest = min(first, last)
    if expr.cap is not None:
        smallest = min(smallest, expr.cap)
    if smallest <= 0:
        return None
    return Fraction(_capped_progression_sum(a, b, n, expr.cap), n)


@dataclass(frozen=True)
class ScalarDomains:
    """Disjoint counted scalar element domains of one recurrence (per program)."""

    yield_copy: int = 0
    """Elements copied by the recurrence's yield (D -> C) over all executions."""
    initializer: int = 0
    """Elements written by the literal accumulator initializer."""
    sink: int = 0
    """Elements written by the scalar output sink (C -> global)."""

    def __post_init__(self) -> None:
        if min(self.yield_copy, self.initializer, self.sink) < 0:
            raise ValueError("scalar domain sizes are non-negative")

    @property
    def total(self) -> int:
        """All elements a realization could remove."""
        return self.yield_copy + self.initializer + self.sink


def elided_elements(domains: ScalarDomains, accumulator: str) -> int:
    """Elements a realization with this accumulator mode removes from the scalar work."""
    if accumulator == "nonresident":
        return 0
    if accumulator == "resident":
        return domains.yield_copy
    if accumulator == "direct":
        return domains.total
    raise ValueError(f"unknown accumulator mode {accumulator!r}; known: {ACCUMULATOR_MODES}")


@dataclass(frozen=True)
class MatrixWorkload:
    """One ``mma`` of a group, with the proofs and counts the planner needs."""

    op: str
    """Stable identity for reports (e.g. ``mma#42``)."""
    m: int
    """Rows of the output tile."""
    n: int
    """Columns of the output tile."""
    k: int
    """Logical contraction extent of one execution."""
    dtype: str = "f32"
    """Element type of A and B."""
    acc_dtype: str = "f32"
    """Element type of the accumulator."""
    precision: str = "exact"
    """The arithmetic permission (``exact``, ``tf32``, ...)."""
    executions: int = 1
    """E: executions of the operation per program (product of enclosing trip counts)."""
    executions_known: bool = True
    """False when some enclosing trip count is unknown and ``executions`` is assumed."""
    recurrence: int | None = None
    """L: length of a proved closed recurrence (resident accumulator eligible); None: no proof."""
    direct_output: bool = False
    """True when the direct accumulator output proof holds (literal fill, one global sink)."""
    overwrite: bool = False
    """True when D = A*B may replace D = A*B + C (positive-zero literal, one iteration, direct)."""
    physical_k: AffineExtent | None = None
    """The bounded physical K expression, when proved; None keeps nominal K."""
    domains: ScalarDomains = field(default_factory=ScalarDomains)
    """Scalar domains a realization may remove."""
    inputs_forwardable: bool = False
    """True when A and B may be read straight from their source windows (both snapshots
    proved by ``plan/proofs/snapshot_forwarding.py``) and ``PlannerOptions.forward_snapshots``
    asks for it: the planner then also enumerates forwarded candidates
    (``MatrixCandidate.forwarded``)."""
    forwarding: tuple[str, str] = ("", "")
    """Why A and B may not be forwarded ('' where the snapshot proof holds), for reports."""
    location: str = ""
    """Source location for reports."""
    a_aligned_rows: float = 1.0
    """Fraction of A's tile rows whose 16-byte staging chunks start 16-byte aligned in
    memory: ``gcd(row pitch in bytes, 16) / 16`` of its (row-major) base; 1.0 when the
    pitch is not known. The others are staged element by element."""
    b_aligned_rows: float = 1.0
    """The same for B."""
    split_k: int = 1
    """Programs per output tile over which the K loop runs split (``plan/split_price.py``
    prices such a workload; the default Hopper plan's producer warpgroup is not used
    then: ``lower/schedule_staging._roles_blocker``)."""
    epilogue_tiles: int = 0
    """Tile operands of the fused scalar epilogue of a direct output (reindexed loads such as
    a bias row, ``plan/proofs/scalar_epilogue.py``): each is held in the accumulator's
    layout, as many registers per lane as the accumulator's fragment."""
    a_staging: str = "ring"
    """How A reaches shared memory (``OPERAND_STAGING``): ``ring`` (a load in the loop
    around the mma, copied every execution into a ring of versions), ``once`` (a load in
    that loop that is the same tile on every iteration: one copy, before the first) or
    ``value`` (held in registers, computed or loaded outside every loop: stored each
    execution into one buffer, no ring)."""
    b_staging: str = "ring"
    """The same for B."""
    bounded_mn: BoundedViews | None = None
    """The bounded M/N views fact (``plan/proofs/bounded_views.py``), when the option asked
    for it: the proved axes' actual extents per program, and why the others are not."""
    a_from: str | None = None
    """The operation (its ``op``) of the same group and block whose accumulator A is computed
    from element by element, in a tile of A's shape (``extract.accumulator_source``:
    attention's probabilities from its scores). Where both are realized by warpgroup
    instructions, the lowering takes A from those registers and stages nothing
    (``lower/machine_matrix._register_a``); None: no such source."""
    ring_versions: int | None = None
    """Versions of the ring the ``ring`` operands are copied into when the program fixes
    them: a ``pipeline``'s ``window`` (the lowering places exactly that many); None when the
    lowering chooses (at least 2, ``min_ring_versions``)."""
    b_major: str = "n"
    """How the lowering lays B out in a staging buffer that pads its rows: ``n`` (``K``
    rows of ``N`` elements, B as the operation reads it) or ``k`` (a K-major B: ``x.T`` of
    a load the lowering stages whole, ``ir.dataflow.matrix_uses``, so the buffer holds
    ``x``'s ``N`` rows of ``K`` elements; ``extract.b_major``). A is always staged as its
    ``M`` rows of ``K`` (the lowering stages no transposed A)."""

    @property
    def min_ring_versions(self) -> int:
        """The fewest ring versions the lowering may place: the fixed count, else 2."""
        return self.ring_versions or 2

    def __post_init__(self) -> None:
        if min(self.m, self.n, self.k) < 1:
            raise ValueError(f"{self.op}: shape {self.m}x{self.n}x{self.k} must be positive")
        if self.executions < 1:
            raise ValueError(f"{self.op}: executions must be positive")
        if self.split_k < 1:
            raise ValueError(f"{self.op}: split_k must be positive")
        if self.ring_versions is not None and self.ring_versions < 2:
            raise ValueError(f"{self.op}: ring_versions must be at least 2")
        if self.recurrence is not None:
            if self.recurrence < 1 or self.executions % self.recurrence:
                raise ValueError(f"{self.op}: recurrence length {self.recurrence} must divide "
                                 f"the {self.executions} executions")
        if self.direct_output and self.recurrence is None:
            raise ValueError(f"{self.op}: a direct output needs a proved recurrence")
        if not (0.0 < self.a_aligned_rows <= 1.0 and 0.0 < self.b_aligned_rows <= 1.0):
            raise ValueError(f"{self.op}: aligned row fractions must be in (0, 1]")
        for t in (self.dtype, self.acc_dtype):
            if t not in DTYPE_BYTES:
                raise ValueError(f"{self.op}: no element size known for {t!r}")
        if self.b_major not in B_MAJORS:
            raise ValueError(f"{self.op}: b_major {self.b_major!r} is not one of {B_MAJORS}")
        for name, how in (("A", self.a_staging), ("B", self.b_staging)):
            if how not in OPERAND_STAGING:
                raise ValueError(f"{self.op}: {name} staging {how!r} is not one of "
                                 f"{OPERAND_STAGING}")

    @property
    def recurrences(self) -> int:
        """E / L: recurrence instances per program (E when there is no recurrence)."""
        return self.executions // (self.recurrence or 1)

    @property
    def mean_k(self) -> Fraction:
        """The proved mean physical K, or the nominal K."""
        if self.physical_k is not None:
            mean = mean_physical_k(self.physical_k)
            if mean is not None:
                return mean
        return Fraction(self.k)

    @property
    def physical_k_proved(self) -> bool:
        """True when ``mean_k`` comes from a proved bounded-K expression."""
        return self.physical_k is not None and mean_physical_k(self.physical_k) is not None

    def ring_bytes(self) -> int:
        """Bytes of one ring version: the operands copied every execution (``ring``)."""
        st = self.staging_bytes()
        return (st["A"] if self.a_staging == "ring" else 0) + \
            (st["B"] if self.b_staging == "ring" else 0)

    def copied_bytes(self) -> tuple[int, int]:
        """(bytes staged every execution, bytes copied once per program)."""
        st = self.staging_bytes()
        every = sum(st[x] for x, how in (("A", self.a_staging), ("B", self.b_staging))
                    if how != "once")
        return every, st["A"] + st["B"] - every

    def staged_rows(self) -> dict[str, tuple[int, int]]:
        """(rows, elements per row) of A's and B's tile as the lowering stages them
        (``b_major``): what a padded staging buffer pads, one ``atoms.row_pad`` per row."""
        return {"A": (self.m, self.k),
                "B": (self.n, self.k) if self.b_major == "k" else (self.k, self.n)}

    def staging_bytes(self) -> dict[str, int]:
        """Group-shared bytes of the reference realization: A, B, C (carry) and D (result)."""
        ib, ab = DTYPE_BYTES[self.dtype], DTYPE_BYTES[self.acc_dtype]
        return {"A": self.m * self.k * ib, "B": self.k * self.n * ib,
                "C": self.m * self.n * ab, "D": self.m * self.n * ab}

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        mean = self.mean_k
        return {
            "op": self.op, "shape": [self.m, self.n, self.k], "dtype": self.dtype,
            "acc_dtype": self.acc_dtype, "precision": self.precision,
            "executions": self.executions if self.executions_known else None,
            "executions_assumed": None if self.executions_known else self.executions,
            "recurrence": self.recurrence, "direct_output": self.direct_output,
            "split_k": self.split_k,
            "overwrite": self.overwrite,
            "mean_physical_k": float(mean) if self.physical_k_proved else None,
            "physical_k": None if self.physical_k is None else self.physical_k.to_json(),
            "bounded_mn": None if self.bounded_mn is None else self.bounded_mn.to_json(),
            "scalar_domains": {"yield_copy": self.domains.yield_copy,
                               "initializer": self.domains.initializer,
                               "sink": self.domains.sink},
            "inputs_forwardable": self.inputs_forwardable,
            "forwarding": {x: {"proved": not why, "reason": why}
                           for x, why in zip("AB", self.forwarding)},
            "location": self.location,
            "staging": {"A": self.a_staging, "B": self.b_staging},
            "a_from": self.a_from,
            "ring_versions": self.ring_versions,
            "b_major": self.b_major,
        }


@dataclass(frozen=True)
class GroupWorkload:
    """One group: its programs, its matrix operations and its remaining common work."""

    group: str
    """Stable identity for reports (e.g. ``@matmul/parallel#3``)."""
    ops: tuple[MatrixWorkload, ...]
    """The matrix operations planned jointly."""
    programs: int | None = None
    """P: logical programs (group instances); None when symbolic."""
    common_elements: int = 0
    """Scalar element work outside every operation's removable domains (priced once)."""
    common_shared_bytes: int = 0
    """Group-shared bytes that no matrix realization can release."""
    exact_threads: int | None = None
    """An explicit thread constraint from the program (wins over the options' search)."""
    location: str = ""
    """Source location for reports."""
    notes: tuple[str, ...] = ()
    """What the extraction could not establish (unknown counts, missing proofs)."""

    def __post_init__(self) -> None:
        names = [o.op for o in self.ops]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.group}: duplicate operation identities {names}")
        if self.programs is not None and self.programs < 1:
            raise ValueError(f"{self.group}: programs must be positive")
        if self.common_elements < 0 or self.common_shared_bytes < 0:
            raise ValueError(f"{self.group}: common work and bytes are non-negative")
