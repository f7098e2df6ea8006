"""DistLayout: families cover their tiles, renamings are found, text round-trips."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.ir.atoms import LANE_ATOMS, MMA_ATOMS


def _held(lay: L.DistLayout) -> dict[tuple[int, ...], list[tuple[int, int]]]:
    out: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for t, i in itertools.product(range(lay.threads), range(lay.local)):
        c = lay.coords(t, i)
        if all(0 <= x < e for x, e in zip(c, lay.shape)):
            out.setdefault(c, []).append((t, i))
    return out


@pytest.mark.parametrize("shape,threads,dt", [((4, 128), 128, ir.f32), ((7, 5), 32, ir.f32),
                                              ((64,), 64, ir.bf16), ((3, 4, 8), 96, ir.f16),
                                              ((), 32, ir.f32)])
def test_blocked_is_exact_and_coalesced(shape, threads, dt):
    lay = L.blocked(shape, threads, dt)
    held = _held(lay)
    n = int(np.prod(shape)) if shape else 1
    assert len(held) == n and all(len(v) == 1 for v in held.values()) or not shape
    lay.check()
    if len(shape) and shape[-1] % 4 == 0 and dt is ir.f32:
        # thread t's first chunk is 4 contiguous elements starting at 4*t (row-major)
        assert lay.param("v") == 4
        flat = [np.ravel_multi_index(lay.coords(1, i), shape) for i in range(4)]
        assert flat == [4, 5, 6, 7]


def test_rows_and_row_reduced_cover_and_rename():
    rows = L.rows((4, 128), 128, 32, 4)
    red = L.row_reduced((4,), 128, 32)
    assert not rows.masked and not rows.replicated and red.replicated
    rows.check()
    red.check()
    # each team of 32 threads holds one row; the reduced value is on all 32
    assert {rows.coords(t, 0)[0] for t in range(32)} == {0}
    pieces = L.register_map(red, rows, ir.IndexMap(2, [ir.d(0)]))
    assert pieces is not None and len(pieces) == 1
    assert L.owner_predicate(red) == (32, 128)


def test_masked_rows_declare_it():
    lay = L.rows((5, 32), 64, 8, 4)   # 8 teams for 5 rows
    assert lay.masked
    assert lay.coverage().missing == 0
    with pytest.raises(L.LayoutError):
        L.rows((5, 30), 64, 8, 4)      # 8 x 4 does not divide 30


@pytest.mark.parametrize("atom_id", sorted(MMA_ATOMS))
@pytest.mark.parametrize("gm,gn,rm,rn", [(1, 1, 1, 1), (2, 2, 2, 1), (1, 4, 2, 2)])
def test_fragment_accumulators_are_bijections(atom_id, gm, gn, rm, rn):
    a = MMA_ATOMS[atom_id]
    shape = (gm * rm * a.am, gn * rn * a.an)
    lay = L.fragment_acc(shape, gm * gn * 32, gm, gn, rm, rn, a.am, a.an, a.c.map, a.c.regs)
    held = _held(lay)
    assert len(held) == shape[0] * shape[1] and all(len(v) == 1 for v in held.values())
    assert lay.parts == (a.c.regs,) * (rm * rn)
    # subgroup w's lanes only hold its own rectangle
    w = gm * gn - 1
    rows = {lay.coords(t, i)[0] for t in range(32 * w, 32 * w + 32) for i in range(lay.local)}
    assert min(rows) == (w // gn) * rm * a.am


@pytest.mark.parametrize("atom_id", sorted(LANE_ATOMS))
def test_lane_atoms_and_one_atom_tails(atom_id):
    a = LANE_ATOMS[atom_id]
    lay = L.one_atom((3 * a.am, 2 * a.an), 128, a.am, a.an, a.c.map, a.c.regs)
    assert lay.masked                     # 6 atoms over 4 subgroups: a tail job
    assert lay.coverage().missing == 0 and lay.coverage().duplicates == 0


def test_image_of_a_broadcast_is_a_renaming():
    rows = L.rows((4, 128), 128, 32, 4)
    col = ir.IndexMap(2, [ir.d(1)])
    src = L.image(rows, col, (128,))
    assert src is not None and src.replicated and src.local == 4
    assert L.register_map(src, rows, col) is not None
    tr = ir.IndexMap.transpose([1, 0])
    blocked = L.blocked((32, 64), 256, ir.f32)
    img = L.image(blocked, tr, (64, 32))
    assert img is not None and not img.replicated
    assert L.register_map(img, blocked, tr) is not None


def test_no_renaming_when_another_thread_holds_the_element():
    a = L.blocked((8, 32), 64, ir.f32)
    b = L.rows((8, 32), 64, 8, 1)
    assert L.register_map(a, b) is None


def test_text_round_trip():
    a = MMA_ATOMS["mma.m16n8k16.bf16"]
    lays = [L.fragment_acc((32, 16), 64, 2, 1, 1, 2, 16, 8, a.c.map, a.c.regs),
            L.rows((4, 128), 128, 32, 4), L.row_reduced((4,), 128, 32),
            L.blocked((), 32, ir.f32)]
    fn = ir.Function("f", [], [])
    for _k, lay in enumerate(lays):
        t = ir.TileType(lay.shape, ir.f32)
        fn.entry.append(ir.Operation("constant", [], [t], {"value": 0.0, "layout": lay}))
    fn.entry.append(ir.Operation("return"))
    m = ir.Module([fn])
    again = ir.parse(str(m))
    ops = list(again.lookup("f").entry.operations)
    for lay, op in zip(lays, ops):
        assert op.attr("layout") is lay
