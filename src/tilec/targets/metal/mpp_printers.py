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

A *direct* operation (A and B in device memory: windows of kernel buffers, the forwarded
realization) passes ``tensor<device const float, ...>`` over each window with its actual
extents ``clamp(extent - origin, 0, nominal)`` per axis and the buffer's strides (the
descriptor's bounded tensors: elements outside read +0.0). It runs only where every extent is
positive, both origins are inside their buffers and A's and B's K extents agree (a condition
uniform over the scope); elsewhere (an empty or uneven rectangle, which the public material
does not describe) each lane computes its own destination elements, a serial sum over K
of guarded reads, +0.0 outside the windows.

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

from dataclasses import dataclass
from typing import Any

import tilec.ir as ir
from tilec.ir.index_bounds import unit_projection
from tilec.targets.clike import Scalar
from tilec.targets.cuda.access import IndexWriter, _pad

from .simdgroup_printers import _steps, staged_block

__all__ = ["emit_mpp_atom", "Destination", "DYNAMIC_K_STEP"]

DYNAMIC_K_STEP = 16
"""A K that is not a multiple of this is printed as a dynamic K (the descriptor rule)."""


def _tensor(em: Any, op: ir.Operation, role: str, v: ir.Value, rows: int, cols: int
            ) -> tuple[str, str, bool]:
    """(pointer, ``tensor<...>(...)`` expression, transposed) of a ``rows x cols`` view."""
    ptr, row, col = staged_block(
        em, op, v, f"mpp.matmul2d operand {role}",
        "the realization stages unswizzled f32 tensors in threadgroup memory",
        "is a bounded view (its staged tensor has static extents)", "the rows and columns")
    t = "tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>"
    if col == 1:  # row-major: dimension 0 runs along a row
        return ptr, f"{t}({ptr}, dextents<int32_t, 2>({cols}, {rows}), " \
                    f"array<int32_t, 2>{{1, {row}}})", False
    if role != "B":
        raise em.unsupported(op, f"mpp.matmul2d operand {role} is column-major (only B may be "
                                 "transposed: transpose_right)")
    return ptr, f"{t}({ptr}, dextents<int32_t, 2>({rows}, {cols}), " \
                f"array<int32_t, 2>{{1, {col}}})", True


@dataclass
class _Direct:
    """A direct operand as printed: its extents, validity and element access."""

    extents: tuple[str, str]
    """C names of the actual row and column extents (``int``)."""
    inside: str
    """C condition that the window's origin lies inside its buffer."""
    ptr: str
    """C expression of the buffer's base pointer."""
    first: str
    """C expression of the element offset of the window's (0, 0) (possibly outside)."""
    steps: tuple[str, str]
    """C expressions of the element steps of a row and of a column."""
    valid: list[tuple[int, str, str]]
    """Per bounded coordinate: (view axis or -1, origin, extent) as C expressions."""

    def element(self, row: str, col: str) -> str:
        """The element at (``row``, ``col``) of the window, +0.0f outside it."""
        conds = []
        for axis, o, ext in self.valid:
            x = o if axis < 0 else f"{o} + {(row, col)[axis]}"
            conds.append(f"({x}) >= 0 && ({x}) < {ext}")
        at = f"{self.ptr}[{self.first} + (int64_t){row} * {self.steps[0]} + " \
             f"(int64_t){col} * {self.steps[1]}]"
        return f"(({' && '.join(conds)}) ? {at} : 0.0f)" if conds else at


def _direct(em: Any, op: ir.Operation, role: str, v: ir.Value, rows: int, cols: int,
            tag: str) -> _Direct:
    """Prints the extents of a direct operand's window; returns how to read it."""
    ref = em.memref(v, op)
    why = None
    if ref.space != "global" or ref.dtype is not ir.f32 or ref.swizzle:
        why = f"on {ref.space} {ref.dtype} memory"
    axes = unit_projection(ref.map) if why is None else None
    if why is None and (axes is None or sorted(a for a in axes if a >= 0) != [0, 1]):
        why = "its window is not a unit-step projection of the buffer"
    if why is not None:
        raise em.unsupported(op, f"mpp.matmul2d direct operand {role} {why} (a device "
                                 "tensor is an f32 buffer's pointer, extents and strides)")
    assert axes is not None
    steps = tuple(next(st for a, st in zip(axes, ref.strides) if a == j) for j in (0, 1))
    buf = em.buf
    limits: list[list[str]] = [[str(rows)], [str(cols)]]
    inside = []
    valid = []
    zero = [ir.const(0), ir.const(0)]
    for lv in ref.levels:
        iw = IndexWriter(_pad(lv.sym_ranges, len(lv.syms)))
        lv_axes = unit_projection(lv.map)
        if lv_axes is None:
            raise em.unsupported(op, f"mpp.matmul2d direct operand {role}: a bound of its "
                                     "window is not a unit-step projection")
        for axis, r, ext in zip(lv_axes, lv.map.results, lv.extents):
            o = em.fresh(f"tc_o{tag}")
            buf.line(f"const int64_t {o} = {iw.expr(r.substitute(zero), lv.syms)[0]};")
            inside.append(f"{o} >= 0 && {o} < {ext}")
            valid.append((axis, o, ext))
            if axis >= 0:
                limits[axis].append(f"{ext} - {o}")
    names = []
    for lims in limits:
        name = em.fresh(f"tc_e{tag}")
        x = lims[0]
        for lim in lims[1:]:
            x = f"min((int64_t)({x}), (int64_t)({lim}))"
        buf.line(f"const int {name} = (int)max((int64_t)0, (int64_t)({x}));")
        names.append(name)
    return _Direct((names[0], names[1]), " && ".join(inside) or "true", ref.ptr,
                   em.access.address_of_first(ref), (str(steps[0]), str(steps[1])), valid)


