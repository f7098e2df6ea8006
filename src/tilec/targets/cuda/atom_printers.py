"""How the CUDA printer prints each Machine TileIR atom (``atom.call``): one function per
catalog family, chosen by ``PRINTERS`` from the catalog id (``tilec.ir.atoms``).

Each printer gets the emitter (its buffer, register arrays and bindings) and the
operation; it checks what the catalog leaves to the target (register counts, memory
spaces, the architecture) and prints inline PTX through ``ptx``. A printer returns True
when it bound the results itself; otherwise every result is a token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.ir.atoms import MMA_ATOMS, WGMMA_ATOMS, WgmmaAtom
from tilec.ir.ranges import I64
from tilec.targets.clike import Scalar
from tilec.targets.cuda import ptx
from tilec.targets.cuda.access import plus

if TYPE_CHECKING:
    from tilec.targets.cuda.emitter import CUDAEmitter

__all__ = ["PRINTERS", "printer_for"]

Printer = Callable[["CUDAEmitter", ir.Operation], bool]


def _barrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    em.buf.line("__syncthreads();")
    return False


def _subgroup_barrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    """The threads of each warp meet (every lane of the warp reaches it: the placement proof
    keeps it at group-uniform control flow)."""
    em.buf.line("__syncwarp();")
    return False


def _named_barrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    """``bar.sync id, threads``: the threads of one role region meet."""
    em.buf.line(f'asm volatile("bar.sync {int(op.attr("id"))}, {int(op.attr("threads"))};" '
                '::: "memory");')
    return False


def _turn_barrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    """``bar.sync`` / ``bar.arrive`` on a named barrier whose id is a (warp-uniform) value:
    the turns of a role's warpgroups."""
    bid = em.scalar(op.operand(0), op)
    em.buf.line(f'asm volatile("bar.{op.attr("action")} %0, {int(op.attr("threads"))};" '
                f':: "r"((uint32_t)({bid})) : "memory");')
    return False


def _cluster_barrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    """Every thread of the cluster meets; barrier initializations before it are visible to
    the cluster (``fence.mbarrier_init``)."""
    _need_tma(em, op)
    em.buf.line('asm volatile("fence.mbarrier_init.release.cluster;\\n"')
    em.buf.line('             "barrier.cluster.arrive.release.aligned;\\n"')
    em.buf.line('             "barrier.cluster.wait.acquire.aligned;" ::: "memory");')
    return False


def _setmaxnreg(em: CUDAEmitter, op: ir.Operation) -> bool:
    """The warpgroup's register budget (sm_90a)."""
    _need_tma(em, op)
    em.register_split = True
    em.buf.line(f'asm volatile("setmaxnreg.{op.attr("action")}.sync.aligned.u32 '
                f'{int(op.attr("count"))};");')
    return False


def _vote_any(em: CUDAEmitter, op: ir.Operation) -> bool:
    """The group's or of every register of every thread, uniform: ``bar.red.or.pred``."""
    terms = [f"{x.name}[{e}]" for x in (em.regs(v, op) for v in op.operands)
             for e in range(x.n)]
    var = em.name_of(op.results[0])
    em.buf.line(f"const uint8_t {var} = (uint8_t)(__syncthreads_or("
                f"{' | '.join(terms) or '0'}) != 0);")
    em.bind(op.results[0], Scalar(var, ir.i1))
    return True


def _shfl_xor(em: CUDAEmitter, op: ir.Operation) -> bool:
    em.warp_atoms = True
    v, mask = op.operand(0), op.operand(1)
    m = em.scalar(mask, op)
    f = em.get(v, op)
    res = op.results[0]
    if isinstance(f, Scalar):
        var = em.name_of(res)
        em.buf.line(f"const {em.ctype(f.type)} {var} = "
                    f"{ptx.shfl_xor_expr(f.expr, em.ctype(f.type), m)};")
        em.bind(res, Scalar(var, f.type))
        return True
    src = em.regs(v, op)
    out = em.new_regs(res, op)
    rt = em.rtype(src.dtype)
    e = "e" if src.n > 1 else "0"
    line = f"{out.name}[{e}] = {ptx.shfl_xor_expr(f'{src.name}[{e}]', rt, m)};"
    if src.n > 1:
        em.buf.line("#pragma unroll")
        line = f"for (int e = 0; e < {src.n}; ++e) " + line
    em.buf.line(line)
    em.bind(res, out)
    return True


