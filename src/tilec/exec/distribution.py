"""Distributions as mixed-radix maps with forward and inverse directions.

A ``MixedRadixMap`` names a set of *digits*, each with an extent. Every input
coordinate is a sequence of digits (most significant first), and so is every
output coordinate. When each digit appears in exactly one input and exactly one
output coordinate, the map is a bijection between the two boxes by
construction: decompose the inputs into digits, regroup, recompose. The inverse
is the same procedure read the other way. The constructor checks that
condition, so an object of this class is a proof of exact coverage; tests also
check it exhaustively on finite domains.

A coordinate may declare ``valid`` below its digit product: points whose value
falls in that tail are outside the map. The one-atom reference uses this for
uniform subgroup job tails (whole subgroups idle in the last round).

The two builders at the end are the seed's matrix mapping family and the
one-atom reference over an atom grid ``U x V``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tilec.ir as ir

__all__ = ["Digit", "Coordinate", "MixedRadixMap", "MatrixDistribution", "matrix_distribution",
           "one_atom_distribution"]


@dataclass(frozen=True)
class Digit:
    """One radix position of a mixed-radix number."""

    name: str
    """Unique name within its map."""
    extent: int
    """The radix (positive)."""

    def __post_init__(self) -> None:
        if self.extent < 1:
            raise ValueError(f"digit {self.name!r} needs a positive extent, got {self.extent}")


@dataclass(frozen=True)
class Coordinate:
    """A named coordinate composed of digits, most significant first."""

    name: str
    """The coordinate's name (``subgroup``, ``fragment``, ``atom_m``, ...)."""
    digits: tuple[str, ...]
    """Digit names, most significant first; empty means the constant coordinate 0."""
    valid: int | None = None
    """Number of valid values when smaller than the digit product (a tail); None: all."""


@dataclass(frozen=True)
class MixedRadixMap:
    """A bijection (up to declared tails) between two boxes built from shared digits."""

    digits: tuple[Digit, ...]
    """All digits."""
    inputs: tuple[Coordinate, ...]
    """Domain coordinates."""
    outputs: tuple[Coordinate, ...]
    """Codomain coordinates."""

    def __post_init__(self) -> None:
        names = [g.name for g in self.digits]
        if len(set(names)) != len(names):
            raise ValueError(f"digit names must be unique, got {names}")
        for side, coords in (("input", self.inputs), ("output", self.outputs)):
            used = [n for c in coords for n in c.digits]
            if sorted(used) != sorted(names):
                raise ValueError(f"every digit must appear exactly once among the {side} "
                                 f"coordinates: digits {sorted(names)}, used {sorted(used)}")
            for c in coords:
                full = self._product(c)
                if c.valid is not None and not 0 <= c.valid <= full:
                    raise ValueError(f"{side} {c.name}: valid {c.valid} outside [0, {full}]")

    # -- sizes -------------------------------------------------------------------
    def _extent(self, name: str) -> int:
        for g in self.digits:
            if g.name == name:
                return g.extent
        raise KeyError(name)

    def _product(self, c: Coordinate) -> int:
        total = 1
        for n in c.digits:
            total *= self._extent(n)
        return total

    def extent(self, c: Coordinate) -> int:
        """The number of valid values of coordinate ``c``."""
        return self._product(c) if c.valid is None else c.valid

    @property
    def input_extents(self) -> tuple[int, ...]:
        """Valid extents of the input coordinates."""
        return tuple(self.extent(c) for c in self.inputs)

    @property
    def output_extents(self) -> tuple[int, ...]:
        """Valid extents of the output coordinates."""
        return tuple(self.extent(c) for c in self.outputs)

    @property
    def digit_space(self) -> int:
        """The product of all digit extents (the size of both padded boxes)."""
        total = 1
        for g in self.digits:
            total *= g.extent
        return total

    # -- evaluation --------------------------------------------------------------
    def _split(self, coords: tuple[Coordinate, ...], values: Sequence[int]
               ) -> dict[str, int] | None:
        if len(values) != len(coords):
            raise ValueError(f"expected {len(coords)} coordinates, got {len(values)}")
        out: dict[str, int] = {}
        for c, v in zip(coords, values):
            if not 0 <= v < self.extent(c):
                return None
            for n in reversed(c.digits):
                e = self._extent(n)
                out[n] = v % e
                v //= e
        return out

    def _join(self, coords: tuple[Coordinate, ...], dig: dict[str, int]) -> tuple[int, ...] | None:
        res = []
        for c in coords:
            acc = 0
            for n in c.digits:
                acc = acc * self._extent(n) + dig[n]
            if acc >= self.extent(c):
                return None
            res.append(acc)
        return tuple(res)

    def forward(self, *values: int) -> tuple[int, ...] | None:
        """Input point to output point; None when either side falls in a tail."""
        dig = self._split(self.inputs, values)
        return None if dig is None else self._join(self.outputs, dig)

    def inverse(self, *values: int) -> tuple[int, ...] | None:
        """Output point to input point; None when either side falls in a tail."""
        dig = self._split(self.outputs, values)
        return None if dig is None else self._join(self.inputs, dig)

    # -- export as TileIR index maps ----------------------------------------------
    def _index_map(self, src: tuple[Coordinate, ...], dst: tuple[Coordinate, ...]) -> ir.IndexMap:
        digit_expr: dict[str, ir.AffineExpr] = {}
        for i, c in enumerate(src):
            stride = 1
            for n in reversed(c.digits):
                e = self._extent(n)
                digit_expr[n] = ir.d(i).floordiv(stride).mod(e) if e > 1 else ir.const(0)
                stride *= e
        results = []
        for c in dst:
            acc = ir.const(0)
            for n in c.digits:
                acc = acc * self._extent(n) + digit_expr[n]
            results.append(acc)
        return ir.IndexMap(len(src), results)

    def forward_index_map(self) -> ir.IndexMap:
        """The forward direction as a TileIR ``IndexMap`` (valid on non-tail points)."""
        return self._index_map(self.inputs, self.outputs)

    def inverse_index_map(self) -> ir.IndexMap:
        """The inverse direction as a TileIR ``IndexMap`` (valid on non-tail points)."""
        return self._index_map(self.outputs, self.inputs)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {
            "digits": {g.name: g.extent for g in self.digits},
            "inputs": [{"name": c.name, "digits": list(c.digits), "extent": self.extent(c)}
                       for c in self.inputs],
            "outputs": [{"name": c.name, "digits": list(c.digits), "extent": self.extent(c)}
                        for c in self.outputs],
        }


