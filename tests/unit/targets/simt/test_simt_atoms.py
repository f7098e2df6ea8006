"""Atoms: matrix atoms through the catalog fragment layouts, shuffles, ldmatrix, participation."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from simtir import machine, poisoned

from tilec.ir.atoms import MMA_ATOMS, FragmentLayout
from tilec.targets import numerics as nx
from tilec.targets.reference.errors import SimulationError
from tilec.targets.reference.simt import simulate_module

ROW = 'map = #map<(d0)[s0] -> (s0, d0)>'
"""The thread's row of a per-thread register array."""

_NP = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}


def to_registers(layout: FragmentLayout, mats: np.ndarray) -> np.ndarray:
    """Per-thread registers ``(32 * warps, regs)`` holding each warp's matrix in ``layout``."""
    regs = np.empty((mats.shape[0] * 32, layout.regs), mats.dtype)
    for w, mat in enumerate(mats):
        for lane in range(32):
            for i in range(layout.regs):
                regs[w * 32 + lane, i] = mat[layout.coords(lane, i)]
    return regs


def mma_kernel(catalog_id: str, threads: int = 64, guard: str | None = None) -> str:
    atom = MMA_ATOMS[catalog_id]
    dt = atom.in_dtype
    call = f"""
        %d = atom.call(%a, %b, %c) {{catalog_id = "{catalog_id}"}} : tile<4xf32>
        %vd = view(%rd, %tid) {{bounds = "total", {ROW}}} : mem<4xf32, global>
        store(%vd, %d)
    """
    if guard is not None:
        call = f"""
        %g = arith({guard}) {{fn = "lt"}} : i1
        if(%g) ({{
          {call}
          yield()
        }}, {{
          yield()
        }})"""
    return f"""
        %va = view(%ra, %tid) {{bounds = "total", {ROW}}} : mem<{atom.a.regs}x{dt}, global>
        %a = load(%va) : tile<{atom.a.regs}x{dt}>
        %vb = view(%rb, %tid) {{bounds = "total", {ROW}}} : mem<{atom.b.regs}x{dt}, global>
        %b = load(%vb) : tile<{atom.b.regs}x{dt}>
        %vc = view(%rc, %tid) {{bounds = "total", {ROW}}} : mem<4xf32, global>
        %c = load(%vc) : tile<4xf32>
        {call}
    """


def mma_params(catalog_id: str, threads: int = 64) -> str:
    atom = MMA_ATOMS[catalog_id]
    dt = atom.in_dtype
    return (f"%ra: mem<{threads}x{atom.a.regs}x{dt}, global>, "
            f"%rb: mem<{threads}x{atom.b.regs}x{dt}, global>, "
            f"%rc: mem<{threads}x4xf32, global>, %rd: mem<{threads}x4xf32, global>")


@pytest.mark.parametrize("catalog_id", sorted(MMA_ATOMS))
def test_mma_atoms_use_the_catalog_fragment_layouts(catalog_id: str) -> None:
    atom = MMA_ATOMS[catalog_id]
    npdt = _NP[atom.in_dtype.name]
    rng = np.random.default_rng(0)
    warps = 2
    a = rng.integers(-4, 5, (warps, atom.am, atom.ak)).astype(npdt)
    b = rng.integers(-4, 5, (warps, atom.ak, atom.an)).astype(npdt)
    c = rng.integers(-4, 5, (warps, atom.am, atom.an)).astype(np.float32)
    rd = poisoned(64, 4)
    m = machine(mma_kernel(catalog_id), mma_params(catalog_id), threads=64)
    simulate_module(m, "k", [to_registers(atom.a, a), to_registers(atom.b, b),
                             to_registers(atom.c, c), rd])
    d = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_array_equal(rd, to_registers(atom.c, d))


def test_tf32_atom_rounds_its_operands() -> None:
    atom = MMA_ATOMS["mma.m16n8k8.tf32"]
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 16, 8)).astype(np.float32)
    b = rng.standard_normal((2, 8, 8)).astype(np.float32)
    c = np.zeros((2, 16, 8), np.float32)
    rd = poisoned(64, 4)
    m = machine(mma_kernel(atom.catalog_id), mma_params(atom.catalog_id), threads=64)
    simulate_module(m, "k", [to_registers(atom.a, a), to_registers(atom.b, b),
                             to_registers(atom.c, c), rd])
    want = np.stack([nx.matmul(x, y, z, "tf32") for x, y, z in zip(a, b, c)])
    np.testing.assert_array_equal(rd, to_registers(atom.c, want))
    assert not np.array_equal(rd, to_registers(atom.c, a @ b))