def _mma(em: CUDAEmitter, op: ir.Operation) -> bool:
    """One ``mma.sync`` of the catalog: the fragments in the atom's register counts."""
    em.warp_atoms = True
    cid = op.attr("catalog_id")
    atom = MMA_ATOMS[cid]
    a, bb, c = (em.regs(v, op) for v in op.operands[:3])
    for x, lay, what in ((a, atom.a, "a"), (bb, atom.b, "b"), (c, atom.c, "c")):
        if x.n != lay.regs:
            raise em.unsupported(op, f"{cid} operand {what} has {x.n} registers per "
                                     f"lane; the atom takes {lay.regs}")
    if a.dtype is not atom.in_dtype or bb.dtype is not atom.in_dtype \
            or c.dtype is not atom.acc_dtype:
        raise em.unsupported(op, f"{cid} takes {atom.in_dtype} operands and a "
                                 f"{atom.acc_dtype} accumulator")
    if atom.in_dtype.bits == 16:
        a, bb = em.packed_regs(a), em.packed_regs(bb)
    d = em.new_regs(op.results[0], op)
    em.buf.lines_of(ptx.mma_lines(atom, d.name, a.name, bb.name, c.name))
    em.bind(op.results[0], d)
    return True


def _ldmatrix(em: CUDAEmitter, op: ir.Operation) -> bool:
    em.warp_atoms = True
    cid = op.attr("catalog_id")
    ref = em.memref(op.operand(0), op)
    if ref.space != "shared":
        raise em.unsupported(op, f"{cid} reads shared memory")
    out = em.new_regs(op.results[0], op)
    if out.n != 8 or not out.packed:
        raise em.unsupported(op, f"{cid} yields tile<8 x f16> or tile<8 x bf16>")
    addr = f"{ref.ptr} + {em.access.address_of_first(ref)}"
    em.buf.lines_of(ptx.ldmatrix_x4_lines(out.name, addr, cid.endswith(".trans")))
    em.bind(op.results[0], out)
    return True


def _cp_async(em: CUDAEmitter, op: ir.Operation) -> bool:
    dst = em.memref(op.operand(0), op)
    src = em.memref(op.operand(1), op)
    if dst.space != "shared" or src.space != "global":
        raise em.unsupported(op, "cp.async.16 copies global -> shared")
    valid = em.scalar(op.operand(2), op)
    em.note_aligned16(src.ptr)
    with em.buf.block(""):
        em.buf.lines_of(ptx.cp_async_lines(
            f"{dst.ptr} + {em.access.address_of_first(dst)}",
            f"{src.ptr} + {em.access.address_of_first(src)}", src.ptr, valid))
    return False


def _pending(em: CUDAEmitter, op: ir.Operation) -> int:
    pending = op.attr("pending", 0)
    if not isinstance(pending, int) or pending < 0:
        raise em.unsupported(op, f"{op.attr('catalog_id')} needs pending >= 0, got "
                                 f"{pending!r}")
    return pending


def _wgmma_sync(em: CUDAEmitter, op: ir.Operation) -> bool:
    cid = op.attr("catalog_id")
    em.buf.lines_of(ptx.wgmma_sync_lines(cid, _pending(em, op)))
    return False


def _cp_async_commit(em: CUDAEmitter, op: ir.Operation) -> bool:
    em.buf.lines_of(ptx.commit_lines())
    return False


def _cp_async_wait(em: CUDAEmitter, op: ir.Operation) -> bool:
    em.buf.lines_of(ptx.wait_lines(_pending(em, op)))
    return False


