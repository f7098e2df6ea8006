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

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.exec import get_profile
from tilec.ir.allocation import SharedLayout, shared_layout
from tilec.ir.atoms import CATALOG, MMA_ATOMS, SWIZZLE_ALIGN
from tilec.ir.ranges import (
    I32,
    I64,
    Range,
    analyze_ranges,
    is_int_division,
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
    IndexWriter,
    MemRef,
    ctype_of,
    div_c,
    plus,
    unravel,
)
from tilec.targets.cuda.atom_printers import printer_for
from tilec.targets.cuda.prelude import PRELUDE
from tilec.targets.interop_checks import written_parameters
from tilec.targets.kernel_checks import CheckInfo, host_check_ops

__all__ = ["CUDAEmitter", "CUDASource", "ParamInfo", "HostStep", "emit_cuda", "kernel_name"]

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def kernel_name(fn_name: str) -> str:
    """The C symbol of the kernel emitted for ``@fn_name``."""
    return "tilec_" + _IDENT.sub("_", fn_name)


# --------------------------------------------------------------------- value forms


@dataclass
class Regs:
    """A per-thread register array (flat, row-major over ``shape``)."""

    name: str
    shape: tuple[int, ...]
    dtype: ir.ScalarType
    packed: bool = False
    """16-bit elements two per 32-bit word (a ``tc_b16x``): ``name.w[j]`` is a word and
    ``name[i]`` an element, so element-wise code reads the same either way."""

    @property
    def n(self) -> int:
        """Number of elements."""
        return prod(self.shape)


# --------------------------------------------------------------------- results


@dataclass(frozen=True)
class ParamInfo:
    """One kernel parameter as the launcher sees it."""

    kind: str
    """``mem``, ``scalar``, ``symbol`` (a shape symbol) or ``dim`` (another runtime extent)."""
    dtype: ir.ScalarType
    """Element type (``index`` for symbols and dims)."""
    shape: tuple[ir.Dim, ...] = ()
    """Extents of a ``mem`` parameter."""
    written: bool = False
    """True when the kernel writes this memory."""
    name: str = ""
    """The parameter's name hint (or symbol name)."""
    source: tuple[int, int] = (-1, -1)
    """For ``dim``: ``(user parameter, axis)`` whose runtime extent it is."""


@dataclass(frozen=True)
class HostStep:
    """One scalar op evaluated on the host to size the grid."""

    key: int
    """The value's key (its position in the step list, or ``-1 - k`` for parameter ``k``)."""
    fn: str
    """``constant`` or an ``arith`` function."""
    args: tuple[int, ...]
    """Keys of the operands."""
    value: Any = None
    """The constant's value."""
    dtype: str = "index"
    """The result type's name."""
    failure: CheckInfo | None = None
    """For an integer division whose divisor may be zero: what a zero divisor raises."""


@dataclass
class CUDASource:
    """An emitted kernel and what the launcher needs to call it."""

    text: str
    """The CUDA C++ source."""
    buffer: IndentedBuffer
    """The same text, line by line, with the IR operation behind each line."""
    kernel: str
    """The kernel's C symbol."""
    params: list[ParamInfo]
    """Kernel parameters in order (user parameters, shape symbols, other dims)."""
    threads: int
    """Threads per block."""
    grid_rank: int
    """Rank of the grid ``parallel``."""
    host_steps: list[HostStep]
    """Scalar ops that size the grid, in order."""
    grid_keys: list[int]
    """Keys of the grid extents."""
    shared_bytes: int
    """Dynamic shared memory per block."""
    min_sm: int = 80
    """Lowest compute capability (x10) the kernel needs."""
    arch_suffix: str = ""
    """``a`` when the kernel uses arch-specific instructions (sm_90a's wgmma): compile for
    ``sm_90a`` rather than ``sm_90`` (such a cubin runs on that architecture only)."""
    ops: dict[int, tuple[str, ir.Location]] = field(default_factory=dict)
    """Operation id -> (opcode, location)."""
    stats: dict[str, int] = field(default_factory=dict)
    """Emission statistics (vector chunks, scalar elements)."""
    aligned16: frozenset[int] = frozenset()
    """User parameters whose base address must be 16-byte aligned: sources of 16-byte
    asynchronous copies (the launcher refuses other arrays, naming the argument)."""
    checks: list[CheckInfo] = field(default_factory=list)
    """The kernel's device checks; number ``k + 1`` in the failure record is ``checks[k]``.
    When there are any, the kernel takes the record's address as its last parameter."""
    name: str = "?"
    """The kernel's TileIR function name (``@name`` in error messages)."""

    def grid(self, values: Sequence[int]) -> tuple[int, ...]:
        """The grid extents for parameter values ``values`` (in ``params`` order); a zero
        divisor raises ``KernelArithmeticError`` (the host checks raise it first when the
        division is before every top-level effect, as it is unless hand-written)."""
        env: dict[int, Any] = {-1 - k: int(v) for k, v in enumerate(values)}
        for st in self.host_steps:
            if st.fn == "constant":
                env[st.key] = st.value
                continue
            args = [env[a] for a in st.args]
            if st.failure is not None and args[1] == 0:
                raise st.failure.failure(self.name)
            env[st.key] = host_arith(st.fn, args, st.dtype)
        return tuple(int(env[k]) for k in self.grid_keys)

    def launch_grid(self, extents: Sequence[int]) -> tuple[int, int, int]:
        """``gridDim`` for grid extents: the last coordinate on x; above rank 3 all on x."""
        if len(extents) > 3:
            return (prod(extents), 1, 1)
        g = list(reversed([int(e) for e in extents])) + [1] * (3 - len(extents))
        return (g[0], g[1], g[2])