def test_mma_with_a_partial_warp_is_a_divergence() -> None:
    cid = "mma.m16n8k16.bf16"
    m = machine(mma_kernel(cid, guard="%lane, %c16"), mma_params(cid), threads=64)
    atom = MMA_ATOMS[cid]
    args = [np.zeros((64, atom.a.regs), ml_dtypes.bfloat16),
            np.zeros((64, atom.b.regs), ml_dtypes.bfloat16), np.zeros((64, 4), np.float32),
            poisoned(64, 4)]
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", args)
    e = info.value
    assert e.kind == "divergence"
    assert e.ops[0].attr("catalog_id") == cid and e.ops[1].name == "if"
    # whole warps may skip it
    m = machine(mma_kernel(cid, guard="%tid, %c32"), mma_params(cid), threads=64)
    simulate_module(m, "k", args)
    assert not np.isnan(args[3][:32]).any() and np.isnan(args[3][32:]).all()


SHFL = """
    %f = arith(%tid, %c1) {fn = "cast"} : f32
    %v = map(%f) {shape = #domain<[]>} ({
    ^bb3(%x: f32):
      yield(%x)
    }) : tile<f32>
    %c5 = constant() {value = 5} : index
    %w = atom.call(%v, %c5) {catalog_id = "shfl.xor"} : tile<f32>
    %one = reindex(%w) {map = #map<(d0) -> ()>} : tile<1xf32>
    %dst = view(%out, %tid) {bounds = "total",
        map = #map<(d0)[s0] -> (d0 + s0)>} : mem<1xf32, global>
    store(%dst, %one)
"""


def test_shfl_xor_reads_the_partner_lane_of_the_same_warp() -> None:
    out = poisoned(128)
    simulate_module(machine(SHFL), "k", [out])
    t = np.arange(128)
    np.testing.assert_array_equal(out, (t & ~31) | ((t & 31) ^ 5))


def test_shfl_xor_from_an_inactive_lane_is_a_divergence() -> None:
    guarded = SHFL.replace('%w = atom.call(%v, %c5) {catalog_id = "shfl.xor"} : tile<f32>', """
        %lo = arith(%lane, %c16) {fn = "lt"} : i1
        %w = if(%lo) ({
          %s = atom.call(%v, %c5) {catalog_id = "shfl.xor"} : tile<f32>
          yield(%s)
        }, {
          yield(%v)
        }) : tile<f32>""")
    out = poisoned(128)
    simulate_module(machine(guarded), "k", [out])  # partners of lanes < 16 are lanes < 16
    guarded_odd = guarded.replace("%c5) {catalog", "%c16) {catalog")
    with pytest.raises(SimulationError) as info:
        simulate_module(machine(guarded_odd), "k", [out])
    assert info.value.kind == "divergence"
    assert info.value.ops[0].attr("catalog_id") == "shfl.xor"
    assert "inactive" in str(info.value)


def test_ldmatrix_x4_gives_the_a_fragment_layout() -> None:
    atom = MMA_ATOMS["mma.m16n8k16.bf16"]
    # Lane l supplies row (l % 8) + 8 * ((l // 8) % 2), column 8 * (l // 16) of the 16x16 A tile.
    body = """
        %stage = view(%sh, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> ((s0 floordiv 2), (s0 mod 2) * 8 + d0)>} : mem<8xbf16, shared>
        %src = view(%a, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> ((s0 floordiv 2), (s0 mod 2) * 8 + d0)>} : mem<8xbf16, global>
        %t = load(%src) : tile<8xbf16>
        store(%stage, %t)
        atom.call() {catalog_id = "barrier.group"}
        %row = view(%sh, %lane) {bounds = "total",
            map = #map<(d0)[s0] -> ((s0 mod 8) + ((s0 floordiv 8) mod 2) * 8,
                                   (s0 floordiv 16) * 8 + d0)>} : mem<8xbf16, shared>
        %frag = atom.call(%row) {catalog_id = "ldmatrix.x4"} : tile<8xbf16>
        %dst = view(%out, %tid) {bounds = "total",
            map = #map<(d0)[s0] -> (s0, d0)>} : mem<8xbf16, global>
        store(%dst, %frag)
    """
    a = np.arange(256, dtype=np.float32).reshape(16, 16).astype(ml_dtypes.bfloat16)
    out = np.zeros((32, 8), ml_dtypes.bfloat16)
    m = machine(body, "%a: mem<16x16xbf16, global>, %out: mem<32x8xbf16, global>",
                threads=32, shared="%sh = memory() : mem<16x16xbf16, shared>")
    simulate_module(m, "k", [a, out])
    np.testing.assert_array_equal(out, to_registers(atom.a, a[None]))


