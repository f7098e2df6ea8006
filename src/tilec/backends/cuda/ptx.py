"""Inline PTX for the CUDA atom catalog (``tilec.lower.atoms``), one function per atom family.

Each function returns the C++ lines of one ``atom.call``; the emitter has
already turned the operands into register-array names and addresses.

Register packing: a 16-bit operand element lives in a thread's register
array as its bit pattern (``uint16_t``); PTX takes two of them per 32-bit
register, the lower half holding the even element (``tc_pack16``). TF32
operands are rounded with ``cvt.rna.tf32.f32`` (to nearest, ties away from
zero, the rounding docs/design/tileir.md specifies) before the multiply.
"""

from __future__ import annotations

from tilec.lower.atoms import MmaAtom

__all__ = ["mma_lines", "ldmatrix_x4_lines", "cp_async_lines", "commit_lines", "wait_lines",
           "shfl_xor_expr"]

FULL_MASK = "0xffffffffu"
"""All 32 lanes of a warp participate (the catalog's warp atoms need a converged warp)."""


def _operand_regs(names: str, n: int, packed: bool, tf32: bool) -> list[str]:
    if packed:
        return [f'"r"(tc_pack16({names}[{2 * j}], {names}[{2 * j + 1}]))' for j in range(n // 2)]
    if tf32:
        return [f'"r"(tc_tf32({names}[{j}]))' for j in range(n)]
    return [f'"f"({names}[{j}])' for j in range(n)]


def mma_lines(atom: MmaAtom, d: str, a: str, b: str, c: str) -> list[str]:
    """``d = a @ b + c`` for one warp-wide matrix atom (register arrays by name)."""
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


def ldmatrix_x4_lines(out: str, addr: str) -> list[str]:
    """Four 8x8 b16 matrices; register ``j`` (matrix ``j``) fills ``out[2j]``, ``out[2j+1]``."""
    lines = ["uint32_t q0, q1, q2, q3;",
             'asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"',
             '    : "=r"(q0), "=r"(q1), "=r"(q2), "=r"(q3)',
             f'    : "r"(tc_smem_addr({addr})) : "memory");']
    for j in range(4):
        lines.append(f"{out}[{2 * j}] = (uint16_t)(q{j} & 0xffffu); "
                     f"{out}[{2 * j + 1}] = (uint16_t)(q{j} >> 16);")
    return lines


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