def host_arith(fn: str, a: list[Any], dtype: str) -> Any:
    """``arith`` on host integers (the functions grid sizes use): Python semantics, then
    wrapped to the result type ``dtype`` as the device wraps it (``i8`` of 258 is 2)."""
    table = {
        "add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
        "floordiv": lambda: a[0] // a[1], "rem": lambda: a[0] % a[1],
        "cdiv": lambda: -((-a[0]) // a[1]), "max": lambda: max(a[0], a[1]),
        "min": lambda: min(a[0], a[1]), "neg": lambda: -a[0], "abs": lambda: abs(a[0]),
        "eq": lambda: int(a[0] == a[1]), "ne": lambda: int(a[0] != a[1]),
        "lt": lambda: int(a[0] < a[1]), "le": lambda: int(a[0] <= a[1]),
        "gt": lambda: int(a[0] > a[1]), "ge": lambda: int(a[0] >= a[1]),
        "select": lambda: a[1] if a[0] else a[2], "cast": lambda: int(a[0]),
        "and": lambda: a[0] & a[1], "or": lambda: a[0] | a[1], "xor": lambda: a[0] ^ a[1],
        "not": lambda: ~a[0],
    }
    if fn not in table:
        raise ValueError(f"grid extents use arith {fn!r}, which the host does not evaluate")
    if fn in ("floordiv", "rem", "cdiv") and a[1] == 0:
        raise ZeroDivisionError(f"grid extent: integer division by zero in {fn}")
    out = table[fn]()
    t = ir.ScalarType(dtype)
    if t.is_float:
        return out
    if t is ir.i1:
        return int(out != 0) if fn == "cast" else out & 1
    half = 1 << (t.bits - 1)
    return (out + half) % (2 * half) - half


# --------------------------------------------------------------------- emitter


class CUDAEmitter(CLikeEmitter):
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

    NO_EMISSION = "no {target} emission for this operation"

    REG_CTYPES = {**CLikeEmitter.SCALAR_CTYPES, "f16": "uint16_t", "bf16": "uint16_t"}
    """Element type of a per-thread register array (16-bit floats as bit patterns)."""

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
        self.ranges: dict[int, Range] = analyze_ranges(fn, _grid_bound)
        """``id(value)`` -> the value's range (``tilec.ir.ranges``)."""
        self.sizes: set[str] = set()
        """C names of the size parameters (shape symbols and other extents; never negative)."""
        self._narrow_sizes: dict[str, str] = {}
        self._param_index: dict[str, int] = {}
        self._aligned16: set[int] = set()
        self.access = AccessWriter(self.buf, self.fresh, self.narrow_size)
        self.threads = 0
        align = get_profile(target).shared_alignment
        assert align is not None, f"{target} has no shared_alignment"
        self.shared_align: int = align
        """Alignment of each shared buffer (the profile's ``shared_alignment``)."""
        self.shared = SharedLayout()
        """Where the group's shared buffers live (``ir.allocation``: the allocate stage's
        placement, read back)."""
        self.shared_bytes = 0
        self.in_lanes = False
        self.warp_atoms = False
        self.min_groups = 1
        """Groups per SM the compiler is asked to fit (``__launch_bounds__``)."""
        self.smem_base = "tc_smem"
        """The (aligned) start of the kernel's dynamic shared memory."""
        self.wgmma = False
        """True once a warpgroup instruction is emitted (sm_90a, ``ptx.WGMMA_PRELUDE``)."""
        self.wgmma_descs: dict[tuple[str, str, int, int], tuple[str, int]] = {}
        """Descriptors emitted since the last ``wgmma.fence``: (pointer, variable part of the
        start, LBO, SBO) -> (C name, constant part of the start)."""
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
            self._prologue.line(f"const int {n} = (int)({name} < INT64_C(2147483647) ? {name} "
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
        if packed and _b16(dtype):
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
        return self.declare(_static_shape(t, op, self), t.dtype, self.name_of(v),
                            _meets_word_atom(v))

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
        fn = self.fn
        if len(fn.body.blocks) != 1:
            raise self.unsupported(None, f"@{fn.name} has several blocks; Machine functions "
                                         "have one")
        if fn.result_types:
            raise self.unsupported(None, f"@{fn.name} returns values; a kernel writes memory")
        params, head = self._bind_params()
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
                    self._host_step(op, steps, keys)
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
        out = IndentedBuffer()
        out.line(f"/* tilec CUDA backend: @{fn.name} for {self.target} */")
        out.line(PRELUDE)
        if self.b16_arrays:
            out.line(ptx.B16_ARRAYS)
        if self.wgmma:
            out.line(ptx.WGMMA_PRELUDE)
        if self.checks:
            head.append("unsigned long long *__restrict__ tc_check")
        sig = ", ".join(head)
        bounds = f"{self.threads}, {self.min_groups}" if self.min_groups > 1 else \
            f"{self.threads}"
        out.line(f'extern "C" __global__ void __launch_bounds__({bounds}) '
                 f"{kernel_name(fn.name)}({sig})")
        out.line("{")
        if self.shared_bytes:
            out.line(f"  extern __shared__ __align__({self.shared_align}) unsigned char "
                     "tc_smem[];")
        out.splice(self._prologue)
        out.splice(body)
        out.line("}")
        stats = {"vector_chunks": self.access.vector_chunks,
                 "scalar_elements": self.access.scalar_elems}
        return CUDASource(out.getvalue(), out, kernel_name(fn.name), params, self.threads,
                          grid_op.attr("rank"), steps, grid_keys, self.shared.launch_bytes,
                          90 if self.wgmma else 80, "a" if self.wgmma else "",
                          self.ops, stats, frozenset(self._aligned16), list(self.checks),
                          fn.name)

    def _host_step(self, op: ir.Operation, steps: list[HostStep], keys: dict[int, int]
                   ) -> None:
        if op.name == "constant":
            key = len(steps)
            steps.append(HostStep(key, "constant", (), op.attr("value"), op.result.type.name))
            keys[id(op.result)] = key
            return
        arg_keys = [keys.get(id(v)) for v in op.operands]
        if any(k is None for k in arg_keys) or op.result.type.is_float:
            return  # not needed by the host unless a grid extent reads it (checked later)
        key = len(steps)
        failure = CheckInfo.division(op) if is_int_division(op) else None
        steps.append(HostStep(key, op.attr("fn"), tuple(arg_keys), None,  # type: ignore[arg-type]
                              op.result.type.name, failure))
        keys[id(op.result)] = key

    def _bind_params(self) -> tuple[list[ParamInfo], list[str]]:
        fn = self.fn
        pro = IndentedBuffer(depth=1)
        self._prologue = pro
        symbols = fn.shape_symbols
        n_user = len(fn.args) - len(symbols)
        if n_user < 0:
            raise self.unsupported(None, f"@{fn.name} declares {len(symbols)} shape symbols but "
                                         f"has only {len(fn.args)} parameters")
        written = written_parameters(fn)
        params: list[ParamInfo] = []
        head: list[str] = []
        for k, name in enumerate(symbols):
            a = fn.args[n_user + k]
            if a.type is not ir.index:
                raise self.unsupported(None, f"shape symbol {name} must be an index parameter")
            self.sym_vars[name] = self.name_of(a)
            self.sizes.add(self.name_of(a))
            self.bind(a, Scalar(self.name_of(a), ir.index))
        extra: list[tuple[str, ParamInfo]] = []
        for i, a in enumerate(fn.args[:n_user]):
            t = a.type
            hint = a.name_hint or f"arg{i}"
            if isinstance(t, ir.MemoryType):
                if t.space != "global":
                    raise self.unsupported(None, f"parameter {hint} is {t.space} memory; kernel "
                                                 "parameters are global")
                ptr = self.name_of(a)
                self._param_index[ptr] = i
                w = i in written
                mt = self.mtype(t.dtype)
                head.append(f"{'' if w else 'const '}{mt} *__restrict__ {ptr}")
                extents: list[str] = []
                for axis, dim in enumerate(t.shape):
                    if dim.is_static:
                        extents.append(str(int(dim)))
                    elif str(dim.value) in self.sym_vars:
                        extents.append(self.sym_vars[str(dim.value)])
                    else:
                        var = self.fresh(f"{ptr}_e")
                        self.sizes.add(var)
                        extra.append((f"int64_t {var}", ParamInfo("dim", ir.index, (), False,
                                                                  f"{hint}.shape[{axis}]",
                                                                  (i, axis))))
                        extents.append(var)
                strides, sdivs = [], []
                for axis in range(t.rank):
                    rest = extents[axis + 1:]
                    static = prod(int(e) for e in rest if e.isdigit())
                    sym = [e for e in rest if not e.isdigit()]
                    if not sym:
                        strides.append(str(static))
                    else:
                        var = self.fresh(f"{ptr}_s")
                        # left to right from an int64_t: static extents alone may overflow int
                        wide = "(int64_t)" if rest[0].isdigit() else ""
                        pro.line(f"const int64_t {var} = {wide}{' * '.join(rest)};")
                        strides.append(var)
                    sdivs.append(static)
                flag = f"tc_al_{ptr}"
                pro.line(f"const bool {flag} = tc_aligned16({ptr});")
                self.bind(a, MemRef(ptr, t.dtype, "global", tuple(extents),
                                    ir.IndexMap.identity(t.rank), (), (), tuple(strides),
                                    tuple(sdivs), (), flag, a))
                params.append(ParamInfo("mem", t.dtype, t.shape, w, hint))
            elif isinstance(t, ir.ScalarType):
                var = self.name_of(a)
                head.append(f"{self.ctype(t)} {var}")
                self.bind(a, Scalar(var, t))
                params.append(ParamInfo("scalar", t, (), False, hint))
            else:
                raise self.unsupported(None, f"parameter {hint} of @{fn.name} has type {t}; the "
                                             "CUDA backend takes memories and scalars")
        for name in symbols:
            head.append(f"int64_t {self.sym_vars[name]}")
            params.append(ParamInfo("symbol", ir.index, (), False, name))
        for decl, info in extra:
            head.append(decl)
            params.append(info)
        return params, head

    # -- grid and lanes ---------------------------------------------------------------------
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
        body = op.regions[0].entry
        coords = [self.name_of(a) for a in body.args[:rank]]
        b = self.buf
        if rank <= 3:
            for k, (a, c) in enumerate(zip(body.args, coords)):
                ct = ctype_of(self.range_of(a))
                b.line(f"const {ct} {c} = ({ct})blockIdx.{'xyz'[rank - 1 - k]};")
        else:
            exts = [self.scalar(v, op) for v in op.operands[:rank]]
            lin = self.fresh("lin")
            b.line(f"int64_t {lin} = (int64_t)blockIdx.x;")
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
        mt = self.mtype(t.dtype)
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
        self.buf.line(f"const {ct} {tid} = ({ct})threadIdx.x;")
        self.bind(body.args[0], Scalar(tid, ir.index))
        self.in_lanes = True
        term = self.emit_block(body)
        self.in_lanes = False
        if term is None or term.num_operands:
            raise self.unsupported(op, "the lane parallel's body ends with an empty yield")
        if self.warp_atoms and self.threads % 32:
            raise self.unsupported(op, f"warp atoms need whole warps; threads = {self.threads}")

    def emit_parallel(self, op: ir.Operation) -> None:
        """A parallel inside the SIMT region has no CUDA form."""
        raise self.unsupported(op, "parallel inside the lane body; the lowering realizes "
                                   "nested instances as per-lane loops")

    # -- control ----------------------------------------------------------------------------
    def mutable_result(self, v: ir.Value, op: ir.Operation, init: ir.Value | None = None
                       ) -> object:
        """Mutable storage for a structured op's result, initialized from ``init``."""
        t = v.type
        if isinstance(t, ir.ScalarType):
            var = self.fresh("m")
            val = f" = {self.scalar(init, op)}" if init is not None else ""
            self.buf.line(f"{self.ctype(t)} {var}{val};")
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
                self.buf.line(f"const {self.ctype(d.type)} {tmp} = {self.scalar(s, op)};")
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
            self.bind(op.result, Splat(self.literal(value, t.dtype), _static_shape(t, op, self),
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
            self.divs[id(op.result)] = _divisibility(fn, [self.div_of(v) for v in op.operands])
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

    def emit_map(self, op: ir.Operation) -> None:
        """The scalar region once per register, in a ``#pragma unroll`` loop."""
        shape = tuple(int(e) for e in op.attr("shape").extents)
        n = prod(shape)
        block = op.regions[0].entry
        forms = [self.get(v, op) for v in op.operands]
        outs = [self.new_regs(r, op) for r in op.results]
        e = "e" if n > 1 else "0"
        if n > 1:
            self.buf.line("#pragma unroll")
        with self.buf.block(f"for (int e = 0; e < {n}; ++e)" if n > 1 else ""):
            for a, f in zip(block.args, forms):
                if isinstance(f, Scalar):
                    self.bind(a, f)
                    continue
                if isinstance(f, Regs):
                    src = self.to_compute(f"{f.name}[{e}]", f.dtype)
                elif isinstance(f, Splat):
                    src = f.expr
                else:
                    raise self.unsupported(op, f"map operand of type {a.type}")
                var = self.name_of(a)
                self.buf.line(f"const {self.ctype(a.type)} {var} = {src};")
                self.bind(a, Scalar(var, a.type))
            term = self.emit_block(block)
            if term is None:
                raise self.unsupported(op, "map region does not end with yield")
            for out, v in zip(outs, term.operands):
                self.buf.line(f"{out.name}[{e}] = {self.to_reg(self.scalar(v, term), out.dtype)};")
        for r, out in zip(op.results, outs):
            self.bind(r, out)

    def emit_reindex(self, op: ir.Operation) -> None:
        """A static map copies registers (unrolled); a symbolic one indexes at run time."""
        m: ir.IndexMap = op.attr("map")
        rt = op.result.type
        shape = _static_shape(rt, op, self)
        src_form = self.get(op.operand(0), op)
        src_shape = _static_shape(op.operand(0).type, op, self)
        fill = op.attr("fill")
        if isinstance(src_form, Splat) and not m.n_symbols and _in_range(m, shape, src_shape):
            self.bind(op.result, Splat(src_form.expr, shape, src_form.dtype))
            return
        src = self.regs(op.operand(0), op)
        out = self.new_regs(op.result, op)
        miss = self.reg_literal(fill, rt.dtype) if fill is not None else self.poison(rt.dtype)
        if not m.n_symbols:
            srcs: list[int | None] = []
            for i in range(prod(shape)):
                c = m.apply(unravel(i, shape))
                ok = all(0 <= x < e for x, e in zip(c, src_shape))
                srcs.append(_flat(c, src_shape) if ok else None)
            words = _word_moves(srcs, prod(src_shape)) if src.packed and out.packed else {}
            for i, j in enumerate(srcs):
                if i in words:
                    self.buf.line(f"{out.name}.w[{i // 2}] = {src.name}.w[{words[i]}];")
                elif i - 1 in words:
                    continue
                else:
                    self.buf.line(f"{out.name}[{i}] = {src.name}[{j}];" if j is not None else
                                  f"{out.name}[{i}] = {miss};")
        else:
            syms = [self.int_text(v, op) for v in op.operands[1:]]
            iw = IndexWriter([self.range_of(v) for v in op.operands[1:]])
            for i in range(prod(shape)):
                dims = [ir.AffineExpr((), x) for x in unravel(i, shape)]
                conds: list[str] | None = []
                flat = []
                for k, r in enumerate(m.results):
                    c, cr = iw.expr(r.substitute(dims), syms)
                    got = self.access.bound_conds(c, cr, 0, 0, str(src_shape[k]))
                    conds = None if got is None or conds is None else conds + got
                    flat.append(f"{c} * {prod(src_shape[k + 1:])}")
                ok = "false" if conds is None else " && ".join(conds) or "true"
                self.buf.line(f"{out.name}[{i}] = ({ok}) ? {src.name}[{' + '.join(flat) or 0}] "
                              f": {miss};")
        self.bind(op.result, out)

    # -- aggregation ----------------------------------------------------------------------
    def emit_reduce(self, op: ir.Operation) -> None:
        """Fold a thread's own registers: a pairwise tree for a recognized merge, else in order."""
        n_in = op.attr("n_inputs")
        axes = tuple(sorted(op.attr("axes")))
        inputs = [self.regs(v, op) for v in op.operands[:n_in]]
        seeds = [self.scalar(v, op) for v in op.operands[n_in:]]
        shape = inputs[0].shape
        kept = [j for j in range(len(shape)) if j not in axes]
        keep_shape = [shape[j] for j in kept]
        red_shape = [shape[j] for j in axes]
        outs = [self.new_regs(r, op) for r in op.results]
        block = op.regions[0].entry
        merge = _direct_merge(op)
        for o in range(prod(keep_shape)):
            ko = unravel(o, keep_shape)
            flats = []
            for q in range(prod(red_shape)):
                idx = [0] * len(shape)
                for j, v in zip(kept, ko):
                    idx[j] = v
                for j, v in zip(axes, unravel(q, red_shape)):
                    idx[j] = v
                flats.append(_flat(idx, shape))
            if merge is not None and flats:
                t = outs[0].dtype
                parts = [self.to_compute(f"{inputs[0].name}[{f}]", t) for f in flats]
                while len(parts) > 1:
                    nxt = []
                    for k in range(0, len(parts) - 1, 2):
                        var = self.fresh("p")
                        self.buf.line(f"const {self.ctype(t)} {var} = "
                                      f"{self.merge_expr(merge, parts[k], parts[k + 1], t)};")
                        nxt.append(var)
                    if len(parts) % 2:
                        nxt.append(parts[-1])
                    parts = nxt
                total = self.merge_expr(merge, seeds[0], parts[0], t)
                self.buf.line(f"{outs[0].name}[{o}] = {self.to_reg(total, t)};")
                continue
            states = []
            for out, seed in zip(outs, seeds):
                s = self.fresh("s")
                self.buf.line(f"{self.ctype(out.dtype)} {s} = {seed};")
                states.append(s)
            for f in flats:
                with self.buf.block(""):
                    self.fold_update(block, states, [self.to_compute(f"{x.name}[{f}]", x.dtype)
                                                     for x in inputs], op)
            for out, s in zip(outs, states):
                self.buf.line(f"{out.name}[{o}] = {self.to_reg(s, out.dtype)};")
        for r, out in zip(op.results, outs):
            self.bind(r, out)

    def merge_expr(self, fn: str, a: str, b: str, t: ir.ScalarType) -> str:
        """``fn(a, b)`` on compute values of type ``t`` (rounded for narrow floats)."""
        if t is ir.i1:
            return self.BOOL_FNS[fn].format(a, b)
        table = self.FLOAT_FNS if t.is_float else self.INT_FNS
        expr = table[fn].format(a, b, t=self.ctype(t), u=self.utype(t), s=self.suffix(t), op=0)
        rnd = self.NARROW_ROUND.get(t.name)
        return rnd.format(expr) if rnd else expr

    def emit_mma(self, op: ir.Operation) -> None:
        """A lane-level register micro-tile ``c + a @ b``: exact FP32 FFMA, or strict order."""
        av, bv, cv = op.operands
        policy: ir.ArithPolicy = op.attr("policy")
        m, k = _static_shape(av.type, op, self)
        n = _static_shape(bv.type, op, self)[1]
        a, b_, c = (self.regs(v, op) for v in (av, bv, cv))
        out = self.new_regs(op.result, op)
        at, ct = a.dtype, c.dtype
        if at.is_float != ct.is_float:
            raise self.unsupported(op, f"mma of {at} operands into a {ct} accumulator")
        cc = self.ctype(ct)
        buf = self.buf
        tf32 = policy.precision == "tf32" and at is ir.f32

        def operand(x: Regs, idx: str) -> str:
            v = self.to_compute(f"{x.name}[{idx}]", x.dtype)
            return f"tc_round_tf32({v})" if tf32 else f"({cc}){v}" if ct is ir.f64 else v

        fused = policy.order == "unordered_tree"
        if not ct.is_float:
            step = f"acc = ({cc})(acc + ({cc})({operand(a, 'i * K + kk')}) * " \
                   f"({cc})({operand(b_, 'kk * N + j')}));"
        else:
            wide = ct is ir.f64
            x, y = operand(a, "i * K + kk"), operand(b_, "kk * N + j")
            if fused:
                core = f"{'__fma_rn' if wide else '__fmaf_rn'}({x}, {y}, acc)"
            else:
                mul, add = ("__dmul_rn", "__dadd_rn") if wide else ("__fmul_rn", "__fadd_rn")
                core = f"{add}(acc, {mul}({x}, {y}))"
            rnd = self.NARROW_ROUND.get(ct.name)
            step = f"acc = {rnd.format(core) if rnd else core};"
        buf.line(f"/* mma {m}x{n}x{k} {policy}: one thread's register micro-tile */")
        with buf.block(""):
            buf.line(f"constexpr int K = {k}, N = {n};")
            buf.line("#pragma unroll")
            with buf.block(f"for (int i = 0; i < {m}; ++i)"):
                buf.line("#pragma unroll")
                with buf.block("for (int j = 0; j < N; ++j)"):
                    buf.line(f"{cc} acc = {self.to_compute(c.name + '[i * N + j]', ct)};")
                    buf.line("#pragma unroll")
                    buf.line(f"for (int kk = 0; kk < K; ++kk) {step}")
                    buf.line(f"{out.name}[i * N + j] = {self.to_reg('acc', ct)};")
        self.bind(op.result, out)

    # -- addressable effects ----------------------------------------------------------------
    def emit_memory(self, op: ir.Operation) -> None:
        """Per-thread storage in the SIMT region (``local``/``fragment``): a local array."""
        t = op.result.type
        if t.space == "shared":
            raise self.unsupported(op, "shared memory is allocated in the grid body, once per "
                                       "group, not per lane")
        shape = tuple(int(e) for e in t.shape)
        name = self.name_of(op.result)
        self.buf.line(f"{self.mtype(t.dtype)} {name}[{max(1, prod(shape))}];")
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

    def emit_load(self, op: ir.Operation) -> None:
        """Registers from a view; invalid elements get ``fill`` (NaN/0 when there is none)."""
        ref = self.memref(op.operand(0), op)
        rt = op.result.type
        shape = _static_shape(rt, op, self)
        out = self.new_regs(op.result, op)
        fill = op.attr("fill")
        miss = self.reg_literal(fill, rt.dtype) if fill is not None else self.poison(rt.dtype)
        mt = self.mtype(rt.dtype)
        cq = "const " if ref.space == "global" else ""

        def vec(p: str, i0: int, w: int) -> list[str]:
            v = self.fresh("v")
            if out.packed and i0 % 2 == 0 and w % 2 == 0:  # whole words
                return [f"const tc_vec16<uint32_t> {v} = "
                        f"*reinterpret_cast<{cq}tc_vec16<uint32_t> *>({p});"] \
                    + [f"{out.name}.w[{i0 // 2 + j}] = {v}.e[{j}];" for j in range(w // 2)]
            return [f"const tc_vec16<{mt}> {v} = *reinterpret_cast<{cq}tc_vec16<{mt}> *>({p});"] \
                + [f"{out.name}[{i0 + j}] = {v}.e[{j}];" for j in range(w)]

        self.access.access(ref, shape, lambda lv, i: f"{out.name}[{i}] = {lv};",
                           lambda i: f"{out.name}[{i}] = {miss};", vec)
        self.bind(op.result, out)

    def emit_store(self, op: ir.Operation) -> None:
        """Write the valid elements of a view (16-byte stores where provable)."""
        ref = self.memref(op.operand(0), op)
        tv = op.operand(1)
        shape = _static_shape(tv.type, op, self)
        r = self.get(tv, op)
        words = None
        if isinstance(r, Splat):
            val = self.to_reg(r.expr, r.dtype)
            elem = lambda i: val  # noqa: E731
        else:
            src = self.regs(tv, op)
            elem = lambda i: f"{src.name}[{i}]"  # noqa: E731
            words = src.name if src.packed else None
        mt = self.mtype(tv.type.dtype)

        def vec(p: str, i0: int, w: int) -> list[str]:
            v = self.fresh("v")
            if words is not None and i0 % 2 == 0 and w % 2 == 0:  # whole words
                return ([f"tc_vec16<uint32_t> {v};"]
                        + [f"{v}.e[{j}] = {words}.w[{i0 // 2 + j}];" for j in range(w // 2)]
                        + [f"*reinterpret_cast<tc_vec16<uint32_t> *>({p}) = {v};"])
            return ([f"tc_vec16<{mt}> {v};"]
                    + [f"{v}.e[{j}] = {elem(i0 + j)};" for j in range(w)]
                    + [f"*reinterpret_cast<tc_vec16<{mt}> *>({p}) = {v};"])

        self.access.access(ref, shape, lambda lv, i: f"{lv} = {elem(i)};", None, vec)

    def emit_atomic(self, op: ir.Operation) -> None:
        """Per-element atomic read-modify-write of the valid elements."""
        ref = self.memref(op.operand(0), op)
        tv = op.operand(1)
        t = tv.type.dtype
        kind = op.attr("kind")
        src = self.regs(tv, op)
        shape = _static_shape(tv.type, op, self)
        if t.name not in (get_profile(self.target).atomic_dtypes or ()):
            # the lowering refuses these first, from the same profile fact
            raise self.unsupported(op, f"atomic {kind} on {t} memory")
        if t.is_float and kind != "add":
            fn = f"tc_atomic_{kind}_{t.name}"
            stmt = lambda lv, i: f"{fn}(&{lv}, {src.name}[{i}]);"  # noqa: E731
        else:
            cast = {"i64": "(unsigned long long *)", "index": "(unsigned long long *)"}
            fn = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin"}[kind]
            if kind != "add" and t.name in ("i64", "index"):
                cast = {"i64": "(long long *)", "index": "(long long *)"}
            pc = cast.get(t.name, "")
            vc = "(unsigned long long)" if pc == "(unsigned long long *)" else \
                "(long long)" if pc else ""
            stmt = lambda lv, i: f"{fn}({pc}&{lv}, {vc}{src.name}[{i}]);"  # noqa: E731
        self.access.access(ref, shape, stmt, None, None)

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
        if printer(self, op):
            return
        for r in op.results:
            if not isinstance(r.type, ir.TokenType):
                raise self.unsupported(op, f"{cid} produces a token, not {r.type}")
            self.bind(r, TokenVal())

    def note_aligned16(self, ptr: str) -> None:
        """Record that the parameter behind ``ptr`` (if one is) must be 16-byte aligned."""
        if ptr in self._param_index:
            self._aligned16.add(self._param_index[ptr])


def emit_cuda(module: ir.Module, fn_name: str, target: str = "cuda:sm_90") -> CUDASource:
    """The CUDA kernel for Machine function ``@fn_name``."""
    return CUDAEmitter(module, fn_name, target).emit()


# --------------------------------------------------------------------- helpers


def _b16(t: ir.ScalarType) -> bool:
    """16-bit floats, the element types a register array may pack (``ptx.B16_ARRAYS``)."""
    return t.name in ("f16", "bf16")


def _meets_word_atom(v: ir.Value) -> bool:
    """A 16-bit tile produced by ``ldmatrix`` or consumed as an MMA atom operand: kept packed
    so that its words are the atoms' 32-bit registers. Other 16-bit tiles stay one element
    per register (a staged copy or an element-wise map gains nothing from packing and would
    pay a shift or permute per element); an MMA operand that is not packed is copied once."""
    t = v.type
    if not (isinstance(t, ir.TileType) and _b16(t.dtype)):
        return False
    d = v.defining_op
    if d is not None and d.name == "atom.call" \
            and str(d.attr("catalog_id", "")).startswith("ldmatrix."):
        return True
    return any(u.owner.name == "atom.call" and u.owner.attr("catalog_id") in MMA_ATOMS
               and u.index < 2 for u in v.uses)


def _word_moves(srcs: Sequence[int | None], n_src: int) -> dict[int, int]:
    """Even output elements ``i`` whose pair ``(i, i + 1)`` is source pair ``(2w, 2w + 1)``,
    mapped to ``w``: a packed reindex copies those as whole words."""
    out = {}
    for i in range(0, len(srcs) - 1, 2):
        j, k = srcs[i], srcs[i + 1]
        if j is not None and k == j + 1 and j % 2 == 0 and k < n_src:
            out[i] = j // 2
    return out


def _static_shape(t: ir.Type, op: ir.Operation | None, em: CUDAEmitter) -> tuple[int, ...]:
    shape = getattr(t, "shape", None)
    if shape is None:
        raise em.unsupported(op, f"expected a tile, got {t}")
    if not all(d.is_static for d in shape):
        raise em.unsupported(op, f"{t} has a symbolic extent; per-thread tiles are static")
    return tuple(int(d) for d in shape)


def _flat(idx: Sequence[int], shape: Sequence[int]) -> int:
    f = 0
    for i, e in zip(idx, shape):
        f = f * int(e) + int(i)
    return f


def _in_range(m: ir.IndexMap, shape: Sequence[int], src: Sequence[int]) -> bool:
    for i in range(prod(shape)):
        c = m.apply(unravel(i, shape))
        if not all(0 <= x < e for x, e in zip(c, src)):
            return False
    return True


def _grid_bound(rank: int, k: int) -> int:
    """An exclusive bound of grid coordinate ``k``: ``gridDim.x`` is below ``2**31``,
    ``y`` and ``z`` at most 65535; a grid of rank above 3 is linearized onto ``x``."""
    return (1 << 31) - 1 if rank > 3 or k == rank - 1 else 65535


def _const_int(v: ir.Value) -> int | None:
    d = v.defining_op
    if d is not None and d.name == "constant" and isinstance(d.attr("value"), int):
        return int(d.attr("value"))
    return None


def _divisibility(fn: str, divs: list[int]) -> int:
    """A known divisor of an index ``arith`` result from its operands' (0: exactly zero)."""
    if fn == "mul":
        return divs[0] * divs[1]
    if fn in ("add", "sub", "max", "min"):
        return math.gcd(divs[0], divs[1])
    if fn in ("neg", "abs"):
        return divs[0]
    if fn == "select":
        return math.gcd(divs[1], divs[2])
    return 1


def _direct_merge(op: ir.Operation) -> str | None:
    """The merge of a single-state ``unordered_tree`` reduce whose update is ``merge(s, x)``.

    Only then is a pairwise tree of the plain elements a permitted regrouping
    (each contribution is ``merge(identity, x) = x``).
    """
    if op.attr("policy").kind != "unordered_tree" or len(op.results) != 1 \
            or op.attr("n_inputs") != 1:
        return None
    block = op.regions[0].entry
    ops = list(block.operations)
    if len(ops) != 2 or ops[0].name != "arith" or ops[1].name != "yield":
        return None
    fn = ops[0].attr("fn")
    if fn not in ("add", "mul", "max", "min"):
        return None
    if ir.merge_laws(op) != (fn,):
        return None
    st, x = block.args
    if set(map(id, ops[0].operands)) != {id(st), id(x)} or ops[1].operand(0) is not ops[0].result:
        return None
    return fn
