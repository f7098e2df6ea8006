"""Mixed-radix distributions: exact coverage and forward/inverse agreement, exhaustively."""

from __future__ import annotations

import itertools

import pytest

import tilec.exec as ex


@pytest.mark.parametrize("gm,gn,rm,rn", list(itertools.product((1, 2, 3), (1, 2, 4),
                                                                (1, 2, 3), (1, 2, 5))))
def test_matrix_family_is_a_bijection(gm: int, gn: int, rm: int, rn: int) -> None:
    dist = ex.matrix_distribution(gm, gn, rm, rn)
    u, v = gm * rm, gn * rn
    seen = {}
    for s in range(gm * gn):
        for f in range(rm * rn):
            out = dist.forward(s, f)
            # the seed's closed forms
            assert out == ((s // gn) * rm + f // rn, (s % gn) * rn + f % rn)
            assert out not in seen, f"atom {out} covered twice"
            seen[out] = (s, f)
            assert dist.inverse(*out) == (s, f)
    assert set(seen) == {(i, j) for i in range(u) for j in range(v)}
    for i in range(u):
        for j in range(v):
            s, f = dist.inverse(i, j)
            assert s == (i // rm) * gn + j // rn and f == (i % rm) * rn + j % rn
    assert not dist.has_tail


@pytest.mark.parametrize("g,u,v", [(1, 1, 1), (3, 2, 4), (4, 4, 8), (5, 3, 3), (8, 1, 3)])
def test_one_atom_reference_covers_once_with_uniform_tails(g: int, u: int, v: int) -> None:
    dist = ex.one_atom_distribution(g, u, v)
    jobs = -(-u * v // g)
    assert dist.fragments == jobs
    covered = []
    for s in range(g):
        for r in range(jobs):
            out = dist.forward(s, r)
            if out is None:
                # a tail job: only in the last round, whole subgroups idle together
                assert r == jobs - 1
                continue
            covered.append(out)
            assert dist.inverse(*out) == (s, r)
    assert sorted(covered) == [(i, j) for i in range(u) for j in range(v)]
    assert dist.has_tail == (g * jobs != u * v)
    assert dist.inverse(u, 0) is None


def test_index_maps_agree_with_evaluation() -> None:
    mr = ex.matrix_distribution(2, 3, 2, 2).map
    fwd, inv = mr.forward_index_map(), mr.inverse_index_map()
    for s in range(6):
        for f in range(4):
            out = mr.forward(s, f)
            assert tuple(int(x) for x in fwd.apply((s, f))) == out
            assert tuple(int(x) for x in inv.apply(out)) == (s, f)


def test_map_rejects_digits_used_twice_or_never() -> None:
    a, b = ex.Digit("a", 2), ex.Digit("b", 3)
    with pytest.raises(ValueError, match="exactly once"):
        ex.MixedRadixMap((a, b), (ex.Coordinate("x", ("a", "b")),),
                         (ex.Coordinate("y", ("a",)),))
    with pytest.raises(ValueError, match="unique"):
        ex.MixedRadixMap((a, a), (ex.Coordinate("x", ("a",)),), (ex.Coordinate("y", ("a",)),))
    with pytest.raises(ValueError, match="positive"):
        ex.Digit("z", 0)


def test_out_of_range_points_map_to_none() -> None:
    d = ex.matrix_distribution(1, 2, 2, 1)
    assert d.forward(2, 0) is None
    assert d.forward(0, 2) is None
    assert d.inverse(-1, 0) is None
    assert d.to_json()["kind"] == "rectangle"
