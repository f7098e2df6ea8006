"""The Machine-form atom catalog: every ``atom.call`` catalog entry, as data.

Each entry states its operands and results, the per-lane fragment layout of
every matrix operand (an ``IndexMap`` from ``(lane, register)`` to the
operand tile's ``(row, col)``), and its participant contract. The lowering
passes select atoms from here, the Machine verifier checks ``atom.call``
operations against it (invariant 16), the SIMT simulator executes matrix
atoms through these layouts, and emitters print them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .dims import d
from .layout import IndexMap
from .types import ScalarType, bf16, f16, f32

__all__ = ["FragmentLayout", "MmaAtom", "LaneAtom", "AtomDef", "CATALOG", "MMA_ATOMS",
           "LANE_ATOMS", "WgmmaAtom", "WGMMA_ATOMS", "wgmma_for", "wgmma_of", "SWIZZLE_BYTES",
           "swizzle_cols",
           "SWIZZLE_ALIGN", "swizzle_slack", "ROW_PAD_BYTES", "row_pad",
           "WGMMA_ROWS", "WGMMA_K", "atom", "mma_atom_for", "SIMDGROUP_ATOM", "SIMDGROUP_OPS",
           "MPP_ATOMS", "MPP_OPS", "MPP_REALIZATIONS",
           "SIMDGROUP_BLOCK", "TMA_ALIGN"]


@dataclass(frozen=True)
class FragmentLayout:
    """Where register ``i`` of lane ``l`` sits in one matrix operand of a warp-wide atom."""

    rows: int
    """Operand rows."""
    cols: int
    """Operand columns."""
    regs: int
    """Registers (elements) per lane."""
    map: IndexMap
    """``(lane, i) -> (row, col)``; a bijection from ``[0,32) x [0,regs)`` onto the operand."""

    def coords(self, lane: int, i: int) -> tuple[int, int]:
        """The operand coordinate of lane ``lane``'s register ``i``."""
        r, c = self.map.apply((lane, i))
        return int(r), int(c)


_LANE, _REG = d(0), d(1)
_G = _LANE.floordiv(4)
_Q = _LANE.mod(4)

_C_16x8 = FragmentLayout(16, 8, 4, IndexMap(2, [_G + _REG.floordiv(2) * 8,
                                                 _Q * 2 + _REG.mod(2)]))
_A_16x16 = FragmentLayout(16, 16, 8, IndexMap(2, [_G + _REG.floordiv(2).mod(2) * 8,
                                                   _Q * 2 + _REG.mod(2) + _REG.floordiv(4) * 8]))
_B_16x8 = FragmentLayout(16, 8, 4, IndexMap(2, [_Q * 2 + _REG.mod(2) + _REG.floordiv(2) * 8,
                                                 _G]))
_A_16x8_TF32 = FragmentLayout(16, 8, 4, IndexMap(2, [_G + _REG.mod(2) * 8,
                                                      _Q + _REG.floordiv(2) * 4]))
_B_8x8_TF32 = FragmentLayout(8, 8, 2, IndexMap(2, [_Q + _REG * 4, _G]))


@dataclass(frozen=True)
class MmaAtom:
    """A warp-wide matrix atom ``D(am x an) = A(am x ak) @ B(ak x an) + C``."""

    catalog_id: str
    """The ``atom.call`` catalog id."""
    am: int
    """M extent."""
    an: int
    """N extent."""
    ak: int
    """K extent."""
    in_dtype: ScalarType
    """Operand element type as stored in registers (f32 for TF32 atoms)."""
    acc_dtype: ScalarType
    """Accumulator type."""
    a: FragmentLayout
    """A operand layout."""
    b: FragmentLayout
    """B operand layout."""
    c: FragmentLayout
    """C and D layout."""
    precision: str
    """The arithmetic permission it needs: ``exact`` (bf16/f16 products are exact in f32)
    or ``tf32`` (f32 operands are rounded)."""
    ptx: str
    """The PTX instruction."""
    min_sm: int
    """Lowest compute capability (x10) that has it."""


