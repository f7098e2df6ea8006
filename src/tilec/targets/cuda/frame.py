"""The kernel's frame in CUDA C++: the function body's top level, the signature and
``__launch_bounds__``, the grid's coordinates (``blockIdx``, a grouped traversal), the
group's shared buffers in the dynamic shared-memory array, and the lane ``parallel``
(``threadIdx.x``). ``CUDAEmitter`` (``emitter.py``) supplies the per-operation emission;
this mixin holds no state of its own (every field it reads is the emitter's).
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir
from tilec.ir.allocation import shared_layout
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.targets.clike import IndentedBuffer, Scalar, prod
from tilec.targets.cuda import ptx
from tilec.targets.cuda.access import MemRef, ctype_of
from tilec.targets.cuda.kernel_abi import bind_params, host_step
from tilec.targets.cuda.prelude import PRELUDE
from tilec.targets.cuda.source import CUDASource, HostStep, ParamInfo, kernel_name

__all__ = ["KernelFrame"]


class KernelFrame:
    """The frame methods of ``CUDAEmitter`` (a mixin: ``self`` is the emitter)."""

    def emit_function(self) -> tuple[list[ParamInfo], list[str], list[HostStep], list[int],
                                     ir.Operation]:
        """Emit the kernel's body (into ``buf``) and bind its parameters: returns the
        parameters, their declarations, the host steps, the grid extents' host keys and
        the grid parallel (a target's ``_assemble`` wraps them into its source)."""
        fn = self.fn
        if len(fn.body.blocks) != 1:
            raise self.unsupported(None, f"@{fn.name} has several blocks; Machine functions "
                                         "have one")
        if fn.result_types:
            raise self.unsupported(None, f"@{fn.name} returns values; a kernel writes memory")
        params, head = bind_params(self)
        steps: list[HostStep] = []
        keys: dict[int, int] = {id(a): -1 - k for k, a in enumerate(fn.args)}
        grid_op = None
        body = self.buf
        with body.indent():
            for op in fn.entry.operations:
                if op.name == "parallel" and op.attr("level") == "grid":
                    if grid_op is not None:
                        raise self.unsupported(op, "a kernel has one grid parallel")
                    grid_op = op
                    self.ops[ir.op_number(op)] = (op.name, op.loc)
                    with body.origin(op):
                        self._emit_grid(op)
                elif op.name == "return":
                    if op.num_operands:
                        raise self.unsupported(op, "a kernel returns nothing")
                elif op.name == "check" and ir.op_number(op) in self.host_checks:
                    pass  # the launcher evaluates it (before or after the launch)
                elif op.name in ("constant", "arith") and isinstance(op.result.type,
                                                                     ir.ScalarType):
                    if grid_op is not None:
                        # nothing on the device follows the grid: only host checks read it
                        if not all(u.owner.name == "check" or u.owner.parent is fn.entry
                                   for r in op.results for u in r.uses):
                            raise self.unsupported(op, "only 'return' and checks may follow "
                                                       "the grid parallel")
                        continue
                    self.emit_op(op)
                    host_step(self, op, steps, keys)
                else:
                    raise self.unsupported(op, "outside the grid parallel a Machine function "
                                               "holds only scalar constants and index arithmetic")
        if grid_op is None:
            raise self.unsupported(None, f"@{fn.name} has no parallel with level = \"grid\" "
                                         "(is it Machine TileIR? see docs/design/lowering.md)")
        grid_keys = []
        for v in grid_op.operands[:grid_op.attr("rank")]:
            k = keys.get(id(v))
            if k is None:
                raise self.unsupported(grid_op, "a grid extent is not computed from parameters "
                                                "and constants before the grid parallel")
            grid_keys.append(k)
        return params, head, steps, grid_keys, grid_op

    def _assemble(self, params: list[ParamInfo], head: list[str], steps: list[HostStep],
                  grid_keys: list[int], grid_op: ir.Operation) -> CUDASource:
        fn = self.fn
        body = self.buf
        out = IndentedBuffer()
        out.line(f"/* tilec CUDA backend: @{fn.name} for {self.target} */")
        out.line(PRELUDE)
        if self.b16_arrays:
            out.line(ptx.B16_ARRAYS)
        if self.wgmma:
            out.line(ptx.WGMMA_PRELUDE)
        if self.tma:
            out.line(ptx.TMA_PRELUDE)
        if self.cluster > 1:
            out.line(ptx.CLUSTER_PRELUDE)
        for name, info in self.tmaps.values():
            head.append(f"const __grid_constant__ tc_tmap {name}")
            params.append(info)
        for name, info in self.workspaces.values():
            head.append(f"{self.mtype(info.dtype)} *{name}")  # written and read back: no
            params.append(info)                               # __restrict__, no const
        if self.checks:
            head.append("unsigned long long *__restrict__ tc_check")
        sig = ", ".join(head)
        # a kernel that moves registers between its warpgroups (setmaxnreg) states its
        # groups per SM even when that is one: ptxas needs the register count at entry
        # fixed, else it ignores every setmaxnreg (remark C7508) and allocates the
        # consumers within the entry's count
        bounds = f"{self.threads}, {self.min_groups}" \
            if self.min_groups > 1 or self.register_split else f"{self.threads}"
        dims = f"__cluster_dims__({self.cluster}, 1, 1) " if self.cluster > 1 else ""
        out.line(f'extern "C" __global__ void __launch_bounds__({bounds}) {dims}'
                 f"{kernel_name(fn.name)}({sig})")
        out.line("{")
        if self.shared_bytes:
            out.line(f"  extern __shared__ __align__({self.shared_align}) unsigned char "
                     "tc_smem[];")
        out.splice(self.prologue)
        if self.tmaps:
            # one thread starts fetching every tensor map while the group sets up, so that the
            # first tensor copy of each does not wait for its descriptor
            maps = " ".join(f"tc_tmap_prefetch(&{name});" for name, _ in self.tmaps.values())
            out.line(f"  if (threadIdx.x == 0) {{ {maps} }}")
        out.splice(body)
        out.line("}")
        stats = {"vector_chunks": self.access.vector_chunks,
                 "scalar_elements": self.access.scalar_elems}
        return CUDASource(out.getvalue(), out, kernel_name(fn.name), params, self.threads,
                          grid_op.attr("rank"), steps, grid_keys, self.shared.launch_bytes,
                          90 if self.wgmma else 80, "a" if self.wgmma else "",
                          self.ops, stats, frozenset(self._aligned16), list(self.checks),
                          fn.name)

    # -- grid and lanes ---------------------------------------------------------------------
    def _emit_traversal(self, op: ir.Operation, coords: list[str], traversal: Any) -> None:
        """The grid point of this block under ``traversal`` (``ir.traversal``: a grouped
        numbering of the last two axes). The launch grid keeps its shape: the block's number
        within the last two axes is ``blockIdx.y * x-extent + blockIdx.x`` (rank <= 3; a
        leading axis stays on ``z``), or the whole linear ``blockIdx.x`` (rank > 3)."""
        rank = op.attr("rank")
        _, g = traversal
        b = self.buf
        exts = [self.scalar(v, op) for v in op.operands[:rank]]
        rows, cols = f"(int64_t)({exts[-2]})", f"(int64_t)({exts[-1]})"
        lin = self.fresh("lin")
        if rank <= 3:
            b.line(f"const int64_t {lin} = (int64_t){self.GROUP_ID}.y * {cols} + "
                   f"(int64_t){self.GROUP_ID}.x;")
            if rank == 3:
                b.line(f"const int64_t {coords[0]} = (int64_t){self.GROUP_ID}.z;")
        else:
            whole = self.fresh("whole")
            b.line(f"int64_t {whole} = (int64_t){self.GROUP_ID}.x;")
            b.line(f"const int64_t {lin} = {whole} % ({rows} * {cols});")
            b.line(f"{whole} /= {rows} * {cols};")
            for k in reversed(range(rank - 2)):
                b.line(f"const int64_t {coords[k]} = {whole} % {exts[k]};")
                if k:
                    b.line(f"{whole} /= {exts[k]};")
        first, in_group, r = self.fresh("first"), self.fresh("rows"), self.fresh("r")
        b.line(f"const int64_t {first} = ({lin} / ({g} * {cols})) * {g};")
        b.line(f"const int64_t {in_group} = ({rows} - {first}) < {g} ? ({rows} - {first}) : {g};")
        b.line(f"const int64_t {r} = {lin} % ({g} * {cols});")
        args = op.regions[0].entry.args
        ct_row, ct_col = (ctype_of(self.range_of(a)) for a in args[rank - 2:rank])
        b.line(f"const {ct_row} {coords[-2]} = ({ct_row})({first} + {r} % {in_group});")
        b.line(f"const {ct_col} {coords[-1]} = ({ct_col})({r} / {in_group});")

    def _emit_grid(self, op: ir.Operation) -> None:
        rank = op.attr("rank")
        if op.num_operands != rank:
            raise self.unsupported(op, "a grid parallel with inits (ancestor updates) has no "
                                       "CUDA form; the lowering writes memory instead")
        threads = op.attr("threads")
        if not isinstance(threads, int) or not 1 <= threads <= 1024:
            raise self.unsupported(op, f"grid parallel needs threads = 1..1024, got {threads!r}")
        self.threads = threads
        self.min_groups = int(op.attr("min_groups", 1) or 1)
        self.cluster = int(op.attr("cluster", 1) or 1)
        if self.cluster > 1 and rank != 1:
            raise self.unsupported(op, "a cluster of groups needs a grid of rank 1")
        body = op.regions[0].entry
        coords = [self.name_of(a) for a in body.args[:rank]]
        b = self.buf
        traversal = op.attr("traversal")
        if traversal is not None:
            self._emit_traversal(op, coords, traversal)
        elif rank <= 3:
            for k, (a, c) in enumerate(zip(body.args, coords)):
                ct = ctype_of(self.range_of(a))
                b.line(f"const {ct} {c} = ({ct}){self.GROUP_ID}.{'xyz'[rank - 1 - k]};")
        else:
            exts = [self.scalar(v, op) for v in op.operands[:rank]]
            lin = self.fresh("lin")
            b.line(f"int64_t {lin} = (int64_t){self.GROUP_ID}.x;")
            for k in reversed(range(rank)):
                b.line(f"const int64_t {coords[k]} = {lin} % {exts[k]};")
                if k:
                    b.line(f"{lin} /= {exts[k]};")
        for a, c in zip(body.args[:rank], coords):
            self.bind(a, Scalar(c, ir.index))
        self.shared = shared_layout(op, self.shared_align)
        self.shared_bytes = self.shared.end
        if self.shared.base_align > self.shared_align:
            # swizzled buffers start on 1024-byte boundaries of the shared address space
            self.smem_base = "tc_smem_al"
            # the padding is computed once into a register (asm volatile): left to itself the
            # compiler recomputes it, a handful of instructions, at every use in the K loop
            b.line("uint32_t tc_smem_pad;")
            b.line('asm volatile("and.b32 %0, %1, 1023;" : "=r"(tc_smem_pad) : '
                   '"r"(1024u - tc_smem_addr(tc_smem)));')
            b.line("unsigned char *const tc_smem_al = tc_smem + tc_smem_pad;")
        lanes = None
        for inner in body.operations:
            if inner.name == "yield":
                break
            if inner.name == "parallel":
                if lanes is not None or inner.attr("level") != "lane":
                    raise self.unsupported(inner, "the grid body holds exactly one parallel, "
                                                  "with level = \"lane\"")
                lanes = inner
                self.ops[ir.op_number(inner)] = (inner.name, inner.loc)
                with b.origin(inner):
                    self._emit_lanes(inner)
            elif inner.name == "memory":
                self.ops[ir.op_number(inner)] = (inner.name, inner.loc)
                with b.origin(inner):
                    self._emit_shared(inner)
            elif inner.name in ("constant", "arith", "tuple", "tuple_get", "view"):
                self.emit_op(inner)
            else:
                raise self.unsupported(inner, "the grid body (one CTA) holds shared memory, "
                                              "uniform scalars and the lane parallel; per-lane "
                                              "code belongs in the lane parallel")
        if lanes is None:
            raise self.unsupported(op, "the grid body has no lane parallel")

    def _emit_shared(self, op: ir.Operation) -> None:
        t = op.result.type
        if t.space != "shared":
            raise self.unsupported(op, f"a per-group memory must be shared, not {t.space}")
        shape = tuple(int(e) for e in t.shape)
        nbytes = prod(shape) * t.dtype.bytes
        swizzle = int(op.attr("swizzle", 0) or 0)
        align = SWIZZLE_ALIGN if swizzle else self.shared_align
        if swizzle and (swizzle != 128 or self.smem_base != "tc_smem_al"
                        or t.dtype.bits not in (8, 16, 32, 64)):
            raise self.unsupported(op, f"swizzle {swizzle} of a {t.dtype} buffer (the CUDA "
                                       "backend has the 128-byte swizzle of grid-level buffers)")
        off = self.shared.offsets[op]
        if off % align:
            raise self.unsupported(op, f"a shared buffer at byte offset {off} is not "
                                       f"{align}-byte aligned")
        name = self.name_of(op.result)
        mt = self.space_qual("shared") + self.mtype(t.dtype)
        self.buf.line(f"{mt} *const {name} = reinterpret_cast<{mt} *>({self.smem_base} + "
                      f"{off});  /* {nbytes} bytes{', 128-byte swizzle' if swizzle else ''} */")
        self._bind_local(op, name, shape, "shared", swizzle)

    def _bind_local(self, op: ir.Operation, name: str, shape: tuple[int, ...], space: str,
                    swizzle: int = 0) -> None:
        t = op.result.type
        strides = tuple(prod(shape[j + 1:]) for j in range(len(shape)))
        self.bind(op.result, MemRef(name, t.dtype, space, tuple(str(e) for e in shape),
                                    ir.IndexMap.identity(len(shape)), (), (),
                                    tuple(str(s) for s in strides), strides, (), "true",
                                    op.result, swizzle=swizzle))

    def _emit_lanes(self, op: ir.Operation) -> None:
        if op.attr("rank") != 1 or op.num_operands != 1:
            raise self.unsupported(op, "the lane parallel has one extent and no inits")
        ext = op.operand(0).defining_op
        if ext is None or ext.name != "constant" or ext.attr("value") != self.threads:
            raise self.unsupported(op, f"the lane parallel's extent must be the constant "
                                       f"{self.threads} (the grid's threads)")
        body = op.regions[0].entry
        tid = self.name_of(body.args[0])
        ct = ctype_of(self.range_of(body.args[0]))
        self.buf.line(f"const {ct} {tid} = ({ct}){self.LANE_ID};")
        self.bind(body.args[0], Scalar(tid, ir.index))
        self.warp_number = None
        if self.WARP_UNIFORM and self.threads % 32 == 0 and _divides_by_warps(body.args[0]):
            # here every thread of the group runs: lane 0's value is every lane's
            warp = f"{tid}_warp"
            self.buf.line(f"const int {warp} = {self.WARP_UNIFORM.format(f'({tid} >> 5)')};")
            self.warp_number = (body.args[0], warp)
        self.in_lanes = True
        term = self.emit_block(body)
        self.in_lanes = False
        if term is None or term.num_operands:
            raise self.unsupported(op, "the lane parallel's body ends with an empty yield")
        if self.warp_atoms and self.threads % 32:
            raise self.unsupported(op, f"warp atoms need whole warps; threads = {self.threads}")


def _divides_by_warps(tid: ir.Value) -> bool:
    """Whether the thread number is divided by a constant multiple of 32 threads."""
    for u in tid.uses:
        o = u.owner
        if o.name == "arith" and o.attr("fn") == "floordiv" and o.num_operands == 2 \
                and o.operand(0) is tid:
            d = o.operand(1).defining_op
            if d is not None and d.name == "constant" and isinstance(d.attr("value"), int) \
                    and d.attr("value") > 0 and d.attr("value") % 32 == 0:
                return True
    return False