_DEVICE_TENSOR = "tensor<device const float, dextents<int32_t, 2>, tensor_inline>"
"""The type of a direct operand's tensor."""


def _device_tensor(em: Any, op: ir.Operation, d: _Direct, role: str) -> tuple[str, bool]:
    """The ``tensor<device ...>(...)`` expression of a direct operand, and whether it is
    passed transposed (a K-major B)."""
    rows, cols = d.extents
    ptr = f"{d.ptr} + {d.first}"
    if d.steps[1] == "1":
        return f"{_DEVICE_TENSOR}({ptr}, dextents<int32_t, 2>({cols}, {rows}), " \
               f"array<int32_t, 2>{{1, (int32_t)({d.steps[0]})}})", False
    if d.steps[0] != "1" or role != "B":
        raise em.unsupported(op, f"mpp.matmul2d direct operand {role} is not row-major (only "
                                 "B may be transposed: transpose_right)")
    return f"{_DEVICE_TENSOR}({ptr}, dextents<int32_t, 2>({rows}, {cols}), " \
           f"array<int32_t, 2>{{1, (int32_t)({d.steps[1]})}})", True


def _emit_direct(em: Any, op: ir.Operation, m: int, n: int, k: int, exec_scope: str,
                 c_ptr: str, ldc: int) -> None:
    """Print one direct ``mpp.matmul2d`` (module docstring)."""
    a_v, b_v, _ = op.operands
    buf = em.buf
    u = em.fresh("")
    desc, opn, a, b, c = (f"tc_{x}{u}" for x in ("desc", "op", "ta", "tb", "ct"))
    buf.line("{")
    with buf.indent():
        da = _direct(em, op, "A", a_v, m, k, "a")
        db = _direct(em, op, "B", b_v, k, n, "b")
        ta, _ = _device_tensor(em, op, da, "A")
        tb, b_t = _device_tensor(em, op, db, "B")
        kk = str(k) if k % DYNAMIC_K_STEP == 0 else "mpp::tensor_ops::dynamic_length_v<int>"
        buf.line(f"constexpr auto {desc} = mpp::tensor_ops::matmul2d_descriptor({m}, {n}, {kk}, "
                 f"false, {'true' if b_t else 'false'}, false, "
                 "mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);")
        buf.line(f"mpp::tensor_ops::matmul2d<{desc}, {exec_scope}> {opn};")
        buf.line(f"auto {c} = {opn}.get_destination_cooperative_tensor<{_DEVICE_TENSOR}, "
                 f"{_DEVICE_TENSOR}, float>();")
        _each(buf, c, lambda at: f"{c}[i] = ({c_ptr})[{at}[1] * {ldc} + {at}[0]];")
        (am, ak), (bk, bn) = da.extents, db.extents
        run = f"{da.inside} && {db.inside} && {am} > 0 && {ak} > 0 && {bn} > 0 && {ak} == {bk}"
        buf.line(f"if ({run}) {{")
        with buf.indent():
            buf.line(f"auto {a} = {ta};")
            buf.line(f"auto {b} = {tb};")
            buf.line(f"{opn}.run({a}, {b}, {c});")
        buf.line("} else {")
        with buf.indent():
            buf.line("/* an empty or uneven rectangle: each lane sums its own elements over K "
                     "(+0.0 outside the windows) */")

            def scalar(at: str) -> str:
                x, y = da.element(f"{at}[1]", "kk"), db.element("kk", f"{at}[0]")
                return (f"for (int kk = 0; kk < {k}; ++kk) {{ const float p = {x} * {y}; "
                        f"{c}[i] = {c}[i] + p; }}")

            _each(buf, c, scalar)
        buf.line("}")
        _each(buf, c, lambda at: f"({c_ptr})[{at}[1] * {ldc} + {at}[0]] = {c}[i];")
    buf.line("}")


