"""Index maps: the one view form behind slice, transpose, broadcast, reshape and pad.

An ``IndexMap`` sends a point of an ``n_dims``-dimensional domain (coordinates
``d0..``) and ``n_symbols`` runtime index values (``s0..``, the carrying
operation's index operands) to a point of a ``rank``-dimensional codomain.
Every view constructor in the DSL builds one of these; composing two views is
map composition, checked for matching spaces (verifier invariant 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .dims import AffineExpr, Dim, ExprLike, as_dim, as_expr, d, s
from .interning import Interned

__all__ = ["IndexMap", "LayoutError"]


class LayoutError(ValueError):
    """A layout that cannot be built: an index map whose spaces do not match in a
    composition, or a distribution (``dist_layout``) that does not fit its tile."""


class IndexMap(Interned):
    """``(d0..d{n-1})[s0..s{m-1}] -> (e0, .., e{r-1})`` with quasi-affine results."""

    __slots__ = ("n_dims", "n_symbols", "results")
    n_dims: int
    """Rank of the domain."""
    n_symbols: int
    """Number of runtime index symbols the results may read."""
    results: tuple[AffineExpr, ...]
    """One expression per codomain axis."""

    @classmethod
    def _key(cls, n_dims: int, results: Iterable[ExprLike], n_symbols: int = 0) -> tuple:
        res = tuple(as_expr(r) for r in results)
        for r in res:
            if r.max_dim() > n_dims:
                raise LayoutError(f"result {r} reads a coordinate beyond the domain rank {n_dims}")
            if r.max_symbol() > n_symbols:
                raise LayoutError(f"result {r} reads a symbol beyond the {n_symbols} declared")
        return (int(n_dims), int(n_symbols), res)

    def _init(self, key: tuple) -> None:
        self._set("n_dims", key[0])
        self._set("n_symbols", key[1])
        self._set("results", key[2])

    @property
    def rank(self) -> int:
        """Rank of the codomain."""
        return len(self.results)

    # -- constructors ----------------------------------------------------------
    @staticmethod
    def identity(rank: int) -> IndexMap:
        """The identity on a rank-``rank`` space."""
        return IndexMap(rank, [d(i) for i in range(rank)])

    @staticmethod
    def offset(origin: Sequence[ExprLike], n_symbols: int = 0,
               strides: Sequence[int] | None = None) -> IndexMap:
        """A (strided) slice: ``d_i -> origin_i + stride_i * d_i``."""
        strides = list(strides) if strides is not None else [1] * len(origin)
        return IndexMap(len(origin), [as_expr(o) + d(i) * st
                                      for i, (o, st) in enumerate(zip(origin, strides))],
                        n_symbols)

    @staticmethod
    def tile_at_symbols(rank: int) -> IndexMap:
        """The slice whose origin is the symbols ``s0..s{rank-1}``."""
        return IndexMap.offset([s(i) for i in range(rank)], n_symbols=rank)

    @staticmethod
    def transpose(perm: Sequence[int]) -> IndexMap:
        """Result axis ``perm[i]`` reads domain axis ``i``: view axes are permuted source axes.

        For a view ``v = x.permute(perm)``, ``v[i0, i1, ..] = x[..]`` with
        source axis ``perm[k]`` indexed by view coordinate ``k``.
        """
        n = len(perm)
        if sorted(perm) != list(range(n)):
            raise LayoutError(f"{list(perm)} is not a permutation of 0..{n - 1}")
        results: list[AffineExpr | None] = [None] * n
        for k, p in enumerate(perm):
            results[p] = d(k)
        return IndexMap(n, results)  # type: ignore[arg-type]

    @staticmethod
    def broadcast(in_shape: Sequence[Dim | int | str], out_shape: Sequence[Dim | int | str]
                  ) -> IndexMap:
        """Numpy broadcasting of ``in_shape`` to ``out_shape`` (trailing alignment)."""
        ins = [as_dim(x) for x in in_shape]
        outs = [as_dim(x) for x in out_shape]
        lead = len(outs) - len(ins)
        if lead < 0:
            raise LayoutError(f"cannot broadcast rank {len(ins)} to rank {len(outs)}")
        results = []
        for i, e in enumerate(ins):
            o = outs[lead + i]
            if e == o:
                results.append(d(lead + i))
            elif e == Dim(1):
                results.append(as_expr(0))
            else:
                raise LayoutError(f"cannot broadcast extent {e} to {o} (axis {i})")
        return IndexMap(len(outs), results)

    @staticmethod
    def reshape(in_shape: Sequence[int], out_shape: Sequence[int]) -> IndexMap:
        """Row-major reshape between static shapes with the same element count."""
        n_in = 1
        for e in in_shape:
            n_in *= int(e)
        n_out = 1
        for e in out_shape:
            n_out *= int(e)
        if n_in != n_out:
            raise LayoutError(f"reshape from {list(in_shape)} to {list(out_shape)} "
                              f"changes the element count ({n_in} vs {n_out})")
        flat = as_expr(0)
        for i, e in enumerate(out_shape):
            flat = flat * int(e) + d(i)
        results = []
        stride = n_in
        for e in in_shape:
            stride //= int(e)
            results.append(flat.floordiv(stride).mod(int(e)) if stride else as_expr(0))
        return IndexMap(len(out_shape), results)

    @staticmethod
    def pad(low: Sequence[int]) -> IndexMap:
        """Shift by ``-low`` so that view coordinate ``low`` reads source 0 (bounded views fill)."""
        return IndexMap.offset([-int(x) for x in low])

    # -- algebra ---------------------------------------------------------------
    def compose(self, inner: IndexMap) -> IndexMap:
        """``self ∘ inner``: first ``inner`` (the view of a view), then ``self``.

        ``inner``'s codomain must be ``self``'s domain. Symbols are
        concatenated: ``self``'s first, then ``inner``'s.
        """
        if inner.rank != self.n_dims:
            raise LayoutError(f"cannot compose: inner map has codomain rank {inner.rank} "
                              f"but outer map has domain rank {self.n_dims}")
        shifted = [
            r.substitute([d(i) for i in range(inner.n_dims)],
                         [s(self.n_symbols + j) for j in range(inner.n_symbols)])
            for r in inner.results
        ]
        results = [r.substitute(shifted) for r in self.results]
        return IndexMap(inner.n_dims, results, self.n_symbols + inner.n_symbols)

    def apply(self, coords: Sequence, syms: Sequence = ()) -> tuple:
        """Evaluate at concrete coordinates (ints or numpy arrays)."""
        return tuple(r.evaluate(coords, syms) for r in self.results)

    @property
    def is_identity(self) -> bool:
        """True for the identity map."""
        return self.n_symbols == 0 and self.results == tuple(d(i) for i in range(self.n_dims))

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.n_dims))
        syms = "[" + ", ".join(f"s{i}" for i in range(self.n_symbols)) + "]" \
            if self.n_symbols else ""
        return f"({dims}){syms} -> ({', '.join(str(r) for r in self.results)})"

    def __repr__(self) -> str:
        return f"IndexMap({self})"
