"""CUDA C++ emission of Machine TileIR (docs/design/lowering.md is the input contract).

One Machine function becomes one ``extern "C" __global__`` kernel:

* parameters: a ``mem`` parameter is a ``T *__restrict__`` (``const`` when the
  kernel never writes it), a scalar is passed by value, then one ``int64_t``
  per shape symbol and per other symbolic extent (``CUDASource.params``);
* the ops before the grid ``parallel`` (constants and ``index`` arithmetic
  on the parameters) run at the top of the kernel and, through
  ``CUDASource.host_steps``, on the host to size the grid;
* the grid ``parallel`` (``level = "grid"``) maps its coordinates onto
  ``blockIdx`` (the last coordinate on ``x``, then ``y``, ``z``); a grid of
  rank above 3 is linearized onto ``x``. Its ``threads`` attribute is the
  block size and the kernel's ``__launch_bounds__``;
* ``memory`` ops of the grid body (space ``shared``) are carved out of one
  dynamic shared-memory array at the offsets of the allocate stage
  (``ir.allocation``: the profile's 128-byte alignment; ``CUDASource.shared_bytes``;
  the launcher raises the 48 KB default);
* the lane ``parallel`` binds ``threadIdx.x``; its body is the SIMT region;
* host checks (``kernel_checks``) are not emitted: the launcher evaluates
  those before the grid ahead of the launch and those after it once the
  launch is queued. A ``check`` in the SIMT region is uniform across the
  block (lowering.md), so when it fails every thread records it and returns:
  the first failure of the launch claims the record ``tc_check`` (a trailing
  ``unsigned long long *`` parameter, present only when the kernel has such
  checks: word 0 is the check's number in ``CUDASource.checks`` plus one,
  then its values), which the launcher reads after synchronizing.

In the SIMT region a ``tile<L x dt>`` is a per-thread register array,
indexed with constants only (every loop over registers is ``#pragma unroll``
or unrolled here), so ptxas keeps it in registers; 16-bit floats are held
as their bit patterns (``uint16_t``) so that loads move bits without
conversions; a 16-bit tile that an ``ldmatrix`` produces or an MMA atom
consumes is packed two per 32-bit word instead (``ptx.B16_ARRAYS``), so an
``ldmatrix`` result is an ``mma.sync`` operand as it is. Arithmetic converts
to ``float`` and rounds each narrow result once. Accesses are emitted by
``access.AccessWriter`` (guarded, vectorized where provable), atoms by
``ptx``. Each operation's lines open with ``/* tilec: <op>#<id> at
<file:line> */`` and the buffer maps every line back to its operation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.exec import get_profile
from tilec.ir.allocation import SharedLayout
from tilec.ir.atoms import CATALOG
from tilec.ir.dataflow import arith_divisor
from tilec.ir.ranges import (
    I32,
    I64,
    Range,
    analyze_ranges,
    is_pow2,
    type_range,
)
from tilec.targets.clike import (
    CLikeEmitter,
    IndentedBuffer,
    Scalar,
    Splat,
    TokenVal,
    prod,
    round_float,
)
from tilec.targets.cuda import ptx
from tilec.targets.cuda.access import (
    AccessWriter,
    MemRef,
    ctype_of,
    div_c,
    plus,
)
from tilec.targets.cuda.atom_printers import PREDICATED, predicatable, printer_for
from tilec.targets.cuda.forms import Regs, is_b16, meets_word_atom, static_shape
from tilec.targets.cuda.frame import KernelFrame
from tilec.targets.cuda.indexed_printers import INDEXED_PRINTERS
from tilec.targets.cuda.kernel_abi import grid_bound
from tilec.targets.cuda.memory_printers import MEMORY_PRINTERS
from tilec.targets.cuda.source import CUDASource, HostStep, ParamInfo, kernel_name
from tilec.targets.cuda.tile_printers import TILE_PRINTERS
from tilec.targets.cuda.wgmma_facts import analyze_wgmma
from tilec.targets.kernel_checks import CheckInfo, host_check_ops

__all__ = ["CUDAEmitter", "CUDASource", "ParamInfo", "HostStep", "emit_cuda", "kernel_name"]

class CUDAEmitter(KernelFrame, CLikeEmitter):
    """Emits one Machine TileIR function as a CUDA C++ kernel."""

    TARGET = "CUDA"

    INT_FNS = {
        **CLikeEmitter.INT_FNS,
        # TileIR integers wrap; signed overflow is undefined in C++ and NVRTC has no
        # -fwrapv, so 32- and 64-bit add/sub/mul/neg go through the unsigned type {u}
        # (8/16-bit operands promote to int, where they cannot overflow).
        "add": "(({t})(({u}){0} + ({u}){1}))", "sub": "(({t})(({u}){0} - ({u}){1}))",
        "mul": "(({t})(({u}){0} * ({u}){1}))", "neg": "(({t})(-({u}){0}))",
        "abs": "(({t})({0} < 0 ? -({u}){0} : ({u}){0}))",
        "fma": "(({t})(({u}){0} * ({u}){1} + ({u}){2}))",
        # ptxas can lose a negation fused into a three-input integer max/min (prelude.py)
        "max": "tc_imax_{s}({0}, {1})", "min": "tc_imin_{s}({0}, {1})",
        "floordiv": "(({t})tc_floordiv_i64({0}, {1}))",
        "rem": "(({t})tc_rem_i64({0}, {1}))",
        "cdiv": "(({t})(-({t})tc_floordiv_i64(({t})(-{0}), {1})))",
    }
    """Integer ``arith``: Python division without the C backend's status word (the lowering
    guards every division whose divisor may be zero with a check, lowering.md)."""

    UINT_FNS = {"cdiv": "(({t})tc_cdiv_u64({0}, {1}))"}
    """Unsigned ``cdiv``: the quotient plus one where a remainder is left (no negation)."""

    NO_EMISSION = "no {target} emission for this operation"

    PRINTERS = {**TILE_PRINTERS, **MEMORY_PRINTERS, **INDEXED_PRINTERS}
    """Printers of the register-tile operations and the accesses (``tile_printers``,
    ``memory_printers``); the other operations are printed by ``emit_<opcode>`` here."""

    REG_CTYPES = {**CLikeEmitter.SCALAR_CTYPES, "f16": "uint16_t", "bf16": "uint16_t"}
    """Element type of a per-thread register array (16-bit floats as bit patterns)."""

    NARROW_VECTORS = True
    """Accesses of 4 or 8 bytes where a register array's rows are too short for 16
    (``AccessWriter.narrow``)."""
    LOCAL_ALIGN = ""
    """What a per-thread array's declaration starts with (an alignment, where a target's
    vector accesses of local arrays rely on one)."""
    GROUP_ID = "blockIdx"
    """The group's coordinates (``.x``, ``.y``, ``.z``)."""
    LANE_ID = "threadIdx.x"
    """The thread's number in its group."""
    WARP_UNIFORM: str | None = "__shfl_sync(0xffffffffu, {}, 0)"
    """Lane 0's value of an expression, which the compiler then knows every lane of the warp
    holds (None: the target has no such form). The thread's warp number is read this way
    once, where every thread runs, so that quotients of the thread number by whole warps
    (a warpgroup's index) are computed once per warp, in the uniform datapath, and the
    shared-memory descriptors built from them need no per-thread registers."""
    INLINE_PTX = True
    """The kernel may hold inline PTX outside the atoms' printers (the paired conversions of
    ``tile_printers._pairwise_cast``)."""
    ROUNDED = {"fma.f32": "__fmaf_rn", "fma.f64": "__fma_rn", "mul.f32": "__fmul_rn",
               "add.f32": "__fadd_rn", "mul.f64": "__dmul_rn", "add.f64": "__dadd_rn"}
    """Correctly rounded float operations the compiler may not contract or reorder."""

    def space_qual(self, space: str) -> str:
        """The address-space qualifier a pointer into ``space`` memory is declared with
        (none in CUDA C++: its pointers are generic)."""
        return ""

    def mem_param(self, mt: str, ptr: str, written: bool) -> str:
        """The declaration of a memory parameter (``kernel_abi``)."""
        return f"{'' if written else 'const '}{mt} *__restrict__ {ptr}"

    def value_param(self, ct: str, var: str) -> str:
        """The declaration of a scalar parameter passed by value (``kernel_abi``)."""
        return f"{ct} {var}"

    def aligned_flag(self, ptr: str) -> str:
        """Whether memory parameter ``ptr`` is 16-byte aligned (a C expression)."""
        return f"tc_aligned16({ptr})"

    def __init__(self, module: ir.Module, fn_name: str, target: str = "cuda:sm_90") -> None:
        super().__init__()
        fn = module.lookup(fn_name)
        if fn is None:
            raise KeyError(f"module has no function @{fn_name}")
        self.module = module
        """The module being emitted."""
        self.fn: ir.Function = fn
        """The kernel function."""
        self.target = target
        """The target name (``cuda:sm_90`` ...)."""
        self.divs: dict[int, int] = {}
        self.ranges: dict[int, Range] = analyze_ranges(fn, grid_bound)
        """``id(value)`` -> the value's range (``tilec.ir.ranges``)."""
        self.sizes: set[str] = set()
        """C names of the size parameters (shape symbols and other extents; never negative)."""
        self._narrow_sizes: dict[str, str] = {}
        self.param_index: dict[str, int] = {}
        """C name of a memory parameter -> its position among the user parameters."""
        self.prologue = IndentedBuffer(depth=1)
        """Lines at the top of the kernel: parameter strides and narrowed sizes."""
        self._aligned16: set[int] = set()
        self.access = AccessWriter(self.buf, self.fresh, self.narrow_size)
        self.access.narrow = self.NARROW_VECTORS
        self.threads = 0
        self.profile = get_profile(target)
        """The target's profile (the facts the printers read)."""
        align = self.profile.shared_alignment
        assert align is not None, f"{target} has no shared_alignment"
        self.shared_align: int = align
        """Alignment of each shared buffer (the profile's ``shared_alignment``)."""
        self.shared = SharedLayout()
        """Where the group's shared buffers live (``ir.allocation``: the allocate stage's
        placement, read back)."""
        self.shared_bytes = 0
        self.in_lanes = False
        self.warp_number: tuple[ir.Value, str] | None = None
        """The lane parallel's thread number and the name of its warp number, read once
        through ``WARP_UNIFORM`` (None: not read; ``warp_quotient``)."""
        self.warp_atoms = False
        self.min_groups = 1
        """Groups per SM the compiler is asked to fit (``__launch_bounds__``)."""
        self.register_split = False
        """The kernel's warpgroups change their register counts (set by the ``setmaxnreg``
        printer, as ``wgmma``/``tma`` are by theirs)."""
        self.cluster = 1
        """Groups per cluster (``__cluster_dims__``; the grid's ``cluster``)."""
        self.smem_base = "tc_smem"
        """The (aligned) start of the kernel's dynamic shared memory."""
        self.wgmma = False
        """True once a warpgroup instruction is emitted (sm_90a, ``ptx.WGMMA_PRELUDE``)."""
        self.wgmma_facts = analyze_wgmma(fn)
        """Descriptor reuse and in-place accumulators of the warpgroup instructions
        (``wgmma_facts``: decided over the IR, not while printing)."""
        self.wgmma_descs: dict[tuple[int, int], str] = {}
        """``(id(wgmma), operand)`` -> the C name of its descriptor."""
        self.tma = False
        """True once a tensor copy or transaction barrier is emitted (``ptx.TMA_PRELUDE``)."""
        self.predicate: str | None = None
        """While an ``if`` is emitted as predicated atoms (``atom_printers.predicatable``):
        the C condition every atom of its body is issued under."""
        self.tmaps: dict[tuple[int, tuple[int, ...], bool], tuple[str, ParamInfo]] = {}
        """``(user parameter, box)`` -> the C name and launch contract of its tensor map."""
        self.workspaces: dict[str, tuple[str, ParamInfo]] = {}
        """``partials`` / ``counters`` -> the C name and launch contract of a split-K
        workspace (``ParamInfo(kind="workspace")``, allocated by the launcher)."""
        self.b16_arrays = False
        """True once a packed 16-bit register array is declared (its C++ is then emitted)."""
        self.host_checks = {ir.op_number(op) for ops in host_check_ops(fn).values() for op in ops}
        """Ids of the checks the launcher evaluates on the host."""
        self.checks: list[CheckInfo] = []
        """Device checks emitted so far."""

    def memref(self, v: ir.Value, user: ir.Operation) -> MemRef:
        """The ``MemRef`` of a memory value."""
        r = self.get(v, user)
        if not isinstance(r, MemRef):
            raise self.unsupported(user, f"expected a memory operand, got {v.type}")
        return r

    def div_of(self, v: ir.Value) -> int:
        """A known divisor of an index value (1 when nothing is known)."""
        return self.divs.get(id(v), 1)

    def range_of(self, v: ir.Value) -> Range:
        """The range of an integer value (its type's range when nothing is known)."""
        return self.ranges.get(id(v)) or type_range(v.type) or I64

    def index_ctype(self, t: ir.ScalarType, r: Range | None) -> str:
        """The C type of a local of type ``t`` and range ``r``: 64-bit integers that provably
        fit are ``int`` (32-bit arithmetic, one instruction where 64 bits take two or more)."""
        if r is not None and t in (ir.index, ir.i64):
            return ctype_of(r)
        return self.ctype(t)

    def narrow_size(self, name: str) -> str | None:
        """A 32-bit copy of size parameter ``name`` saturated at ``INT32_MAX`` (declared once,
        at the top of the kernel), or None when ``name`` is not a size parameter.

        For ``x`` in ``[INT32_MIN, INT32_MAX - 1]`` and a size ``s >= 0``, comparing ``x``
        with ``s`` or with ``min(s, INT32_MAX)`` gives the same answer.
        """
        if name not in self.sizes:
            return None
        n = self._narrow_sizes.get(name)
        if n is None:
            n = f"{name}_i32"
            self.prologue.line(f"const int {n} = (int)({name} < INT64_C(2147483647) ? {name} "
                                f": INT64_C(2147483647));")
            self._narrow_sizes[name] = n
        return n

    # -- types --------------------------------------------------------------------------
    def rtype(self, t: ir.ScalarType) -> str:
        """Element type of a register array of ``t``."""
        return self.REG_CTYPES[t.name]

    def to_compute(self, x: str, t: ir.ScalarType) -> str:
        """A register element of ``t`` as a compute-type value."""
        return self.LOAD_CONVERT.get(t.name, "{}").format(x)

    def to_reg(self, x: str, t: ir.ScalarType) -> str:
        """A (rounded) compute-type value of ``t`` as a register element."""
        return self.STORE_CONVERT.get(t.name, "{}").format(x)

    def reg_literal(self, value: Any, t: ir.ScalarType) -> str:
        """``value`` as a register element of ``t`` (16-bit floats as their bits)."""
        if t.name in ("bf16", "f16"):
            import ml_dtypes

            x = round_float(value, t.name)
            dt = ml_dtypes.bfloat16 if t.name == "bf16" else np.float16
            bits = int(np.array(x, dtype=dt).view(np.uint16))
            return f"(uint16_t)0x{bits:04x}"
        return self.literal(value, t)

    def poison(self, t: ir.ScalarType) -> str:
        """The register value of unspecified elements (NaN for floats, 0 otherwise)."""
        return self.reg_literal(float("nan"), t) if t.is_float else "0"

    # -- register arrays ------------------------------------------------------------------
    def declare(self, shape: Sequence[int], dtype: ir.ScalarType, name: str,
                packed: bool = False) -> Regs:
        """Declare a register array (``packed``: 16-bit floats two per word)."""
        if packed and is_b16(dtype):
            self.b16_arrays = True
            self.buf.line(ptx.b16_array_decl(name, prod(shape)))
            return Regs(name, tuple(shape), dtype, True)
        self.buf.line(f"{self.rtype(dtype)} {name}[{max(1, prod(shape))}];")
        return Regs(name, tuple(shape), dtype)

    def new_regs(self, v: ir.Value, op: ir.Operation) -> Regs:
        """A fresh register array for tile value ``v`` (packed where it meets a word atom)."""
        t = v.type
        if not isinstance(t, ir.TileType):
            raise self.unsupported(op, f"expected a tile result, got {t}")
        return self.declare(static_shape(t, op, self), t.dtype, self.name_of(v),
                            meets_word_atom(v))

    def packed_regs(self, x: Regs) -> Regs:
        """``x`` as a packed array (a copy when it is not one)."""
        if x.packed:
            return x
        out = self.declare(x.shape, x.dtype, self.fresh("w"), True)
        self.copy_regs(out, x)
        return out

    def regs(self, v: ir.Value, op: ir.Operation) -> Regs:
        """A register array holding tile ``v`` (materializing a splat)."""
        r = self.get(v, op)
        if isinstance(r, Regs):
            return r
        if isinstance(r, Splat):
            out = self.declare(r.shape, r.dtype, self.fresh("splat"))
            self.fill(out, self.to_reg(r.expr, r.dtype))
            return out
        raise self.unsupported(op, f"expected a tile operand, got {v.type}")

    def fill(self, dst: Regs, expr: str) -> None:
        """``dst[e] = expr`` for every element."""
        if dst.n == 1:
            self.buf.line(f"{dst.name}[0] = {expr};")
        else:
            self.buf.line("#pragma unroll")
            self.buf.line(f"for (int e = 0; e < {dst.n}; ++e) {dst.name}[e] = {expr};")

    def copy_into(self, dst: Regs, v: ir.Value, op: ir.Operation) -> None:
        """``dst = v`` elementwise (nothing when ``v`` already lives in ``dst``)."""
        r = self.get(v, op)
        if isinstance(r, Splat):
            self.fill(dst, self.to_reg(r.expr, r.dtype))
        elif isinstance(r, Regs):
            if r.name != dst.name:
                self.copy_regs(dst, r)
        else:
            raise self.unsupported(op, f"cannot copy {v.type} into registers")

    def copy_regs(self, dst: Regs, src: Regs) -> None:
        """``dst = src`` for arrays of one shape: word by word when both are packed."""
        if dst.packed and src.packed and dst.n == src.n:
            words = (dst.n + 1) // 2
            if words == 1:
                self.buf.line(f"{dst.name}.w[0] = {src.name}.w[0];")
            else:
                self.buf.line("#pragma unroll")
                self.buf.line(f"for (int e = 0; e < {words}; ++e) {dst.name}.w[e] = "
                              f"{src.name}.w[e];")
            return
        self.fill(dst, f"{src.name}[e]" if dst.n > 1 else f"{src.name}[0]")

    # -- driver ---------------------------------------------------------------------------
    def emit(self) -> CUDASource:
        """Emit the kernel."""
        return self._assemble(*self.emit_function())

    def emit_parallel(self, op: ir.Operation) -> None:
        """A parallel inside the SIMT region has no CUDA form."""
        raise self.unsupported(op, "parallel inside the lane body; the lowering realizes "
                                   "nested instances as per-lane loops")

    # -- control ----------------------------------------------------------------------------
    def mutable_result(self, v: ir.Value, op: ir.Operation, init: ir.Value | None = None
                       ) -> object:
        """Mutable storage for a structured op's result, initialized from ``init``."""
        t = v.type
        if isinstance(t, ir.ScalarType):  # a carried integer's range holds every value
            var = self.fresh("m")
            ct = self.index_ctype(t, self.ranges.get(id(v)))
            val = "" if init is None else \
                f" = {self.int_text(init, op) if ct == 'int' else self.scalar(init, op)}"
            self.buf.line(f"{ct} {var}{val};")
            return Scalar(var, t)
        if isinstance(t, ir.TileType):
            dst = self.new_regs(v, op)
            if init is not None:
                self.copy_into(dst, init, op)
            return dst
        if isinstance(t, ir.TokenType):
            return TokenVal()
        raise self.unsupported(op, f"values of type {t} cannot cross a region boundary")

    def assign(self, dsts: Sequence[object], srcs: Sequence[ir.Value], op: ir.Operation
               ) -> None:
        """Parallel assignment of yielded values into mutable storage (swaps are safe)."""
        names = {d.name for d in dsts if isinstance(d, Regs)}
        staged: list[object] = []
        for d, s in zip(dsts, srcs):
            r = self.get(s, op)
            if isinstance(d, Scalar):
                tmp = self.fresh("y")
                ct = self.index_ctype(d.type, self.ranges.get(id(s)))
                self.buf.line(f"const {ct} {tmp} = {self.scalar(s, op)};")
                staged.append(tmp)
            elif isinstance(r, Regs) and isinstance(d, Regs) and r.name in names \
                    and r.name != d.name:
                tmp = self.declare(r.shape, r.dtype, self.fresh("swap"), r.packed)
                self.copy_regs(tmp, r)
                staged.append(tmp)
            else:
                staged.append(None)
        for d, s, tmp in zip(dsts, srcs, staged):
            if isinstance(d, Scalar):
                self.buf.line(f"{d.expr} = {tmp};")
            elif isinstance(d, Regs):
                if isinstance(tmp, Regs):
                    self.copy_regs(d, tmp)
                else:
                    self.copy_into(d, s, op)

    def emit_serial(self, op: ir.Operation) -> None:
        """A counted loop; carried values live in mutable storage."""
        self._loop(op, [op.regions[0].entry])

    def emit_pipeline(self, op: ir.Operation) -> None:
        """Stages run in order within an iteration; overlap is explicit in Machine IR (cp.async)."""
        self._loop(op, [r.entry for r in op.regions])

    def _loop(self, op: ir.Operation, stages: list[ir.Block]) -> None:
        lb, ub, step = (self.scalar(v, op) for v in op.operands[:3])
        carries = [self.mutable_result(r, op, init)
                   for r, init in zip(op.results, op.operands[3:])]
        iv = self.name_of(stages[0].args[0])
        unroll = op.attr("unroll")
        if isinstance(unroll, int) and unroll > 0:
            self.buf.line(f"#pragma unroll {unroll}")
        # a 32-bit counter when the bounds fit and the last increment cannot overflow
        rl, ru, rs = (self.range_of(v) for v in op.operands[:3])
        ct = "int64_t"
        if rl.within(I32) and ru.within(I32) and rs.lo > 0 and ru.hi + rs.hi <= I32.hi:
            ct = "int"
            lb, ub, step = (self.int_text(v, op) for v in op.operands[:3])
        with self.buf.block(f"for ({ct} {iv} = {lb}; {iv} < {ub}; {iv} += {step})"):
            args: list[object] = list(carries)
            for k, block in enumerate(stages):
                self.bind(block.args[0], Scalar(iv, ir.index))
                self.divs[id(block.args[0])] = 1
                for a, r in zip(block.args[1:], args):
                    self.bind(a, r)
                term = self.emit_block(block)
                if term is None or term.name != "yield":
                    raise self.unsupported(op, f"stage {k} does not end with yield")
                if k + 1 < len(stages):
                    args = [self.get(v, term) for v in term.operands]
                else:
                    self.assign(carries, term.operands, term)
        for r, c in zip(op.results, carries):
            self.bind(r, c)

    # -- pure values ---------------------------------------------------------------------
    def emit_constant(self, op: ir.Operation) -> None:
        """A literal; a tile constant is a splat until something needs registers."""
        t = op.result.type
        value = op.attr("value")
        if isinstance(t, ir.ScalarType):
            self.bind(op.result, Scalar(self.literal(value, t), t))
            if t is ir.index or t.is_int:
                self.divs[id(op.result)] = abs(int(value))
        elif isinstance(t, ir.TileType):
            self.bind(op.result, Splat(self.literal(value, t.dtype), static_shape(t, op, self),
                                       t.dtype))
        else:
            raise self.unsupported(op, f"constant of type {t}")

    def int_text(self, v: ir.Value, op: ir.Operation) -> str:
        """The C expression of an integer value; a known value that fits 32 bits is a plain
        literal (so that it does not widen 32-bit arithmetic to 64 bits)."""
        r = self.ranges.get(id(v))
        if r is not None and r.is_point and r.within(I32) and v.type is not ir.i1:
            return f"({r.lo})" if r.lo < 0 else str(r.lo)
        return self.scalar(v, op)

    def emit_arith(self, op: ir.Operation) -> None:
        """One scalar function as a ``const`` local (index divisibility and ranges are used).

        A result whose range is one value is that literal; integer results go
        through ``int_arith`` (32-bit where the range allows).
        """
        t = op.result.type
        if not isinstance(t, ir.ScalarType):
            raise self.unsupported(op, f"arith producing {t}")
        fn = op.attr("fn")
        r = self.ranges.get(id(op.result))
        if t is ir.index:
            self.divs[id(op.result)] = arith_divisor(fn, [self.div_of(v) for v in op.operands])
        if r is not None and r.is_point:
            lit = self.int_text(op.result, op) if r.within(I32) and t is not ir.i1 else \
                self.literal(r.lo, t)
            self.bind(op.result, Scalar(lit, t))
            return
        var = self.name_of(op.result)
        if r is not None and all(type_range(v.type) is not None for v in op.operands):
            expr = self.int_arith(op, r)
        else:
            expr = self.arith_expr(op, [self.scalar(v, op) for v in op.operands])
        self.buf.line(f"const {self.index_ctype(t, r)} {var} = {expr};")
        self.bind(op.result, Scalar(var, t))

    def warp_quotient(self, op: ir.Operation, k: int) -> str | None:
        """The thread number divided by ``k`` threads, a multiple of the warp's 32, as a
        quotient of the warp number (``KernelFrame.warp_number``), or None."""
        tid, warp = self.warp_number or (None, None)
        if warp is None or k <= 0 or k % 32 or op.operand(0) is not tid:
            return None
        q = k // 32
        if q == 1:
            return warp
        return f"({warp} >> {q.bit_length() - 1})" if is_pow2(q) else \
            f"(int)((unsigned){warp} / {q}u)"

    _WIDENS = frozenset(("add", "sub", "mul", "fma", "neg", "abs"))

    def int_arith(self, op: ir.Operation, r: Range) -> str:
        """The C expression of an integer ``arith`` whose result has range ``r``.

        * floordiv/rem/cdiv by a positive constant: ``access.div_c`` (a shift or a mask for
          a power of two, an unsigned division for a non-negative operand);
        * a comparison of a 32-bit value with a size parameter reads its 32-bit copy;
        * a 64-bit result that fits is computed as ``int``; one that may not has its 32-bit
          operands widened first, so no 32-bit operation can overflow.
        """
        fn = op.attr("fn")
        t = op.result.type
        args = [self.int_text(v, op) for v in op.operands]
        rs = [self.range_of(v) for v in op.operands]
        k = rs[1].lo if len(rs) == 2 and rs[1].is_point else 0
        wide_t = t in (ir.index, ir.i64)
        warp = self.warp_quotient(op, k) if fn == "floordiv" else None
        if warp is not None:
            return warp if wide_t else f"(({self.ctype(t)}){warp})"
        if fn in ("floordiv", "rem") and k > 0:
            kind = "floordiv" if fn == "floordiv" else "mod"
            text = div_c(kind, args[0], rs[0], k)[0]
            return text if wide_t or text.startswith("tc_") else f"(({self.ctype(t)}){text})"
        if fn == "cdiv" and k > 0 and rs[0].nonneg and wide_t and rs[0].hi + k - 1 <= I64.hi:
            return div_c("floordiv", f"({plus(args[0], rs[0], k - 1)})",
                         rs[0] + Range.point(k - 1), k)[0]
        if fn in self.COMPARISONS:
            for i in (0, 1):
                if rs[1 - i].within(Range(I32.lo, I32.hi - 1)):
                    args[i] = self.narrow_size(args[i]) or args[i]
            return self.arith_expr(op, args)
        if not wide_t:
            return self.arith_expr(op, args)
        if r.within(I32) and (fn != "fma" or (rs[0] * rs[1]).within(I32)):
            # plain int: proven in range, nothing wraps (max/min keep their helper)
            tmpl = (self.INT_FNS if fn in ("max", "min") else CLikeEmitter.INT_FNS).get(fn)
            if tmpl is not None and fn not in ("floordiv", "rem", "cdiv"):
                return tmpl.format(*args, t="int", s="i32")
        if fn in self._WIDENS:
            args = [f"(int64_t){a}" if not a.startswith("INT64_C") and rv.within(I32) else a
                    for a, rv in zip(args, rs)]
            if r.within(I64):  # the result fits: plain signed arithmetic cannot overflow
                return CLikeEmitter.INT_FNS[fn].format(*args, t=self.ctype(t))
        return self.arith_expr(op, args)

    def emit_sync(self, op: ir.Operation) -> None:
        """``group`` -> ``__syncthreads()``, ``subgroup`` -> ``__syncwarp()``."""
        scope = op.attr("scope")
        if scope == "group":
            self.buf.line("__syncthreads();")
        elif scope == "subgroup":
            self.buf.line("__syncwarp();")
        else:
            raise self.unsupported(op, f"sync at scope {scope!r} inside a kernel")
        for r in op.results:
            self.bind(r, TokenVal())

    def emit_check(self, op: ir.Operation) -> None:
        """Unless the (block-uniform) condition holds: record the failure and leave."""
        if not self.in_lanes:
            raise self.unsupported(op, "a device check belongs in the lane parallel")
        self.checks.append(CheckInfo.of(op))
        cond = self.scalar(op.operand(0), op)
        with self.buf.block(f"if (__builtin_expect(!({cond}), 0))"):
            with self.buf.block(f"if (atomicCAS(tc_check, 0ull, {len(self.checks)}ull) == 0ull)"):
                for k, v in enumerate(op.operands[1:]):
                    x = self.scalar(v, op)
                    word = f"__double_as_longlong((double)({x}))" if v.type.is_float \
                        else f"(long long)({x})"
                    self.buf.line(f"tc_check[{k + 1}] = (unsigned long long){word};")
            # copies this thread started must land before its shared memory is released
            self.buf.line('asm volatile("cp.async.wait_all;" ::: "memory");')
            self.buf.line("return;")

    # -- aggregation ----------------------------------------------------------------------
    def merge_expr(self, fn: str, a: str, b: str, t: ir.ScalarType) -> str:
        """``fn(a, b)`` on compute values of type ``t`` (rounded for narrow floats)."""
        if t is ir.i1:
            return self.BOOL_FNS[fn].format(a, b)
        table = self.FLOAT_FNS if t.is_float else self.INT_FNS
        expr = table[fn].format(a, b, t=self.ctype(t), u=self.utype(t), s=self.suffix(t), op=0)
        rnd = self.NARROW_ROUND.get(t.name)
        return rnd.format(expr) if rnd else expr

    # -- addressable effects ----------------------------------------------------------------
    def emit_memory(self, op: ir.Operation) -> None:
        """Per-thread storage in the SIMT region (``local``/``fragment``): a local array."""
        t = op.result.type
        if t.space == "shared":
            raise self.unsupported(op, "shared memory is allocated in the grid body, once per "
                                       "group, not per lane")
        shape = tuple(int(e) for e in t.shape)
        name = self.name_of(op.result)
        self.buf.line(f"{self.LOCAL_ALIGN}{self.mtype(t.dtype)} {name}[{max(1, prod(shape))}];")
        self._bind_local(op, name, shape, "local")

    def emit_view(self, op: ir.Operation) -> None:
        """Compose the map; a bounded view adds a validity level (no code)."""
        base = self.memref(op.operand(0), op)
        syms = [self.int_text(v, op) for v in op.operands[1:]]
        sdivs = [self.div_of(v) for v in op.operands[1:]]
        sranges = [self.range_of(v) for v in op.operands[1:]]
        extents = [self.dim_expr(d, op) for d in op.result.type.shape]
        bounded = op.attr("bounds", "total") == "bounded"
        self.bind(op.result, base.sub(op.attr("map"), syms, sdivs, extents, bounded, sranges))

    def emit_if(self, op: ir.Operation) -> None:
        """An ``if`` whose body is only index arithmetic and barrier or tensor-copy atoms is
        emitted without a branch: the arithmetic unconditionally, the atoms predicated
        (``atom_printers.predicatable``). A branch around them, taken by one thread while a
        warpgroup instruction group is in flight, makes ptxas serialize every ``wgmma`` of
        the kernel; the predicated form does not."""
        if self.predicate is None and predicatable(op):
            self.predicate = self.scalar(op.operand(0), op)
            try:
                self.emit_block(op.regions[0].entry)
            finally:
                self.predicate = None
            return
        super().emit_if(op)

    # -- atoms ------------------------------------------------------------------------------
    def emit_atom_call(self, op: ir.Operation) -> None:
        """One catalog atom as inline PTX (``atom_printers``: a printer per catalog family)."""
        cid = op.attr("catalog_id")
        if cid not in CATALOG:
            raise self.unsupported(op, f"unknown atom {cid!r}; the CUDA catalog has "
                                       f"{', '.join(sorted(CATALOG))}")
        printer = printer_for(cid)
        if printer is None:
            raise self.unsupported(op, f"no CUDA emission for atom {cid!r}")
        assert self.predicate is None or cid in PREDICATED, \
            f"internal: {cid} in a predicated body (atom_printers.predicatable admits it)"
        if printer(self, op):
            return
        for r in op.results:
            if not isinstance(r.type, ir.TokenType):
                raise self.unsupported(op, f"{cid} produces a token, not {r.type}")
            self.bind(r, TokenVal())

    def tmap_param(self, ptr: str, dtype: ir.ScalarType, box: tuple[int, ...],
                   user: ir.Operation) -> str:
        """The C name of the tensor-map parameter of memory parameter ``ptr`` with ``box``
        and ``user``'s outside fill (declared after the other parameters; the launcher
        encodes it from the array)."""
        i = self.param_index.get(ptr)
        if i is None:
            raise self.unsupported(user, f"{user.attr('catalog_id')} copies a kernel "
                                         "parameter's array")
        oob_nan = user.attr("oob") == "nan"
        key = (i, box, oob_nan)
        got = self.tmaps.get(key)
        if got is None:
            name = f"tc_tmap{len(self.tmaps)}"
            got = (name, ParamInfo("tmap", dtype, (), False, name, (i, 0), box=box,
                                   swizzle=128, oob_nan=oob_nan))
            self.tmaps[key] = got
        return got[0]

    def workspace_param(self, role: str, per: int, elements: int, user: ir.Operation) -> str:
        """The C name of the split-K workspace ``role`` (``partials``: f32, ``elements`` per
        program; ``counters``: i32, ``elements`` per ``per`` programs, zero between
        launches), declared after the other parameters; the launcher allocates it from the
        launch's grid (``Launcher.workspace``)."""
        got = self.workspaces.get(role)
        dtype = ir.f32 if role == "partials" else ir.i32
        info = ParamInfo("workspace", dtype, (ir.Dim(elements),), True, role, box=(per,))
        if got is None:
            got = (f"tc_split_{role}", info)
            self.workspaces[role] = got
        elif got[1] != info:
            raise self.unsupported(user, f"two split-K {role} layouts in one kernel")
        return got[0]

    def note_aligned16(self, ptr: str) -> None:
        """Record that the parameter behind ``ptr`` (if one is) must be 16-byte aligned."""
        if ptr in self.param_index:
            self._aligned16.add(self.param_index[ptr])


def emit_cuda(module: ir.Module, fn_name: str, target: str = "cuda:sm_90") -> CUDASource:
    """The CUDA kernel for Machine function ``@fn_name``."""
    return CUDAEmitter(module, fn_name, target).emit()


# --------------------------------------------------------------------- helpers


def _const_int(v: ir.Value) -> int | None:
    d = v.defining_op
    if d is not None and d.name == "constant" and isinstance(d.attr("value"), int):
        return int(d.attr("value"))
    return None