def _each(buf: Any, c: str, body: Any) -> None:
    """``for`` every valid element ``i`` of cooperative tensor ``c``: ``body(coordinates)``."""
    buf.line(f"for (uint16_t i = 0; i < {c}.get_capacity(); ++i) {{")
    with buf.indent():
        buf.line(f"if (!{c}.is_valid_element(i)) continue;")
        buf.line(f"auto at = {c}.get_multidimensional_index(i);")
        buf.line(body("at"))
    buf.line("}")


@dataclass(frozen=True)
class Destination:
    """A resident cooperative destination at emission time (``mpp.dest.load`` / ``mpp.run``
    results and the loop-carried local holding them)."""

    name: str
    """The MSL local (``auto``: the type of ``get_destination_cooperative_tensor``)."""


_STAGED_TENSOR = "tensor<threadgroup float, dextents<int32_t, 2>, tensor_inline>"
"""The type of a staged operand's tensor."""


def _execution_scope(em: Any, op: ir.Operation) -> str:
    """The ``matmul2d`` execution scope of an atom's ``scope`` attribute: one simdgroup
    (``subgroup``) or the ``subgroups`` simdgroups of the threadgroup (``group``)."""
    scope = op.attr("scope")
    if scope == "subgroup":
        return "execution_simdgroup"
    if scope == "group":
        return f"execution_simdgroups<{int(op.attr('subgroups'))}>"
    raise em.unsupported(op, f"{op.attr('catalog_id')} of unknown scope {scope!r}")


def _operation(em: Any, op: ir.Operation) -> tuple[str, str]:
    """Prints the descriptor and the ``matmul2d`` object a resident destination's atom
    names (the same type on its three atoms: their attributes are equal); returns the
    object's name and the ``get_destination_cooperative_tensor`` call."""
    m, n, k = (int(op.attr(x)) for x in "mnk")
    exec_scope = _execution_scope(em, op)
    kk = str(k) if k % DYNAMIC_K_STEP == 0 else "mpp::tensor_ops::dynamic_length_v<int>"
    u = em.fresh("")
    desc, opn = f"tc_desc{u}", f"tc_op{u}"
    em.buf.line(f"constexpr auto {desc} = mpp::tensor_ops::matmul2d_descriptor({m}, {n}, {kk}, "
                f"false, {'true' if op.attr('transpose_b') else 'false'}, false, "
                "mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate);")
    em.buf.line(f"mpp::tensor_ops::matmul2d<{desc}, {exec_scope}> {opn};")
    return opn, (f"{opn}.get_destination_cooperative_tensor<{_STAGED_TENSOR}, "
                 f"{_STAGED_TENSOR}, float>()")


def _c_block(em: Any, op: ir.Operation) -> tuple[str, int]:
    """(pointer to the first element, row stride) of a destination's C view."""
    c_ref = em.memref(op.operand(0), op)
    if c_ref.space != "shared" or c_ref.dtype is not ir.f32 or c_ref.levels:
        raise em.unsupported(op, f"{op.attr('catalog_id')}'s C must be a total f32 "
                                 "threadgroup view")
    steps = _steps(c_ref)
    if steps is None or steps[1] != 1:
        raise em.unsupported(op, f"{op.attr('catalog_id')}'s C must be row-major with a "
                                 "constant stride")
    return f"{c_ref.ptr} + {c_ref.at(em.access.address_of_first(c_ref))}", steps[0]


def _destination(em: Any, v: ir.Value, op: ir.Operation) -> str:
    d = em.get(v, op)
    if not isinstance(d, Destination):
        raise em.unsupported(op, f"{op.attr('catalog_id')} needs a cooperative destination, "
                                 f"got {type(d).__name__}")
    return d.name


