"""The CUDA kernel's calling convention: parameters, and the host steps that size the grid.

``bind_params`` declares the kernel's parameters (a ``mem`` parameter as a
``T *__restrict__``, ``const`` when never written; scalars by value; one
``int64_t`` per shape symbol and per other runtime extent) and binds each to its
form; ``host_step`` records a scalar operation before the grid for the launcher.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tilec.ir as ir
from tilec.ir.ranges import is_int_division
from tilec.targets.clike import Scalar, prod
from tilec.targets.cuda.access import MemRef
from tilec.targets.cuda.source import HostStep, ParamInfo
from tilec.targets.interop_checks import written_parameters
from tilec.targets.kernel_checks import CheckInfo

if TYPE_CHECKING:
    from tilec.targets.cuda.emitter import CUDAEmitter

__all__ = ["bind_params", "host_step", "grid_bound"]


def bind_params(em: CUDAEmitter) -> tuple[list[ParamInfo], list[str]]:
    """The kernel's parameters (what the launcher passes) and their C declarations, in
    order; each parameter is bound to its form, and the strides of each memory parameter
    are computed in ``em.prologue``."""
    fn = em.fn
    pro = em.prologue
    symbols = fn.shape_symbols
    n_user = len(fn.args) - len(symbols)
    if n_user < 0:
        raise em.unsupported(None, f"@{fn.name} declares {len(symbols)} shape symbols but "
                                     f"has only {len(fn.args)} parameters")
    written = written_parameters(fn)
    params: list[ParamInfo] = []
    head: list[str] = []
    for k, name in enumerate(symbols):
        a = fn.args[n_user + k]
        if a.type is not ir.index:
            raise em.unsupported(None, f"shape symbol {name} must be an index parameter")
        em.sym_vars[name] = em.name_of(a)
        em.sizes.add(em.name_of(a))
        em.bind(a, Scalar(em.name_of(a), ir.index))
    extra: list[tuple[str, ParamInfo]] = []
    for i, a in enumerate(fn.args[:n_user]):
        t = a.type
        hint = a.name_hint or f"arg{i}"
        if isinstance(t, ir.MemoryType):
            if t.space != "global":
                raise em.unsupported(None, f"parameter {hint} is {t.space} memory; kernel "
                                             "parameters are global")
            ptr = em.name_of(a)
            em.param_index[ptr] = i
            w = i in written
            mt = em.mtype(t.dtype)
            head.append(em.mem_param(mt, ptr, w))
            extents: list[str] = []
            for axis, dim in enumerate(t.shape):
                if dim.is_static:
                    extents.append(str(int(dim)))
                elif str(dim.value) in em.sym_vars:
                    extents.append(em.sym_vars[str(dim.value)])
                else:
                    var = em.fresh(f"{ptr}_e")
                    em.sizes.add(var)
                    extra.append((var, ParamInfo("dim", ir.index, (), False,
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
                    var = em.fresh(f"{ptr}_s")
                    # left to right from an int64_t: static extents alone may overflow int
                    wide = "(int64_t)" if rest[0].isdigit() else ""
                    pro.line(f"const int64_t {var} = {wide}{' * '.join(rest)};")
                    strides.append(var)
                sdivs.append(static)
            flag = f"tc_al_{ptr}"
            pro.line(f"const bool {flag} = {em.aligned_flag(ptr)};")
            em.bind(a, MemRef(ptr, t.dtype, "global", tuple(extents),
                                ir.IndexMap.identity(t.rank), (), (), tuple(strides),
                                tuple(sdivs), (), flag, a))
            params.append(ParamInfo("mem", t.dtype, t.shape, w, hint))
        elif isinstance(t, ir.ScalarType):
            var = em.name_of(a)
            head.append(em.value_param(em.ctype(t), var))
            em.bind(a, Scalar(var, t))
            params.append(ParamInfo("scalar", t, (), False, hint))
        else:
            raise em.unsupported(None, f"parameter {hint} of @{fn.name} has type {t}; the "
                                         "CUDA backend takes memories and scalars")
    for name in symbols:
        head.append(em.value_param("int64_t", em.sym_vars[name]))
        params.append(ParamInfo("symbol", ir.index, (), False, name))
    for var, info in extra:
        head.append(em.value_param("int64_t", var))
        params.append(info)
    return params, head


def host_step(em: CUDAEmitter, op: ir.Operation, steps: list[HostStep], keys: dict[int, int]
               ) -> None:
    """Append scalar ``op`` before the grid to the host's ``steps`` when the host can
    evaluate it (a constant, or integer arithmetic on parameters and earlier steps)."""
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


def grid_bound(rank: int, k: int) -> int:
    """An exclusive bound of grid coordinate ``k``: ``gridDim.x`` is below ``2**31``,
    ``y`` and ``z`` at most 65535; a grid of rank above 3 is linearized onto ``x``."""
    return (1 << 31) - 1 if rank > 3 or k == rank - 1 else 65535