def _wgmma(em: CUDAEmitter, op: ir.Operation) -> bool:
    """One warpgroup instruction: descriptors of the two swizzled shared operands (start:
    the view's first element before the swizzle; strides: the lowering's ``a_sbo``,
    ``b_lbo``, ``b_sbo``; B's transpose bit from ``b_major``), accumulators updated in
    place in fresh arrays."""
    atom: WgmmaAtom = WGMMA_ATOMS[op.attr("catalog_id")]
    if not em.profile.warpgroup_mma:
        raise em.unsupported(op, f"{atom.catalog_id} needs sm_90a (Hopper); the target "
                                 f"is {em.target}")
    if em.threads % 128:
        raise em.unsupported(op, f"{atom.catalog_id} needs whole warpgroups; the block "
                                 f"has {em.threads} threads")
    em.wgmma = True
    em.warp_atoms = True
    n = op.attr("n")
    descs = []
    facts = em.wgmma_facts
    a_regs = None
    if op.attr("a_regs"):  # A's two register halves: the four 32-bit words of the fragment
        halves = [em.regs(v, op) for v in (op.operand(0), op.operands[-1])]
        if any(h.n != atom.a_half or h.dtype is not atom.in_dtype for h in halves):
            raise em.unsupported(op, f"{atom.catalog_id} takes A as two halves of "
                                     f"{atom.a_half} x {atom.in_dtype} registers")
        if atom.precision == "tf32":  # each f32 is a word, rounded to TF32 as it is issued
            a_regs = [f"tc_tf32({h.name}[{j}])" for h in halves for j in range(2)]
        else:
            packed = [em.packed_regs(h).name for h in halves]
            a_regs = [f"{w}.w[{j}]" for w in packed for j in range(2)]
    for k, (lbo, sbo) in enumerate(((16, op.attr("a_sbo")), (op.attr("b_lbo"),
                                                             op.attr("b_sbo")))):
        if k == 0 and a_regs is not None:
            descs.append("")
            continue
        ref = em.memref(op.operand(k), op)
        if ref.space != "shared" or ref.swizzle != 128:
            raise em.unsupported(op, f"{atom.catalog_id} reads 128-byte swizzled shared "
                                     "memory")
        if not all(isinstance(x, int) and 0 < x < (1 << 18) and x % 16 == 0
                   for x in (lbo, sbo)):
            raise em.unsupported(op, f"{atom.catalog_id}: descriptor strides {lbo}, "
                                     f"{sbo} are not 16-byte multiples below 256 KB")
        d = em.fresh("desc")
        base = facts.descriptor_from(op, k)
        if base is not None:
            # same operand, another K step: the start field moves by whole 16-byte units
            # (no carry out of the 14-bit field: both are addresses inside the buffer)
            em.buf.line(f"const uint64_t {d} = {em.wgmma_descs[(id(base.op), base.operand)]}"
                        f" + {base.step}ull;")
        else:
            var, const = em.access.first_parts(ref)
            em.buf.line(f"const uint64_t {d} = tc_wgmma_desc(tc_smem_addr({ref.ptr} + "
                        f"{plus(var, I64, const)}), {lbo}u, {sbo}u);")
        em.wgmma_descs[(id(op), k)] = d
        descs.append(d)
    accs = []
    for k, (cv, rv) in enumerate(zip(op.operands[2:2 + len(op.results)], op.results)):
        c = em.regs(cv, op)
        if c.n != 4 or c.dtype is not atom.acc_dtype:
            raise em.unsupported(op, f"{atom.catalog_id} accumulator fragment {k} must be "
                                     f"4 x {atom.acc_dtype}")
        if facts.updates_in_place(op, k) and not c.packed:
            d = c  # dead after this instruction (wgmma_facts): updated in place
        else:
            d = em.new_regs(rv, op)
            em.copy_regs(d, c)
        accs.append(d.name)
        em.bind(rv, d)
    em.buf.lines_of(ptx.wgmma_lines(atom.ptx_type, n, accs, descs[0], descs[1],
                                    op.attr("b_major") or "n", a_regs, atom.k))
    return True


def _barrier_addr(em: CUDAEmitter, op: ir.Operation, v: ir.Value) -> str:
    ref = em.memref(v, op)
    if ref.space != "shared":
        raise em.unsupported(op, f"{op.attr('catalog_id')} takes a shared-memory barrier")
    return f"tc_smem_addr({ref.ptr} + {em.access.address_of_first(ref)})"


def _need_tma(em: CUDAEmitter, op: ir.Operation) -> None:
    if not em.profile.tensor_copies:
        raise em.unsupported(op, f"{op.attr('catalog_id')} needs sm_90 (tensor copies and "
                                 f"transaction barriers); the target is {em.target}")
    em.tma = True