TRANS = """
    %stage = view(%sh, %tid) {bounds = "total",
        map = #map<(d0)[s0] -> ((s0 floordiv 2), (s0 mod 2) * 8 + d0)>} : mem<8xbf16, shared>
    %src = view(%b, %tid) {bounds = "total",
        map = #map<(d0)[s0] -> ((s0 floordiv 2), (s0 mod 2) * 8 + d0)>} : mem<8xbf16, global>
    %t = load(%src) : tile<8xbf16>
    store(%stage, %t)
    atom.call() {catalog_id = "barrier.group"}
    %row = view(%sh, %lane) {bounds = "total", map = ROWMAP} : mem<8xbf16, shared>
    %frag = atom.call(%row) {catalog_id = "ldmatrix.x4.trans"} : tile<8xbf16>
    %dst = view(%out, %tid) {bounds = "total",
        map = #map<(d0)[s0] -> (s0, d0)>} : mem<8xbf16, global>
    store(%dst, %frag)
"""
TRANS_ROWS = ("#map<(d0)[s0] -> ((s0 mod 8) + ((s0 floordiv 8) mod 2) * 8, "
              "(s0 floordiv 16) * 8 + d0)>")
"""Lane l supplies row k = (l % 8) + 8 * ((l // 8) % 2), columns 8 * (l // 16) + 0..7 of a
row-major 16 x 16 (K x N) B tile."""


def _trans(rows: str, b: np.ndarray) -> np.ndarray:
    out = np.zeros((32, 8), ml_dtypes.bfloat16)
    m = machine(TRANS.replace("ROWMAP", rows),
                "%b: mem<16x16xbf16, global>, %out: mem<32x8xbf16, global>", threads=32,
                shared="%sh = memory() : mem<16x16xbf16, shared>")
    simulate_module(m, "k", [b, out])
    return out


def test_ldmatrix_x4_trans_gives_two_b_fragments() -> None:
    atom = MMA_ATOMS["mma.m16n8k16.bf16"]
    b = np.arange(256, dtype=np.float32).reshape(16, 16).astype(ml_dtypes.bfloat16)
    out = _trans(TRANS_ROWS, b)
    np.testing.assert_array_equal(out[:, :4], to_registers(atom.b, b[None, :, :8]))
    np.testing.assert_array_equal(out[:, 4:], to_registers(atom.b, b[None, :, 8:]))
    # lane l, register 2j + c: element (2 * (l % 4) + c, l // 4) of matrix j, transposed
    for lane in (0, 5, 31):
        for i in range(8):
            j, c = divmod(i, 2)
            k = 2 * (lane % 4) + c + 8 * (j % 2)
            n = lane // 4 + 8 * (j // 2)
            assert out[lane, i] == b[k, n]


def test_ldmatrix_rows_must_be_aligned_16_bytes() -> None:
    shifted = TRANS_ROWS.replace("(s0 floordiv 16) * 8 + d0", "(s0 floordiv 16) * 4 + d0")
    b = np.zeros((16, 16), ml_dtypes.bfloat16)
    with pytest.raises(SimulationError) as info:
        _trans(shifted, b)
    assert info.value.kind == "unsupported"
    assert "ldmatrix.x4.trans: the row of one thread is not 16 contiguous" in str(info.value)


def test_unknown_atoms_are_unsupported() -> None:
    m = machine('atom.call() {catalog_id = "wgmma.m64n8k16"}')
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "unsupported" and "wgmma" in str(info.value)