def emit_resident_atom(em: Any, op: ir.Operation) -> None:
    """Print ``mpp.dest.load``, ``mpp.run`` or ``mpp.dest.store`` (a destination resident
    across a K loop: ``lower/machine_mpp.py``). The destination is an ``auto`` local of the
    cooperative tensor type; ``mpp.run`` updates it in place, so its operand may have no
    other use."""
    cid = op.attr("catalog_id")
    buf = em.buf
    if cid == "mpp.dest.load":
        ptr, ldc = _c_block(em, op)
        name = em.name_of(op.result)
        buf.line("/* the cooperative destination, resident until mpp.dest.store */")
        _, call = _operation(em, op)
        buf.line(f"auto {name} = {call};")
        _each(buf, name, lambda at: f"{name}[i] = ({ptr})[{at}[1] * {ldc} + {at}[0]];")
        em.bind(op.result, Destination(name))
    elif cid == "mpp.run":
        a_v, b_v, d_v = op.operands
        d = _destination(em, d_v, op)
        if len(list(d_v.uses)) != 1:
            raise em.unsupported(op, "mpp.run updates its destination in place: the operand "
                                     "may have no other use")
        m, n, k = (int(op.attr(x)) for x in "mnk")
        _, ta, _ = _tensor(em, op, "A", a_v, m, k)
        _, tb, b_t = _tensor(em, op, "B", b_v, k, n)
        if b_t != bool(op.attr("transpose_b")):
            raise em.unsupported(op, "mpp.run: B's layout does not match the destination's "
                                     "descriptor (transpose_b)")
        buf.line("{")
        with buf.indent():
            opn, _ = _operation(em, op)
            u = em.fresh("")
            buf.line(f"auto tc_ta{u} = {ta};")
            buf.line(f"auto tc_tb{u} = {tb};")
            buf.line(f"{opn}.run(tc_ta{u}, tc_tb{u}, {d});")
        buf.line("}")
        em.bind(op.result, Destination(d))
    elif cid == "mpp.dest.capacity":
        d = _destination(em, op.operand(0), op)
        var = em.name_of(op.result)
        it = em.ctype(ir.index)
        buf.line(f"const {it} {var} = ({it}){d}.get_capacity();")
        em.bind(op.result, Scalar(var, ir.index))
    elif cid == "mpp.dest.element":
        _element(em, op)
    else:
        ptr, ldc = _c_block(em, op)
        d = _destination(em, op.operand(1), op)
        _each(buf, d, lambda at: f"({ptr})[{at}[1] * {ldc} + {at}[0]] = {d}[i];")


def _element(em: Any, op: ir.Operation) -> None:
    """``mpp.dest.element``: one slot of this lane's share of the destination, through its
    own coordinates (``get_multidimensional_index``: dimension 0 is the column), read only
    where ``is_valid_element`` says the slot holds an element."""
    d = _destination(em, op.operand(0), op)
    i = f"(uint16_t)({em.scalar(op.operand(1), op)})"
    ok_v, row_v, col_v, val_v = op.results
    it = em.ctype(ir.index)
    ok, row, col = (em.name_of(v) for v in (ok_v, row_v, col_v))
    val = em.new_regs(val_v, op)
    buf = em.buf
    buf.line(f"const bool {ok}_b = {d}.is_valid_element({i});")
    buf.line(f"const uint8_t {ok} = (uint8_t){ok}_b;")
    buf.line(f"{it} {row} = 0, {col} = 0;")
    buf.line(f"{val.name}[0] = 0.0f;")
    buf.line(f"if ({ok}_b) {{")
    with buf.indent():
        buf.line(f"auto at = {d}.get_multidimensional_index({i});")
        buf.line(f"{row} = ({it})at[1];")
        buf.line(f"{col} = ({it})at[0];")
        buf.line(f"{val.name}[0] = {d}[{i}];")
    buf.line("}")
    em.bind(ok_v, Scalar(ok, ir.i1))
    em.bind(row_v, Scalar(row, ir.index))
    em.bind(col_v, Scalar(col, ir.index))
    em.bind(val_v, val)


def emit_mpp_atom(em: Any, op: ir.Operation) -> None:
    """Print one ``mpp.matmul2d`` (module docstring)."""
    if op.attr("catalog_id") != "mpp.matmul2d":
        emit_resident_atom(em, op)
        return
    m, n, k = (int(op.attr(x)) for x in "mnk")
    exec_scope = _execution_scope(em, op)
    a_v, b_v, c_v = op.operands
    c_ref = em.memref(c_v, op)
    if c_ref.space != "shared" or c_ref.dtype is not ir.f32 or c_ref.levels:
        raise em.unsupported(op, "mpp.matmul2d's C must be a total f32 threadgroup view")
    c_steps = _steps(c_ref)
    if c_steps is None or c_steps[1] != 1:
        raise em.unsupported(op, "mpp.matmul2d's C must be row-major with a constant stride")
    c_ptr = f"{c_ref.ptr} + {c_ref.at(em.access.address_of_first(c_ref))}"
    ldc = c_steps[0]
    if em.memref(a_v, op).space == "global":
        _emit_direct(em, op, m, n, k, exec_scope, c_ptr, ldc)
        return
    _, ta, _ = _tensor(em, op, "A", a_v, m, k)
    _, tb, b_t = _tensor(em, op, "B", b_v, k, n)
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