def _need_cluster(em: CUDAEmitter, op: ir.Operation) -> None:
    """A peer release or a multicast copy names the other groups of a cluster: the grid
    must launch clusters (its ``cluster`` attribute; ``ptx.CLUSTER_PRELUDE``)."""
    if em.cluster <= 1:
        raise em.unsupported(op, f"{op.attr('catalog_id')} reaches the other groups of a "
                                 "cluster, and this grid has no cluster attribute")


PREDICATED = ("mbarrier.arrive", "mbarrier.arrive.peer", "mbarrier.expect_tx", "tma.load")
"""Atoms the CUDA printers can issue under a predicate (one PTX instruction each)."""

_SPECULABLE = frozenset(ir.ARITH_FNS) - {"div", "rem", "floordiv", "cdiv", "pow"}
"""Scalar functions that cannot fail, so that a predicated body may compute them for every
thread (a division only by a nonzero constant)."""


def predicatable(op: ir.Operation) -> bool:
    """Whether an ``if`` with no results and an empty else can be emitted as predicated atoms:
    its body holds only constants, views, arithmetic that cannot fail and ``PREDICATED``
    atoms, at least one of them."""
    if op.results or any(o.name != "yield" for o in op.regions[1].entry.operations):
        return False
    atoms = 0
    for o in op.regions[0].entry.operations:
        if o.name == "atom.call":
            if o.attr("catalog_id") not in PREDICATED:
                return False
            atoms += 1
        elif o.name == "arith":
            fn = o.attr("fn")
            if fn not in _SPECULABLE:
                d = o.operand(1).defining_op if o.num_operands > 1 else None
                if fn == "pow" or d is None or d.name != "constant" or not d.attr("value"):
                    return False
        elif o.name not in ("constant", "view", "yield"):
            return False
    return atoms > 0


def _pred(em: CUDAEmitter) -> str:
    """The predicate argument of a predicated helper (empty outside a predicated body)."""
    return "" if em.predicate is None else f", (uint32_t)({em.predicate})"


def _mbarrier(em: CUDAEmitter, op: ir.Operation) -> bool:
    _need_tma(em, op)
    cid = op.attr("catalog_id")
    bar = _barrier_addr(em, op, op.operand(0))
    p = "_p" if em.predicate is not None else ""
    if cid == "mbarrier.init":
        em.buf.line(f"tc_mbar_init({bar}, {int(op.attr('count'))}u);")
    elif cid == "mbarrier.inval":
        em.buf.line(f"tc_mbar_inval({bar});")
    elif cid == "mbarrier.arrive":
        em.buf.line(f"tc_mbar_arrive{p}({bar}{_pred(em)});")
    elif cid == "mbarrier.arrive.peer":
        _need_cluster(em, op)
        rank = em.scalar(op.operand(1), op)
        em.buf.line(f"tc_mbar_arrive_peer{p}({bar}, (uint32_t)({rank}){_pred(em)});")
    else:
        x = em.scalar(op.operand(1), op)
        fn = "tc_mbar_expect_tx" if cid == "mbarrier.expect_tx" else "tc_mbar_wait"
        em.buf.line(f"{fn}{p}({bar}, (uint32_t)({x}){_pred(em)});")
    return False


def _tensor_copy(em: CUDAEmitter, op: ir.Operation, shared_at: int, array_at: int,
                 first: int) -> tuple[str, str, list[str]]:
    """What both tensor copies print: the shared view's first element (a 1024-byte aligned
    block of a swizzled buffer) as an address, the array's tensor map (a kernel parameter,
    ``tmap_param``) and the coordinates (operands ``first`` on) innermost first."""
    _need_tma(em, op)
    shared = em.memref(op.operand(shared_at), op)
    array = em.memref(op.operand(array_at), op)
    if shared.space != "shared" or shared.swizzle != 128 or array.space != "global":
        raise em.unsupported(op, f"{op.attr('catalog_id')} copies between a global array and "
                                 "128-byte swizzled shared memory")
    tmap = em.tmap_param(array.ptr, op.operand(array_at).type.dtype, tuple(op.attr("box")),
                         op)
    coords = [f"(int)({em.scalar(c, op)})" for c in reversed(op.operands[first:])]
    em.note_aligned16(array.ptr)
    return f"tc_smem_addr({shared.ptr} + {em.access.address_of_first(shared)})", tmap, coords


