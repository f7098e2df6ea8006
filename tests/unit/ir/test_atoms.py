"""The atom catalog's fragment layouts are bijections onto their operands."""

import pytest

from tilec.ir import bf16, f16, f32
from tilec.ir.atoms import CATALOG, MMA_ATOMS, atom, mma_atom_for


@pytest.mark.parametrize("atom_id", sorted(MMA_ATOMS))
def test_fragment_layouts_cover_each_operand_exactly_once(atom_id):
    a = MMA_ATOMS[atom_id]
    for lay, (rows, cols) in ((a.a, (a.am, a.ak)), (a.b, (a.ak, a.an)), (a.c, (a.am, a.an))):
        assert (lay.rows, lay.cols) == (rows, cols)
        coords = [lay.coords(lane, i) for lane in range(32) for i in range(lay.regs)]
        assert len(set(coords)) == len(coords) == rows * cols
        assert all(0 <= r < rows and 0 <= c < cols for r, c in coords)


def test_known_ptx_positions():
    # Spot values from the PTX ISA's m16n8k16 figures: lane 5 is group 1, thread 1.
    a = MMA_ATOMS["mma.m16n8k16.bf16"]
    assert a.a.coords(5, 0) == (1, 2)
    assert a.a.coords(5, 3) == (9, 3)
    assert a.a.coords(5, 6) == (9, 10)
    assert a.b.coords(5, 2) == (10, 1)
    assert a.c.coords(5, 3) == (9, 3)
    t = MMA_ATOMS["mma.m16n8k8.tf32"]
    assert t.a.coords(5, 3) == (9, 5)
    assert t.b.coords(5, 1) == (5, 1)


def test_atom_selection_respects_precision():
    assert mma_atom_for(bf16, "exact").catalog_id == "mma.m16n8k16.bf16"
    assert mma_atom_for(f16, "exact").catalog_id == "mma.m16n8k16.f16"
    assert mma_atom_for(f32, "exact") is None
    assert mma_atom_for(f32, "tf32").catalog_id == "mma.m16n8k8.tf32"


def test_catalog_lookup_names_known_ids():
    assert atom("barrier.group").scope == "group"
    assert set(MMA_ATOMS) <= set(CATALOG)
    with pytest.raises(KeyError, match="known:"):
        atom("mma.bogus")
