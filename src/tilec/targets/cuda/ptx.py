"""Inline PTX for the CUDA atom catalog (``tilec.ir.atoms``), one function per atom family.

Each function returns the C++ lines of one ``atom.call``; the emitter has
already turned the operands into register-array names and addresses.

Register packing: a 16-bit tile that an ``ldmatrix`` produces or an MMA atom
consumes is a ``tc_b16x<N>`` (``B16_ARRAYS``): ``N`` bit patterns packed two
per 32-bit word, element ``2j`` in the low half of word ``w[j]``. That is how
``ldmatrix`` delivers fragments and how ``mma.sync`` takes its 16-bit
operands, so both name the words directly and a fragment goes from one to
the other with no unpacking or repacking. TF32
operands are rounded with ``cvt.rna.tf32.f32`` (to nearest, ties away from
zero, the rounding docs/design/tileir.md specifies) before the multiply.
"""

from __future__ import annotations

from tilec.ir.atoms import MmaAtom

__all__ = ["B16_ARRAYS", "b16_array_decl", "mma_lines", "ldmatrix_x4_lines", "cp_async_lines",
           "commit_lines", "wait_lines", "shfl_xor_expr", "WGMMA_PRELUDE", "wgmma_lines",
           "wgmma_sync_lines"]

FULL_MASK = "0xffffffffu"
"""All 32 lanes of a warp participate (the catalog's warp atoms need a converged warp)."""

B16_ARRAYS = r"""
/* ---- 16-bit register arrays: two bit patterns per 32-bit word ---- */
/* Element 2j is the low half of w[j], element 2j+1 the high half: the packing of ldmatrix
   results and of the 16-bit operands of the mma atoms, which use w[] directly. Every other
   use goes element by element through operator[]; indices are constants after unrolling,
   so an element access is one shift, mask or byte permute on a register. */
struct tc_b16_ref {
  uint32_t &w;
  const unsigned s;
  __device__ __forceinline__ tc_b16_ref(uint32_t &word, unsigned shift) : w(word), s(shift) {}
  __device__ __forceinline__ operator uint16_t() const { return (uint16_t)(w >> s); }
  __device__ __forceinline__ tc_b16_ref &operator=(uint16_t x) {
    w = (w & ~(0xffffu << s)) | ((uint32_t)x << s);
    return *this;
  }
  __device__ __forceinline__ tc_b16_ref &operator=(const tc_b16_ref &o) {
    return *this = (uint16_t)o;
  }
};
template <int N> struct tc_b16x {
  uint32_t w[(N + 1) / 2];
  __device__ __forceinline__ tc_b16_ref operator[](int i) {
    return tc_b16_ref(w[i >> 1], (unsigned)(i & 1) * 16u);
  }
  __device__ __forceinline__ uint16_t operator[](int i) const {
    return (uint16_t)(w[i >> 1] >> ((i & 1) * 16));
  }
};
"""
"""C++ of the packed 16-bit register arrays; emitted once into kernels that declare one."""


def b16_array_decl(name: str, n: int) -> str:
    """The declaration of a packed register array of ``n`` 16-bit elements."""
    return f"tc_b16x<{max(1, n)}> {name};"