def _tma_load(em: CUDAEmitter, op: ir.Operation) -> bool:
    """One box copy into the ring, completing on a barrier (``_tensor_copy``)."""
    dst, tmap, coords = _tensor_copy(em, op, 0, 1, 3)
    p = "_p" if em.predicate is not None else ""
    n = op.attr("multicast")
    if n:
        _need_cluster(em, op)
    mc, mask = ("_mc", f", (uint16_t){(1 << int(n)) - 1}") if n else ("", "")
    em.buf.line(f"tc_tma_load_{len(coords)}d{mc}{p}({dst}, &{tmap}, "
                f"{_barrier_addr(em, op, op.operand(2))}{mask}, {', '.join(coords)}"
                f"{_pred(em)});")
    return False


def _tma_store(em: CUDAEmitter, op: ir.Operation) -> bool:
    """One box copy from a swizzled shared buffer into the array (``_tensor_copy``)."""
    src, tmap, coords = _tensor_copy(em, op, 1, 0, 2)
    em.buf.line(f"tc_tma_store_{len(coords)}d(&{tmap}, {src}, {', '.join(coords)});")
    return False


def _bulk(em: CUDAEmitter, op: ir.Operation) -> bool:
    _need_tma(em, op)
    em.buf.lines_of(ptx.bulk_lines(op.attr("catalog_id"), _pending(em, op),
                                   bool(op.attr("read", False))))
    return False


def _split(em: CUDAEmitter, op: ir.Operation) -> bool:
    """The split-K atoms over the launch's workspaces (``CUDAEmitter.workspace_param``).

    A program's partial is ``regs x threads`` floats; register ``r`` of thread ``tid`` sits
    at ``((r / V) * threads + tid) * V + r % V`` with ``V = 4`` when ``regs`` is a multiple
    of 4 (else 1), so that a part of whole 4-register groups moves as ``float4``s and a
    warp's accesses are contiguous. Partials are read back through L2 (``__ldcg``: other
    SMs wrote them), the combining program's own from its registers. One arrival counter
    per tile, counted by thread 0 after every thread's stores are fenced at device scope,
    the answer broadcast by ``__syncthreads_or``."""
    cid = op.attr("catalog_id")
    splits = int(op.attr("splits"))
    b = em.buf
    if cid == "split.arrive":
        cnt = em.workspace_param("counters", splits, 1, op)
        tile = em.scalar(op.operand(0), op)
        flag, var = em.fresh("split_l"), em.name_of(op.results[0])
        b.line("__threadfence();  /* this thread's partial stores, visible device-wide */")
        b.line("__syncthreads();")
        b.line(f"int {flag} = 0;")
        with b.block("if (threadIdx.x == 0)"):
            b.line(f"{flag} = atomicAdd(&{cnt}[{tile}], 1) == {splits - 1};")
            b.line(f"if ({flag}) atomicExch(&{cnt}[{tile}], 0);  /* zero for the next launch */")
        b.line(f"const uint8_t {var} = (uint8_t)(__syncthreads_or({flag}) != 0);")
        b.line(f"if ({var}) __threadfence();  /* the others' partials before the reads */")
        em.bind(op.results[0], Scalar(var, ir.i1))
        return True
    regs, threads, off = int(op.attr("regs")), int(op.attr("threads")), int(op.attr("offset"))
    if threads != em.threads:
        raise em.unsupported(op, f"{cid} names {threads} threads; the kernel has {em.threads}")
    ws = em.workspace_param("partials", 1, regs * threads, op)
    store = cid == "split.store"
    tile = em.scalar(op.operand(1 if store else 0), op)
    out = None if store else em.new_regs(op.results[0], op)
    src = em.regs(op.operand(2), op) if store else out
    assert src is not None
    n = src.n
    v = 4 if regs % 4 == 0 else 1
    vec = v == 4 and off % 4 == 0 and n % 4 == 0
    block = regs * threads  # floats per program
    base = em.fresh("split_b")
    with b.block(""):
        if store:
            own = em.scalar(op.operand(0), op)
            b.line(f"const int64_t {base} = ((int64_t)({tile}) * {splits} + (int64_t)({own})) "
                   f"* {block};")
        else:
            b.line(f"const int64_t {base} = (int64_t)({tile}) * {splits * block};")
        if vec:
            w = em.fresh("split_w")
            cst = "" if store else "const "
            b.line(f"{cst}float4 *{w} = reinterpret_cast<{cst}float4 *>({ws} + {base}) + "
                   "threadIdx.x;")

            def at(q: str, s: str = "0") -> str:
                return f"{w}[(int64_t)({s}) * {block // 4} + ({off // 4} + {q}) * {threads}]"

            def mine(q: str) -> str:
                return (f"make_float4({src.name}[4 * {q}], {src.name}[4 * {q} + 1], "
                        f"{src.name}[4 * {q} + 2], {src.name}[4 * {q} + 3])")
        else:
            def at(q: str, s: str = "0") -> str:
                r = f"({off} + {q})"
                return (f"{ws}[{base} + (int64_t)({s}) * {block} + ((int64_t)({r} / {v}) * "
                        f"{threads} + threadIdx.x) * {v} + {r} % {v}]")

            def mine(q: str) -> str:
                return f"{src.name}[{q}]"
        count = n // 4 if vec else n
        if store:
            b.line("#pragma unroll")
            b.line(f"for (int q = 0; q < {count}; ++q) {at('q')} = {mine('q')};")
            return False
        assert out is not None
        t = "float4" if vec else "float"
        b.line("#pragma unroll")
        with b.block(f"for (int q = 0; q < {count}; ++q)"):
            # every partial from memory, its own too, so that the loads are unconditional and
            # issue back to back; unrolled fully, so that they are all in flight at once: on
            # the H200 that ran 1-22% faster than unrolling 1-8 at a time (split_k.md), even
            # where ptxas then spills a few bytes (8 at 64 x 128 tiles and 4 splits; up to 40
            # at 128 x 128 tiles, which that comparison did not time)
            b.line(f"{t} a = __ldcg(&{at('q')});")
            b.line("/* in split order, whichever program arrived last: the same bits */")
            b.line("#pragma unroll")
            with b.block(f"for (int s = 1; s < {splits}; ++s)"):
                b.line(f"const {t} u = __ldcg(&{at('q', 's')});")
                if vec:
                    b.line("a.x += u.x; a.y += u.y; a.z += u.z; a.w += u.w;")
                else:
                    b.line("a += u;")
            if vec:
                b.line(f"{out.name}[4 * q] = a.x; {out.name}[4 * q + 1] = a.y; "
                       f"{out.name}[4 * q + 2] = a.z; {out.name}[4 * q + 3] = a.w;")
            else:
                b.line(f"{out.name}[q] = a;")
    em.bind(op.results[0], out)
    return True