@dataclass(frozen=True)
class MatrixDistribution:
    """An atom-grid distribution: (subgroup, fragment) <-> (atom_m, atom_n)."""

    kind: str
    """``rectangle`` (the gm x gn / rm x rn family) or ``one_atom`` (round-robin with tails)."""
    subgroups: int
    """G: participating subgroups."""
    fragments: int
    """Atoms (jobs) each subgroup owns; rm*rn for rectangles, ceil(U*V/G) for one-atom."""
    atoms_m: int
    """U: atom rows of the output tile."""
    atoms_n: int
    """V: atom columns of the output tile."""
    gm: int
    """Subgroup rows (1 for one-atom)."""
    gn: int
    """Subgroup columns (G for one-atom)."""
    rm: int
    """Resident atom rows per subgroup (1 for one-atom)."""
    rn: int
    """Resident atom columns per subgroup (1 for one-atom)."""
    map: MixedRadixMap
    """The underlying mixed-radix map from (subgroup, fragment) to the atom coordinates."""

    def forward(self, s: int, f: int) -> tuple[int, int] | None:
        """(subgroup s, fragment f) to (atom_m, atom_n); None for an inactive tail job."""
        out = self.map.forward(s, f)
        if out is None:
            return None
        if self.kind == "rectangle":
            return out[0], out[1]
        return divmod(out[0], self.atoms_n)

    def inverse(self, atom_m: int, atom_n: int) -> tuple[int, int] | None:
        """(atom_m, atom_n) to (subgroup, fragment); None outside the atom grid."""
        if not (0 <= atom_m < self.atoms_m and 0 <= atom_n < self.atoms_n):
            return None
        if self.kind == "rectangle":
            res = self.map.inverse(atom_m, atom_n)
        else:
            res = self.map.inverse(atom_m * self.atoms_n + atom_n)
        return None if res is None else (res[0], res[1])

    @property
    def has_tail(self) -> bool:
        """True when some (subgroup, fragment) jobs are inactive."""
        return self.subgroups * self.fragments != self.atoms_m * self.atoms_n

    def to_json(self) -> dict[str, Any]:
        """A JSON-serializable description."""
        return {"kind": self.kind, "subgroups": self.subgroups, "fragments": self.fragments,
                "gm": self.gm, "gn": self.gn, "rm": self.rm, "rn": self.rn,
                "atoms": [self.atoms_m, self.atoms_n], "tail": self.has_tail}

    def __str__(self) -> str:
        if self.kind == "rectangle":
            return f"{self.gm}x{self.gn} subgroups x {self.rm}x{self.rn} fragments"
        return f"one-atom round-robin over {self.subgroups} subgroups x {self.fragments} jobs"


def matrix_distribution(gm: int, gn: int, rm: int, rn: int) -> MatrixDistribution:
    """The seed's family: atom_m = (s // gn) * rm + f // rn, atom_n = (s % gn) * rn + f % rn."""
    mr = MixedRadixMap(
        digits=(Digit("sm", gm), Digit("sn", gn), Digit("fm", rm), Digit("fn", rn)),
        inputs=(Coordinate("subgroup", ("sm", "sn")), Coordinate("fragment", ("fm", "fn"))),
        outputs=(Coordinate("atom_m", ("sm", "fm")), Coordinate("atom_n", ("sn", "fn"))),
    )
    return MatrixDistribution("rectangle", gm * gn, rm * rn, gm * rm, gn * rn, gm, gn, rm, rn, mr)


def one_atom_distribution(subgroups: int, atoms_m: int, atoms_n: int) -> MatrixDistribution:
    """Round-robin: job r of subgroup s is linear atom r*G + s; inactive past U*V."""
    total = atoms_m * atoms_n
    jobs = -(-total // subgroups)
    mr = MixedRadixMap(
        digits=(Digit("r", jobs), Digit("s", subgroups)),
        inputs=(Coordinate("subgroup", ("s",)), Coordinate("fragment", ("r",))),
        outputs=(Coordinate("atom", ("r", "s"), valid=total),),
    )
    return MatrixDistribution("one_atom", subgroups, jobs, atoms_m, atoms_n, 1, subgroups, 1, 1,
                              mr)