def _operand_regs(names: str, n: int, packed: bool, tf32: bool) -> list[str]:
    if packed:
        return [f'"r"({names}.w[{j}])' for j in range(n // 2)]
    if tf32:
        return [f'"r"(tc_tf32({names}[{j}]))' for j in range(n)]
    return [f'"f"({names}[{j}])' for j in range(n)]


def mma_lines(atom: MmaAtom, d: str, a: str, b: str, c: str) -> list[str]:
    """``d = a @ b + c`` for one warp-wide matrix atom (register arrays by name; 16-bit
    operands are ``tc_b16x`` arrays whose words are the PTX operand registers)."""
    packed = atom.in_dtype.bits == 16
    tf32 = atom.precision == "tf32"
    outs = [f'"=f"({d}[{j}])' for j in range(atom.c.regs)]
    a_ops = _operand_regs(a, atom.a.regs, packed, tf32)
    b_ops = _operand_regs(b, atom.b.regs, packed, tf32)
    c_ops = [f'"f"({c}[{j}])' for j in range(atom.c.regs)]
    pos = 0
    groups = []
    for ops in (outs, a_ops, b_ops, c_ops):
        groups.append("{" + ", ".join(f"%{pos + j}" for j in range(len(ops))) + "}")
        pos += len(ops)
    text = f"{atom.ptx} {groups[0]}, {groups[1]}, {groups[2]}, {groups[3]};"
    return [f'asm("{text}"',
            f"    : {', '.join(outs)}",
            f"    : {', '.join(a_ops + b_ops + c_ops)});"]


def ldmatrix_x4_lines(out: str, addr: str, trans: bool = False) -> list[str]:
    """Four 8x8 b16 matrices into the words of ``tc_b16x<8>`` ``out``: matrix ``j`` in
    ``out.w[j]`` (elements ``2j``, ``2j+1``); ``trans`` delivers each matrix transposed."""
    qual = ".trans" if trans else ""
    return [f'asm volatile("ldmatrix.sync.aligned.m8n8.x4{qual}.shared.b16 '
            '{%0, %1, %2, %3}, [%4];"',
            f'    : "=r"({out}.w[0]), "=r"({out}.w[1]), "=r"({out}.w[2]), "=r"({out}.w[3])',
            f'    : "r"(tc_smem_addr({addr})) : "memory");']


def cp_async_lines(dst: str, src: str, src_base: str, valid: str) -> list[str]:
    """A 16-byte global->shared copy; bytes beyond ``valid`` are zero-filled.

    With no valid byte nothing is read, and the source address is the
    array's base (always dereferenceable) rather than a possibly wild one.
    """
    return [f"const int64_t nv = {valid};",
            "const uint32_t n = nv <= 0 ? 0u : nv >= 16 ? 16u : (uint32_t)nv;",
            'asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"',
            f'    :: "r"(tc_smem_addr({dst})), "l"(n ? (const void *)({src}) '
            f': (const void *)({src_base})), "r"(n) : "memory");']


def commit_lines() -> list[str]:
    """Close the current ``cp.async`` group."""
    return ['asm volatile("cp.async.commit_group;" ::: "memory");']


def wait_lines(pending: int) -> list[str]:
    """Wait until at most ``pending`` ``cp.async`` groups are in flight."""
    return [f'asm volatile("cp.async.wait_group {int(pending)};" ::: "memory");']


def shfl_xor_expr(value: str, ctype: str, mask: str) -> str:
    """The value of lane ``lane ^ mask``: 32-bit or 64-bit shuffles, narrower types widened."""
    if ctype in ("float", "double", "int32_t", "int64_t"):
        cast = {"int32_t": "int", "int64_t": "long long"}.get(ctype, ctype)
        return f"({ctype})__shfl_xor_sync({FULL_MASK}, ({cast})({value}), (int)({mask}))"
    return f"({ctype})__shfl_xor_sync({FULL_MASK}, (unsigned int)({value}), (int)({mask}))"


WGMMA_PRELUDE = r"""
/* ---- warpgroup matrix instructions (sm_90a) ---- */
/* A shared-memory matrix descriptor: start address, leading and stride byte offsets (all in
   16-byte units, 14 bits each) and the 128-byte swizzle mode (1 in bits 62-63). */
TC_DEV uint64_t tc_wgmma_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr >> 4) & 0x3FFFu) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16)
       | ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}
"""
"""C++ helpers of kernels that issue ``wgmma``; emitted once into such kernels."""


def wgmma_lines(ptx_type: str, n: int, accs: list[str], a_desc: str, b_desc: str,
                b_major: str = "n", a_regs: list[str] | None = None, k: int = 16
                ) -> list[str]:
    """``accs += A @ B`` for one ``wgmma.mma_async`` m64nNk``k`` (A K-major, or in
    registers: ``a_regs``, the fragment's four 32-bit words; B N-major with the transpose-B
    bit set, or K-major without it: ``b_major``), accumulating (scale-d 1); ``accs`` are the
    ``n / 8`` four-register C fragments, updated in place. TF32 (``k = 8``) has no
    transpose operands at all: both operands are K-major."""
    tnsp_b = {"n": 1, "k": 0}[b_major]
    tf32 = ptx_type == "tf32"
    assert not (tf32 and tnsp_b), "a TF32 B is K-major"
    regs = [f"{a}[{j}]" for a in accs for j in range(4)]
    count = len(regs)
    assert count == n // 2, (count, n)
    group = "{" + ", ".join(f"%{j}" for j in range(count)) + "}"
    if a_regs is None:
        a_ops, a_ins, trans = f"%{count}", [f'"l"({a_desc})'], f", 0, {tnsp_b}"
    else:  # a register A takes no transpose operand of its own
        assert len(a_regs) == 4, a_regs
        a_ops = "{" + ", ".join(f"%{count + j}" for j in range(4)) + "}"
        a_ins, trans = [f'"r"({r})' for r in a_regs], f", {tnsp_b}"
    if tf32:
        trans = ""
    b_at = count + len(a_ins)
    text = ("{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + str(b_at + 1) + ", 0;\\n"
            f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ptx_type}.{ptx_type} "
            f"{group}, {a_ops}, %{b_at}, p, 1, 1{trans};\\n}}")
    outs = ", ".join(f'"+f"({r})' for r in regs)
    ins = ", ".join([*a_ins, f'"l"({b_desc})', '"n"(1)'])
    return [f'asm volatile("{text}"', f"    : {outs}", f'    : {ins} : "memory");']


def wgmma_sync_lines(kind: str, pending: int = 0) -> list[str]:
    """``wgmma.fence``, ``wgmma.commit`` and ``wgmma.wait`` (at most ``pending`` groups in
    flight), and ``fence.proxy.async`` (shared writes made visible to wgmma's reads)."""
    text = {"wgmma.fence": "wgmma.fence.sync.aligned;",
            "wgmma.commit": "wgmma.commit_group.sync.aligned;",
            "wgmma.wait": f"wgmma.wait_group.sync.aligned {int(pending)};",
            "fence.proxy.async": "fence.proxy.async.shared::cta;"}[kind]
    return [f'asm volatile("{text}" ::: "memory");']


def _tma_loads(multicast: bool = False) -> str:
    """``tc_tma_load_<r>d``: one box copy of a rank-``r`` tensor map (coordinates innermost
    first) completing on a barrier's transaction count; ``tc_tma_load_<r>d_p`` the same
    under a predicate (issued where it is nonzero, with no branch). With ``multicast``,
    ``tc_tma_load_<r>d_mc`` and ``_mc_p`` take a CTA ``mask`` after the barrier: the box
    lands at the same shared offset in every group of the mask in the cluster, each copy
    completing the barrier at ``bar``'s offset in its group."""
    sfx, mask, mask_in, first = ("_mc", ", uint16_t mask", ', "h"(mask)', 4) if multicast \
        else ("", "", "", 3)
    mc = ".multicast::cluster" if multicast else ""
    out = []
    for r in range(1, 6):
        cs = ", ".join(f"int c{k}" for k in range(r))
        regs = ", ".join(f"%{first + k}" for k in range(r))
        ins = ", ".join(f'"r"(c{k})' for k in range(r))
        copy = (f"cp.async.bulk.tensor.{r}d.shared::cluster.global."
                f"mbarrier::complete_tx::bytes{mc} [%0], [%1, {{{regs}}}], [%2]"
                f"{', %3' if multicast else ''};")
        head = f"uint32_t dst, const tc_tmap *map, uint32_t bar{mask}, {cs}"
        args = f'"r"(dst), "l"((uint64_t)map), "r"(bar){mask_in}, {ins}'
        out.append(f"TC_DEV void tc_tma_load_{r}d{sfx}({head}) {{\n"
                   f'  asm volatile("{copy}"\n    :: {args} : "memory");\n}}')
        out.append(
            f"TC_DEV void tc_tma_load_{r}d{sfx}_p({head}, uint32_t p) {{\n"
            f'  asm volatile("{{\\n.reg .pred q;\\nsetp.ne.b32 q, %{first + r}, 0;\\n'
            f'@q {copy}\\n}}"\n    :: {args}, "r"(p) : "memory");\n}}')
    return "\n".join(out)


def _tma_stores() -> str:
    """``tc_tma_store_<r>d``: one box copy from 128-byte swizzled shared memory into a rank-``r``
    tensor map's array (coordinates innermost first; box elements outside the array are not
    written), joining the issuing thread's open bulk group."""
    out = []
    for r in range(1, 6):
        cs = ", ".join(f"int c{k}" for k in range(r))
        regs = ", ".join(f"%{2 + k}" for k in range(r))
        ins = ", ".join(f'"r"(c{k})' for k in range(r))
        copy = f"cp.async.bulk.tensor.{r}d.global.shared::cta.bulk_group [%0, {{{regs}}}], [%1];"
        out.append(f"TC_DEV void tc_tma_store_{r}d(const tc_tmap *map, uint32_t src, {cs}) {{\n"
                   f'  asm volatile("{copy}"\n    :: "l"((uint64_t)map), "r"(src), {ins} '
                   ': "memory");\n}')
    return "\n".join(out)


def bulk_lines(kind: str, pending: int = 0, read: bool = False) -> list[str]:
    """``bulk.commit`` (close the thread's bulk group) and ``bulk.wait`` (at most
    ``pending`` of its groups in flight; ``read``: only their shared reads done)."""
    text = "cp.async.bulk.commit_group;" if kind == "bulk.commit" else \
        f"cp.async.bulk.wait_group{'.read' if read else ''} {int(pending)};"
    return [f'asm volatile("{text}" ::: "memory");']


TMA_PRELUDE = r"""
/* ---- tensor copies completing on shared-memory barriers (sm_90) ---- */
/* A tensor map built by the launcher (cuTensorMapEncodeTiled), passed by value. */
struct __align__(64) tc_tmap { unsigned long long w[16]; };
/* Fetch a map into the cache where tensor copies read it, before the first copy needs it. */
TC_DEV void tc_tmap_prefetch(const tc_tmap *map) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}
TC_DEV void tc_mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
TC_DEV void tc_mbar_inval(uint32_t bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
}
TC_DEV void tc_mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(bar), "r"(bytes) : "memory");
}
TC_DEV void tc_mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
TC_DEV void tc_mbar_arrive_p(uint32_t bar, uint32_t p) {
  asm volatile("{\n.reg .pred q;\nsetp.ne.b32 q, %1, 0;\n"
               "@q mbarrier.arrive.shared::cta.b64 _, [%0];\n}" :: "r"(bar), "r"(p) : "memory");
}
TC_DEV void tc_mbar_expect_tx_p(uint32_t bar, uint32_t bytes, uint32_t p) {
  asm volatile("{\n.reg .pred q;\nsetp.ne.b32 q, %2, 0;\n"
               "@q mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n}"
               :: "r"(bar), "r"(bytes), "r"(p) : "memory");
}
TC_DEV bool tc_mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0u;
}
TC_DEV void tc_mbar_wait(uint32_t bar, uint32_t parity) {
  while (!tc_mbar_try_wait(bar, parity)) {
  }
}
""" + _tma_loads() + "\n" + _tma_stores() + "\n"
"""C++ helpers of kernels that issue tensor copies; emitted once into such kernels."""

CLUSTER_PRELUDE = ("\n/* ---- the groups of a cluster: peer releases, multicast copies ---- */\n"
                   + r"""TC_DEV void tc_mbar_arrive_peer(uint32_t bar, uint32_t rank) {
  asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}"
               :: "r"(bar), "r"(rank) : "memory");
}
TC_DEV void tc_mbar_arrive_peer_p(uint32_t bar, uint32_t rank, uint32_t p) {
  asm volatile("{\n.reg .pred q;\n.reg .b32 ra;\nsetp.ne.b32 q, %2, 0;\n"
               "mapa.shared::cluster.u32 ra, %0, %1;\n"
               "@q mbarrier.arrive.shared::cluster.b64 _, [ra];\n}"
               :: "r"(bar), "r"(rank), "r"(p) : "memory");
}
""" + _tma_loads(multicast=True) + "\n")
"""C++ helpers of kernels whose groups run in clusters (``mbarrier.arrive.peer``, multicast
``tma.load``); emitted once, after ``TMA_PRELUDE``, into such kernels only."""