PRINTERS: dict[str, Printer] = {
    "barrier.group": _barrier,
    "barrier.named": _named_barrier,
    "barrier.turn": _turn_barrier,
    "barrier.subgroup": _subgroup_barrier,
    "setmaxnreg": _setmaxnreg,
    "vote.any": _vote_any,
    "shfl.xor": _shfl_xor,
    "ldmatrix.x4": _ldmatrix,
    "ldmatrix.x4.trans": _ldmatrix,
    "cp.async.16": _cp_async,
    "cp.async.commit": _cp_async_commit,
    "cp.async.wait": _cp_async_wait,
    "wgmma.fence": _wgmma_sync,
    "wgmma.commit": _wgmma_sync,
    "wgmma.wait": _wgmma_sync,
    "fence.proxy.async": _wgmma_sync,
    "mbarrier.init": _mbarrier,
    "mbarrier.expect_tx": _mbarrier,
    "mbarrier.wait": _mbarrier,
    "mbarrier.arrive": _mbarrier,
    "mbarrier.arrive.peer": _mbarrier,
    "barrier.cluster": _cluster_barrier,
    "mbarrier.inval": _mbarrier,
    "tma.load": _tma_load,
    "tma.store": _tma_store,
    "bulk.commit": _bulk,
    "bulk.wait": _bulk,
    "split.store": _split,
    "split.arrive": _split,
    "split.combine": _split,
    **{cid: _mma for cid in MMA_ATOMS},
    **{cid: _wgmma for cid in WGMMA_ATOMS},
}
"""Catalog id -> its printer."""


def printer_for(cid: str) -> Printer | None:
    """The printer of catalog atom ``cid`` (None: the CUDA target has none)."""
    return PRINTERS.get(cid)