MMA_ATOMS: dict[str, MmaAtom] = {
    a.catalog_id: a for a in (
        MmaAtom("mma.m16n8k16.bf16", 16, 8, 16, bf16, f32, _A_16x16, _B_16x8, _C_16x8, "exact",
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 80),
        MmaAtom("mma.m16n8k16.f16", 16, 8, 16, f16, f32, _A_16x16, _B_16x8, _C_16x8, "exact",
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 80),
        MmaAtom("mma.m16n8k8.tf32", 16, 8, 8, f32, f32, _A_16x8_TF32, _B_8x8_TF32, _C_16x8,
                "tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 80),
    )
}
"""The CUDA warp-wide matrix atoms by catalog id."""


def mma_atom_for(dtype: ScalarType, precision: str) -> MmaAtom | None:
    """The matrix atom for operands of ``dtype`` under ``precision`` (None: use lane FFMA)."""
    if dtype is bf16:
        return MMA_ATOMS["mma.m16n8k16.bf16"]
    if dtype is f16:
        return MMA_ATOMS["mma.m16n8k16.f16"]
    if dtype is f32 and precision == "tf32":
        return MMA_ATOMS["mma.m16n8k8.tf32"]
    return None


SWIZZLE_BYTES = 128
"""The shared-memory swizzle of warpgroup operands: rows of 128 bytes, 16-byte chunk ``c`` of
row ``r`` stored at chunk ``c ^ (r mod 8)`` (byte address bits 4-6 XOR bits 7-9)."""

def swizzle_cols(dtype: ScalarType) -> int:
    """Elements of ``dtype`` in one 128-byte swizzle row (64 of a 16-bit type, 32 of f32):
    the column blocks of a swizzled operand and the columns of one tensor-copy box."""
    return SWIZZLE_BYTES // dtype.bytes


TMA_ALIGN = 16
"""Bytes the innermost coordinate of a tensor copy (``tma.load``, ``tma.store``) must be a
multiple of: a box whose first element is not 16-byte aligned in its row is an illegal
instruction on the GPU, not a slow copy."""

SWIZZLE_ALIGN = 1024
"""Byte alignment of a swizzled buffer (8 rows of 128 bytes: the swizzle's period)."""

ROW_PAD_BYTES = 16
"""The padding after each row of an unswizzled staging buffer (bank-conflict relief)."""


def row_pad(dtype_bytes: int) -> int:
    """Elements of padding after each row of an unswizzled staging buffer of
    ``dtype_bytes``-byte elements (``ROW_PAD_BYTES``, at least one element)."""
    return max(1, ROW_PAD_BYTES // dtype_bytes)


def swizzle_slack(buffers: int) -> int:
    """Shared bytes beyond their sizes that ``buffers`` swizzled buffers may need: aligning the
    dynamic shared base, then each buffer, to ``SWIZZLE_ALIGN`` (0 for no buffer)."""
    return SWIZZLE_ALIGN * (1 + buffers) if buffers else 0


WGMMA_ROWS = 64
"""Rows of the warpgroup's A operand and accumulator (``m64``)."""

WGMMA_K = 16
"""K of one warpgroup instruction for 16-bit operands (``k16``)."""


@dataclass(frozen=True)
class WgmmaAtom:
    """A warpgroup matrix instruction ``D(64 x n) += A(64 x 16) @ B(16 x n)``, both operands
    read from shared memory through matrix descriptors (PTX ``wgmma.mma_async``, sm_90a).

    The 128 threads of a warpgroup (4 consecutive warps, the first a multiple of 4) issue it
    together. Warp ``q`` of the warpgroup owns accumulator rows ``16q .. 16q+15``; its part of
    column block ``j`` (8 columns) is the ``mma.m16n8k16`` C fragment (``c``), so the
    accumulator of a 64 x n instruction is ``n / 8`` C fragments per thread. A is K-major and B
    N-major (the transpose bit set), each in the 128-byte swizzled canonical layout: element
    ``(r, c)`` of an operand whose contiguous axis is ``c`` lies at logical byte
    ``(c div 64) * atom_stride + r * 128 + (c mod 64) * 2``, before the swizzle. B may be
    K-major instead (``b_major = "k"``), and A may come from registers (``a_regs``: the
    call's first operand and its last are the two 4-register halves of ``a``).
    """

    catalog_id: str
    """The ``atom.call`` catalog id (the N extent is the call's ``n`` attribute)."""
    in_dtype: ScalarType
    """Operand element type."""
    acc_dtype: ScalarType
    """Accumulator type."""
    c: FragmentLayout
    """One C fragment (a 16 x 8 block of one warp)."""
    ptx_type: str
    """The PTX operand type (``bf16``, ``f16``)."""
    a: FragmentLayout = _A_16x16
    """One warp's A registers when A comes from registers (``a_regs``): the ``mma.m16n8k16``
    A fragment of its 16 rows and the step's 16 K columns, which is the C fragments of two
    adjacent 8-column blocks side by side (registers 0-3 the first, 4-7 the second)."""
    k: int = WGMMA_K
    """K of one instruction (``k16`` for 16-bit operands, ``k8`` for TF32)."""
    b_majors: tuple[str, ...] = ("n", "k")
    """The B layouts it reads: ``n`` (N-major, the transpose bit set) and ``k`` (K-major);
    32-bit operands have no transpose bit, so a TF32 B is K-major only."""
    precision: str = "exact"
    """``exact`` (16-bit products are exact in f32) or ``tf32``: A from registers is rounded
    to TF32 (to nearest, ties away) when the instruction issues; a shared operand is read as
    TF32 by the hardware, which ignores its 13 low mantissa bits (truncation toward zero,
    one of the two reductions the ``tf32`` policy allows: docs/design/tileir.md)."""

    @property
    def a_half(self) -> int:
        """Elements of each of the two register halves of a register A (``a_regs``)."""
        return self.a.regs // 2


WGMMA_ATOMS: dict[str, WgmmaAtom] = {
    a.catalog_id: a for a in (
        WgmmaAtom("wgmma.m64k16.bf16", bf16, f32, _C_16x8, "bf16"),
        WgmmaAtom("wgmma.m64k16.f16", f16, f32, _C_16x8, "f16"),
        WgmmaAtom("wgmma.m64k8.tf32", f32, f32, _C_16x8, "tf32", _A_16x8_TF32, 8, ("k",),
                  "tf32"),
    )
}
"""The warpgroup matrix instructions by catalog id."""


def wgmma_for(dtype: ScalarType, precision: str = "exact") -> WgmmaAtom | None:
    """The warpgroup instruction for operands of ``dtype`` under ``precision`` (None: there is
    none): 16-bit operands, or f32 ones under ``tf32``."""
    return next((a for a in WGMMA_ATOMS.values() if a.in_dtype is dtype
                 and (a.precision == "exact" or precision == a.precision)), None)


def wgmma_of(mma_atom_id: str) -> WgmmaAtom | None:
    """The warpgroup instruction that realizes rectangles of warp atom ``mma_atom_id`` (its
    operand type and precision), None when none does."""
    a = MMA_ATOMS.get(mma_atom_id)
    return None if a is None else wgmma_for(a.in_dtype, a.precision)


@dataclass(frozen=True)
class LaneAtom:
    """A matrix atom realized by the lanes' own exact FP32 fused multiply-adds.

    Each of the 32 lanes owns the accumulator elements ``c(lane, i)`` of an
    ``am x an`` output atom, all in one row, so one K step is: read the lane's
    A value of that row and its B values of those columns, then one FMA per
    register. No ``atom.call`` is needed: the realization is ordinary ``map``
    arithmetic over per-lane registers.
    """

    catalog_id: str
    """The planner's atom id this realizes."""
    am: int
    """Atom rows."""
    an: int
    """Atom columns."""
    c: FragmentLayout
    """The accumulator layout ``(lane, i) -> (row, col)``; the row depends on the lane only."""
    source: str
    """Where the layout comes from."""


LANE_ATOMS: dict[str, LaneAtom] = {
    a.catalog_id: a for a in (
        LaneAtom("ffma", 4, 8, FragmentLayout(4, 8, 1, IndexMap(2, [_LANE.floordiv(8),
                                                                     _LANE.mod(8)])),
                 "tilec (the cuda profiles' lane_ffma atom): lane l owns row l // 8, column "
                 "l % 8 of a 4x8 atom"),
        LaneAtom("simdgroup.8x8.f32", 8, 8,
                 FragmentLayout(8, 8, 2, IndexMap(2, [_LANE.floordiv(4), _Q * 2 + _REG])),
                 "tilec: a lane-FFMA realization of the metal:m1 8x8 atom grid (lane l owns row "
                 "l // 4, columns 2*(l % 4) + i); Apple documents no simdgroup_matrix element "
                 "layout, so this is the layout the accumulator has between operations (the "
                 "simdgroup realization's opaque fragments never leave one operation)"),
    )
}
"""Matrix atoms realized by per-lane FMAs, by planner atom id."""


SIMDGROUP_ATOM = "simdgroup.8x8.f32"
"""The metal:m1 planner atom the ``simdgroup`` realization issues as MSL ``simdgroup_matrix``
instructions (``SIMDGROUP_OPS``)."""

SIMDGROUP_BLOCK = 8
"""Rows and columns of one ``simdgroup_float8x8`` fragment."""

SIMDGROUP_OPS = ("simdgroup.load", "simdgroup.mma", "simdgroup.store")
"""The opaque-fragment atoms of the ``simdgroup`` realization. A fragment is a
``tile<2 x f32>`` per lane holding 2 of the 64 elements of an 8x8 block, in an assignment
of elements to lanes and registers that Apple does not document: only these three atoms
may produce or read one, and a ``serial`` loop may carry one unchanged (a resident
accumulator, ``lower/machine_simdgroup.py``); the simulator assigns the elements at random
per launch."""


MPP_ATOMS = {"mpp.matmul2d.f32.subgroup": "mpp", "mpp.matmul2d.f32.group": "mpp.group"}
"""The metal:m1 planner atoms of Apple's MPP ``matmul2d`` tensor operation, and the Machine
realization (the ``mma``'s ``realization``) of each scope: ``mpp`` (one operation per
SIMD-group, ``metal::execution_simdgroup``), ``mpp.group`` (one operation of the whole group,
``metal::execution_simdgroups<G>``). Between operations the accumulator is in the lane-FMA
layout of the 8x8 atom grid (``LANE_ATOMS["simdgroup.8x8.f32"]``), like the simdgroup
realization's: MPP's cooperative tensors distribute their elements in an
implementation-defined way, so nothing outside one ``mpp.matmul2d`` (or, for a destination
resident across a K loop, its ``mpp.dest.load`` / ``mpp.run`` / ``mpp.dest.store``, and
``mpp.dest.element``, which gives each element with its own coordinates) may see one."""

MPP_REALIZATIONS = tuple(MPP_ATOMS.values())
"""The Machine realizations of the MPP family."""

MPP_OPS = ("mpp.matmul2d", "mpp.dest.load", "mpp.run", "mpp.dest.store",
           "mpp.dest.capacity", "mpp.dest.element")
"""The Machine atoms of the MPP realizations: ``mpp.matmul2d`` (one operation whose
cooperative destination lives only inside it), the resident destination's three
(``mpp.dest.load`` before a K loop, ``mpp.run`` in it, ``mpp.dest.store`` after it;
``lower/machine_mpp.py``) and its per-element access (``mpp.dest.capacity``,
``mpp.dest.element``: a fused scalar epilogue on the destination's own elements)."""


@dataclass(frozen=True)
class AtomDef:
    """One catalog entry of any kind."""

    catalog_id: str
    """The ``atom.call`` catalog id."""
    operands: tuple[str, ...]
    """Operand roles, in order."""
    results: tuple[str, ...]
    """Result roles, in order."""
    scope: str
    """Participants: ``group`` (all threads), ``warp`` (32 lanes, converged), ``lane``."""
    summary: str
    """What it does."""


CATALOG: dict[str, AtomDef] = {
    e.catalog_id: e for e in (
        AtomDef("barrier.group", (), (), "group", "all threads of the group meet; orders "
                "shared-memory accesses"),
        AtomDef("barrier.subgroup", (), (), "warp",
                "the threads of each subgroup (`width` consecutive threads: a warp, a SIMD-group) "
                "meet; orders the shared-memory accesses of one subgroup's threads, not those of "
                "different subgroups. Placed only where plan/proofs/independent_subgroups.py "
                "proves every dependence it orders subgroup-local. CUDA: __syncwarp(); Metal: "
                "simdgroup_barrier(mem_flags::mem_threadgroup)"),
        AtomDef("barrier.named", (), (), "group",
                "the `threads` threads that reach named barrier `id` (1..15) meet; orders their "
                "shared-memory accesses, not those of the group's other threads. A role region "
                "of a warp-specialized group synchronizes its own warps with it (`id` 0 is the "
                "group barrier). PTX: bar.sync id, threads"),
        AtomDef("barrier.turn", ("id",), (), "warpgroup",
                "warpgroups of one role take turns: each thread of the warpgroup reaches named "
                "barrier `id` (a value, the same across the warpgroup), whose phase completes "
                "once `threads` threads have reached it; `action` \"sync\" waits for that, "
                "\"arrive\" goes on at once. Orders no memory access (a schedule, not a "
                "dependence). PTX: bar.sync / bar.arrive id, threads"),
        AtomDef("setmaxnreg", (), (), "warpgroup",
                "every thread of the warpgroup sets its register budget to `count` (a multiple "
                "of 8 in [24, 256]): `action` \"dec\" releases registers to the compute unit, "
                "\"inc\" waits until enough are free. PTX: setmaxnreg.{inc,dec}.sync.aligned.u32"),
        AtomDef("vote.any", ("flags...",), ("any",), "group",
                "a group barrier that also returns, to every thread, whether any register "
                "of any thread's i1 register arrays is true (CUDA __syncthreads_or)"),
        AtomDef("shfl.xor", ("value", "lane_mask"), ("value",), "warp",
                "the value held by lane (lane ^ lane_mask) of the same warp"),
        AtomDef("cp.async.16", ("dst_shared_view", "src_global_view", "valid_bytes"),
                ("token",), "lane", "16-byte asynchronous global->shared copy; bytes beyond "
                "valid_bytes are zero-filled"),
        AtomDef("cp.async.commit", (), ("token",), "lane", "close the current copy group"),
        AtomDef("cp.async.wait", (), (), "lane", "wait until at most `pending` copy groups "
                "are in flight"),
        AtomDef("ldmatrix.x4", ("row_view",), ("fragment",), "warp",
                "four 8x8 16-bit matrices from shared memory into A-operand fragments"),
        AtomDef("ldmatrix.x4.trans", ("row_view",), ("fragment",), "warp",
                "four 8x8 16-bit matrices, transposed: lane 8j + r supplies row r of matrix j "
                "(8 elements), lane l receives elements (row 2*(l%4) + c, column l//4) of "
                "matrix j in registers 2j + c; on a row-major K x N tile with matrices (k 0-7, "
                "n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15) these are the "
                "m16n8k16 B fragments of two 8-column blocks (registers 0-3 and 4-7). PTX: "
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
        *(AtomDef(a.catalog_id, ("a", "b", "c"), ("d",), "warp",
                  f"{a.am}x{a.an}x{a.ak} warp-wide matrix multiply-accumulate")
          for a in MMA_ATOMS.values()),
        *(AtomDef(a.catalog_id, ("a_shared_view", "b_shared_view", "c_fragments..."),
                  ("d_fragments...",), "warpgroup",
                  f"64 x n x {a.k} warpgroup multiply-accumulate of {a.ptx_type} operands in "
                  "shared memory (128-byte swizzled canonical layouts; A K-major, or in "
                  f"registers with a_regs: two {a.a_half}-register halves, the second after "
                  "the C fragments; "
                  + ("B N-major, or K-major with b_major = 'k'" if "n" in a.b_majors else
                     "B K-major (b_major = 'k'): no transpose for 32-bit operands")
                  + "); accumulator: n/8 C fragments per thread; asynchronous: its results "
                  "may be read only after wgmma.wait"
                  + ("; TF32: register A rounded to nearest when issued, shared operands "
                     "truncated (the hardware ignores 13 mantissa bits)"
                     if a.precision == "tf32" else ""))
          for a in WGMMA_ATOMS.values()),
        AtomDef("simdgroup.load", ("block_view",), ("fragment",), "warp",
                "the 8x8 view (the same block on every lane of the SIMD-group) into an opaque "
                "fragment: tile<2 x f32> per lane, element assignment undocumented. MSL: "
                "simdgroup_load(simdgroup_float8x8 &, const threadgroup float *, ulong "
                "elements_per_row)"),
        AtomDef("simdgroup.mma", ("a", "b", "c"), ("d",), "warp",
                "D = A @ B + C on opaque 8x8 fragments (simdgroup.load / simdgroup.mma "
                "results), f32, summation order unspecified. MSL: "
                "simdgroup_multiply_accumulate(d, a, b, c)"),
        AtomDef("simdgroup.store", ("block_view", "fragment"), (), "warp",
                "the opaque fragment's 8x8 block into an 8x8 view (the same block on every "
                "lane of the SIMD-group), every element written once. MSL: "
                "simdgroup_store(simdgroup_float8x8, threadgroup float *, ulong "
                "elements_per_row)"),
        AtomDef("mpp.matmul2d", ("a_view", "b_view", "c_view"), (), "warp",
                "C += A @ B over f32 views in group memory (A m x k, B k x n, C m x n; the "
                "same views on every lane of the scope): one MPP tensor operation, f32, "
                "summation order unspecified. `scope` \"subgroup\": each SIMD-group issues its "
                "own (metal::execution_simdgroup); \"group\": all `subgroups` SIMD-groups of "
                "the group issue one together (metal::execution_simdgroups<G>). MSL: "
                "mpp::tensor_ops::matmul2d<matmul2d_descriptor(m, n, k, ...), scope>::run on "
                "inline threadgroup tensors with a cooperative destination tensor"),
        AtomDef("mpp.dest.load", ("c_view",), ("dest",), "warp",
                "the m x n view (the same view on every lane of the scope) into a cooperative "
                "destination tensor of the matmul2d the attributes describe (m, n, k, scope, "
                "subgroups, transpose_b): tile<cap x f32> per lane, cap = ceil(m n / lanes "
                "of the scope), element assignment implementation-defined; only mpp.run, "
                "mpp.dest.store and mpp.dest.capacity / mpp.dest.element may read it. MSL: "
                "get_destination_cooperative_tensor, then each valid element from its "
                "get_multidimensional_index coordinates"),
        AtomDef("mpp.run", ("a_view", "b_view", "dest"), ("dest",), "warp",
                "D = A @ B + dest on a cooperative destination (mpp.dest.load / mpp.run "
                "result of the same descriptor and scope), A and B as for mpp.matmul2d; the "
                "destination is updated in place (its operand has no other use). MSL: "
                "matmul2d<descriptor, scope>::run(a, b, dest)"),
        AtomDef("mpp.dest.store", ("c_view", "dest"), (), "warp",
                "the cooperative destination's elements into the m x n view (the same view on "
                "every lane of the scope), each element written once. MSL: each valid "
                "element to its get_multidimensional_index coordinates"),
        AtomDef("mpp.dest.capacity", ("dest",), ("capacity",), "lane",
                "the number of element slots this lane holds of the cooperative destination "
                "(an index, the same on every lane of the scope; some slots may hold no "
                "element). MSL: get_capacity()"),
        AtomDef("mpp.dest.element", ("dest", "slot"), ("valid", "row", "column", "value"),
                "lane",
                "slot `slot` (< capacity) of this lane's share of the cooperative "
                "destination: whether it holds an element (i1), that element's row and "
                "column in the m x n destination (index; 0 when invalid) and its value "
                "(tile<1 x f32>; 0 when invalid). MSL: is_valid_element, "
                "get_multidimensional_index (dimension 0 is the column), operator[]"),
        AtomDef("wgmma.fence", (), ("token",), "warpgroup",
                "orders this warpgroup's register and shared-memory accesses before the "
                "following wgmma instructions"),
        AtomDef("wgmma.commit", (), ("token",), "warpgroup",
                "closes the current group of issued wgmma instructions"),
        AtomDef("wgmma.wait", (), (), "warpgroup", "waits until at most `pending` wgmma "
                "groups are in flight; their accumulators and shared reads are then complete"),
        AtomDef("fence.proxy.async", (), ("token",), "lane",
                "makes this thread's completed shared-memory writes visible to the "
                "asynchronous proxy (wgmma operand reads, tensor stores)"),
        AtomDef("tma.store", ("dst_array", "src_shared_view", "coords..."), ("token",), "lane",
                "tensor-memory-accelerator copy of the source view (a whole 128-byte swizzled "
                "block: rows of 128 bytes starting on a 1024-byte boundary, `swizzle` = 128) "
                "into the box `box` of the global array whose origin is `coords` (one index "
                "per array axis), view elements in row-major order onto box elements in "
                "row-major order; box elements outside the array are not written. The copy "
                "reads shared memory asynchronously: it joins the issuing thread's open bulk "
                "group, and the source may be written again only after that thread's "
                "`bulk.wait` retired the group (then a barrier orders the others' writes). "
                "Shared writes it reads must be fenced (`fence.proxy.async`) by their writers "
                "first. PTX: cp.async.bulk.tensor.<r>d.global.shared::cta.bulk_group"),
        AtomDef("bulk.commit", (), ("token",), "lane",
                "closes the issuing thread's open bulk group (its tensor stores since the last "
                "commit). PTX: cp.async.bulk.commit_group"),
        AtomDef("bulk.wait", (), ("token",), "lane",
                "waits until at most `pending` of this thread's committed bulk groups are in "
                "flight; with `read` = true only their shared-memory reads must be done (the "
                "sources may be reused), else their global writes too. PTX: "
                "cp.async.bulk.wait_group[.read] pending"),
        AtomDef("mbarrier.init", ("barrier_view",), ("token",), "lane",
                "initializes the 8-byte shared-memory barrier of a one-element i64 view for "
                "`count` arrivals per phase, phase 0 in progress; the barrier must not be "
                "valid (never initialized, or invalidated). PTX: mbarrier.init.shared::cta.b64"),
        AtomDef("mbarrier.expect_tx", ("barrier_view", "bytes"), ("token",), "lane",
                "adds `bytes` to the transaction count of the barrier's current phase, then "
                "arrives once; the phase completes when every arrival of the count has come "
                "and the transaction count is back to zero. PTX: "
                "mbarrier.arrive.expect_tx.shared::cta.b64"),
        AtomDef("mbarrier.arrive", ("barrier_view",), ("token",), "lane",
                "arrives once on the barrier's current phase (no transaction bytes); this "
                "thread's earlier memory accesses, and the reads of wgmma groups it has "
                "retired, are then ordered before the accesses of any thread that waits for "
                "the phase. PTX: mbarrier.arrive.shared::cta.b64"),
        AtomDef("mbarrier.arrive.peer", ("barrier_view", "rank"), ("token",), "lane",
                "arrives once on the barrier at the same shared-memory offset in group `rank` "
                "of this group's cluster (the grid's `cluster` attribute), with the ordering "
                "of mbarrier.arrive across the cluster: this thread's earlier accesses and "
                "retired wgmma reads are ordered before the accesses of any thread of that "
                "group that waits for the phase. PTX: mapa.shared::cluster, then "
                "mbarrier.arrive.release.cluster.shared::cluster.b64"),
        AtomDef("mbarrier.wait", ("barrier_view", "parity"), (), "lane",
                "waits until the phase of the barrier whose parity is `parity` (0 or 1) has "
                "completed (the current phase's parity differs from it); the shared-memory "
                "writes of that phase's tma.load copies are then visible to this thread. PTX: "
                "mbarrier.try_wait.parity.shared::cta.b64 in a loop"),
        AtomDef("mbarrier.inval", ("barrier_view",), ("token",), "lane",
                "invalidates the barrier (it may then be initialized again); every thread "
                "must be done waiting on it. PTX: mbarrier.inval.shared::cta.b64"),
        AtomDef("barrier.cluster", (), (), "group",
                "every thread of every group of the cluster meets (the grid's `cluster` "
                "attribute); barrier initializations and shared-memory accesses before it are "
                "visible to the cluster's threads after it. PTX: fence.mbarrier_init.release."
                "cluster, barrier.cluster.arrive.release and barrier.cluster.wait.acquire"),
        AtomDef("split.store", ("split", "tile", "part"), ("token",), "group",
                "split-K: stores this thread's accumulator registers `part` (tile<P x f32>, "
                "registers `offset` .. `offset + P` of the `regs` the thread carries) as the "
                "partial sum of split `split` of output tile `tile` into the launch's "
                "partials workspace (`splits` partials of `threads` x `regs` f32 per tile; a "
                "kernel parameter the launcher allocates)"),
        AtomDef("split.arrive", ("tile",), ("last",), "group",
                "split-K: every thread's partial stores are made visible at device scope, "
                "then one thread counts this program's arrival on tile `tile`'s counter (a "
                "second workspace, zero between launches); every thread gets whether this "
                "program arrived last of the tile's `splits` (the program that combines; it "
                "sets the counter back to zero and orders the others' partials before its "
                "reads). CUDA: __threadfence, __syncthreads, atomicAdd by thread 0, broadcast "
                "through shared memory"),
        AtomDef("split.combine", ("tile",), ("part",), "group",
                "split-K: the sum of the `splits` partials of tile `tile` at this thread's "
                "registers `offset` .. `offset + P` (tile<P x f32>), added in split order "
                "0, 1, ..., splits - 1 whichever program finished first, so a configuration "
                "gives the same bits on every run; only the program split.arrive named last "
                "may call it"),
        AtomDef("tma.load", ("dst_shared_view", "src_array", "barrier_view", "coords..."),
                ("token",), "lane",
                "tensor-memory-accelerator copy of the box `box` (one extent per array axis) "
                "of the global array whose origin is `coords` (one index per array axis, any "
                "value: elements outside the array are zero, NaN with `oob` = \"nan\") into the "
                "destination view, box "
                "elements in row-major order onto the view's elements in row-major order; the "
                "destination is a whole 128-byte swizzled block (`swizzle` bytes: rows of 128 "
                "bytes starting on a 1024-byte boundary); its bytes complete the barrier's "
                "current phase's transaction count. The array's tensor map is a kernel "
                "parameter built at launch. With `multicast` = n (the grid's cluster size) "
                "the box lands at the same offset in every group of the cluster and completes "
                "each group's barrier at the barrier's offset. PTX: cp.async.bulk.tensor.<r>d."
                "shared::cluster.global.mbarrier::complete_tx::bytes[.multicast::cluster]"),
    )
}
"""Every catalog entry by id."""


def atom(catalog_id: str) -> AtomDef:
    """The catalog entry ``catalog_id`` (``KeyError`` naming the known ids otherwise)."""
    try:
        return CATALOG[catalog_id]
    except KeyError:
        raise KeyError(f"unknown atom {catalog_id!r}; known: {', '.join(sorted(CATALOG))}") \
            from None
