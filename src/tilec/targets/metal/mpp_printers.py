"""MSL of the MPP ``matmul2d`` tensor operation (``mpp.matmul2d``, docs/design/metal.md).

One operation prints as a block::

    {
      constexpr auto tc_desc = matmul2d_descriptor(M, N, K or dynamic, false, <B transposed>,
                                                   false, mode::multiply_accumulate);
      matmul2d<tc_desc, execution_simdgroup or execution_simdgroups<G>> tc_op;
      auto tc_a = tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>(pa, ...);
      auto tc_b = ...;
      auto tc_c = tc_op.get_destination_cooperative_tensor<decltype(tc_a), ...>();
      for (each element i of this lane) if valid: tc_c[i] = C[its coordinates]
      tc_op.run(tc_a, tc_b, tc_c);
      for (each element i of this lane) if valid: C[its coordinates] = tc_c[i]
    }

Tensor coordinates run innermost first (dimension 0 is a row-major matrix's column), so an
``M x K`` A with row stride ``lda`` is the tensor of extents ``(K, M)`` and strides
``(1, lda)``. A K-major B (a staged ``W.T``) is passed with ``transpose_right``. The
destination is a cooperative tensor, whose element distribution is implementation-defined:
its elements are read from and written to the C staging through their own coordinates
(``get_multidimensional_index``), never through an assumed lane layout. The mode is always
``multiply_accumulate`` with the destination initialized first (the header's plain
``multiply`` mode is described inconsistently by the public material; this reading needs
none of it).
"""

from __future__ import annotations

from typing import Any

import tilec.ir as ir

from .simdgroup_printers import _steps

__all__ = ["emit_mpp_atom", "DYNAMIC_K_STEP"]

DYNAMIC_K_STEP = 16
"""A K that is not a multiple of this is printed as a dynamic K (the descriptor rule)."""


def _tensor(em: Any, op: ir.Operation, role: str, v: ir.Value, rows: int, cols: int
            ) -> tuple[str, str, bool]:
    """(pointer, ``tensor<...>(...)`` expression, transposed) of a ``rows x cols`` view."""
    ref = em.memref(v, op)
    if ref.space != "shared" or ref.dtype is not ir.f32 or ref.swizzle:
        raise em.unsupported(op, f"mpp.matmul2d operand {role} on {ref.space} {ref.dtype} "
                                 "memory (the realization stages unswizzled f32 tensors in "
                                 "threadgroup memory)")
    if ref.levels:
        raise em.unsupported(op, f"mpp.matmul2d operand {role} is a bounded view (its staged "
                                 "tensor has static extents)")
    steps = _steps(ref)
    if steps is None or 1 not in steps:
        raise em.unsupported(op, f"mpp.matmul2d operand {role}: the rows and columns are not a "
                                 "constant stride and unit steps in its buffer")
    row, col = steps
    ptr = f"{ref.ptr} + {ref.at(em.access.address_of_first(ref))}"
    t = "tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>"
    if col == 1:  # row-major: dimension 0 runs along a row
        return ptr, f"{t}({ptr}, dextents<int32_t, 2>({cols}, {rows}), " \
                    f"array<int32_t, 2>{{1, {row}}})", False
    if role != "B":
        raise em.unsupported(op, f"mpp.matmul2d operand {role} is column-major (only B may be "
                                 "transposed: transpose_right)")
    return ptr, f"{t}({ptr}, dextents<int32_t, 2>({rows}, {cols}), " \
                f"array<int32_t, 2>{{1, {col}}})", True


def emit_mpp_atom(em: Any, op: ir.Operation) -> None:
    """Print one ``mpp.matmul2d`` (module docstring)."""
    m, n, k = (int(op.attr(x)) for x in "mnk")
    scope = op.attr("scope")
    if scope == "subgroup":
        exec_scope = "execution_simdgroup"
    elif scope == "group":
        exec_scope = f"execution_simdgroups<{int(op.attr('subgroups'))}>"
    else:
        raise em.unsupported(op, f"mpp.matmul2d of unknown scope {scope!r}")
    a_v, b_v, c_v = op.operands
    _, ta, _ = _tensor(em, op, "A", a_v, m, k)
    _, tb, b_t = _tensor(em, op, "B", b_v, k, n)
    c_ref = em.memref(c_v, op)
    if c_ref.space != "shared" or c_ref.dtype is not ir.f32 or c_ref.levels:
        raise em.unsupported(op, "mpp.matmul2d's C must be a total f32 threadgroup view")
    c_steps = _steps(c_ref)
    if c_steps is None or c_steps[1] != 1:
        raise em.unsupported(op, "mpp.matmul2d's C must be row-major with a constant stride")
    c_ptr = f"{c_ref.ptr} + {c_ref.at(em.access.address_of_first(c_ref))}"
    ldc = c_steps[0]
    kk = str(k) if k % DYNAMIC_K_STEP == 0 else "mpp::tensor_ops::dynamic_length_v<int>"
    u = em.fresh("")
    desc, opn, a, b, c = (f"tc_{x}{u}" for x in ("desc", "op", "ta", "tb", "ct"))
    buf = em.buf
    buf.line("{")
    with buf.indent():
        buf.line(f"constexpr auto {desc} = mpp::tensor_ops::matmul2d_descriptor({m}, {n}, {kk}, "
                 f"false, {'true' if b_t else 'false'}, false, "
                 "mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);")
        buf.line(f"mpp::tensor_ops::matmul2d<{desc}, {exec_scope}> {opn};")
        buf.line(f"auto {a} = {ta};")
        buf.line(f"auto {b} = {tb};")
        buf.line(f"auto {c} = {opn}.get_destination_cooperative_tensor<decltype({a}), "
                 f"decltype({b}), float>();")
        for load in (True, False):
            if not load:
                buf.line(f"{opn}.run({a}, {b}, {c});")
            buf.line(f"for (uint16_t i = 0; i < {c}.get_capacity(); ++i) {{")
            with buf.indent():
                buf.line(f"if (!{c}.is_valid_element(i)) continue;")
                buf.line(f"auto at = {c}.get_multidimensional_index(i);")
                elem = f"({c_ptr})[at[1] * {ldc} + at[0]]"
                buf.line(f"{c}[i] = {elem};" if load else f"{elem} = {c}[i];")
            buf.line("}")
    buf.line("}")
