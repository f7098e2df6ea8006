"""Recording, at build time, what a ``tirx:cuda`` launch needs from TVM's split module.

``tvm.compile`` runs TVM's ``SplitHostDevice``, which cuts the bridge's GPU PrimFunc into a
host function and one device kernel (``<name>_kernel``). ``capture`` keeps the module right
after that pass (a ``PassInstrument`` for the length of the build), and ``record_launch``
reads it:

* the device kernel's symbol and its parameters in TVM's order, each with its C type
  (``handle`` for a buffer's address, ``int32``, ``int64``, ``float32`` ...): TVM passes
  the buffers, the shape symbols and the scalars its common subexpression elimination
  hoisted out of the kernel;
* the host function's body as a ``hostcode`` program: its scalar bindings, the ``if``
  around the launch and the launch itself (the kernel's arguments and the extents of
  ``blockIdx.x`` and ``threadIdx.x``, the bridge's one launch: ``gpu.launch``).

Anything else on the host (a loop, a store, an assertion, an extern call, a launch tag
other than the block and thread indices, a second launch) is refused with the construct,
never approximated: the launcher evaluates exactly what TVM would have run.

``self_contained`` makes TVM's CUDA source compile with NVRTC alone: TVM's NVRTC branch
includes libcu++ headers (``<cuda/std/cstdint>``) and its kernels may include
``<math_constants.h>``, which need the CUDA toolkit's include directories; under NVRTC the
branch becomes the fixed-width typedefs tilec's own prelude uses and the constants their
values (the nvcc branch is unchanged). Any other header NVRTC cannot find fails the build
with NVRTC's message.
"""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Iterator
from typing import Any

from tilec.targets.clike import UnsupportedError
from tilec.targets.cuda.prelude import FIXED_WIDTH_TYPES

from .hostcode import check_program

__all__ = ["capture", "record_launch", "self_contained", "LAUNCH_TAGS"]

LAUNCH_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
               "threadIdx.z")
"""The launch parameters a recorded launch may name (no dynamic shared memory, no
cluster dimensions: the bridge's GPU form uses neither)."""

_SPLIT = "tirx.SplitHostDevice"


@contextlib.contextmanager
def capture() -> Iterator[dict[str, Any]]:
    """A dict that holds ``"module"``, the IRModule right after ``SplitHostDevice``, once the
    ``tvm.compile`` run inside the block is done."""
    import tvm

    got: dict[str, Any] = {}

    @tvm.instrument.pass_instrument
    class _Keep:
        def run_after_pass(self, mod: Any, info: Any) -> None:
            if info.name == _SPLIT:
                got["module"] = mod

    with tvm.transform.PassContext(instruments=[_Keep()]):
        yield got


_BIN = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Mod": "mod",
        "FloorDiv": "floordiv", "FloorMod": "floormod", "Min": "min", "Max": "max",
        "EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge", "And": "and",
        "Or": "or", "BitwiseAnd": "bitand", "BitwiseOr": "bitor", "BitwiseXor": "bitxor",
        "LShift": "shl", "RShift": "shr"}
_CALL_BIN = {"tirx.bitwise_and": "bitand", "tirx.bitwise_or": "bitor",
             "tirx.bitwise_xor": "bitxor", "tirx.shift_left": "shl", "tirx.shift_right": "shr"}
_CALLS = {"tirx.reinterpret": "reinterpret", "tirx.isnan": "isnan", "tirx.isinf": "isinf",
          "tirx.isfinite": "isfinite", "tirx.bitwise_not": "bitwise_not",
          "tirx.if_then_else": "if_then_else"}


def _dtype(x: Any) -> str:
    ty = x.ty
    return str(getattr(ty, "dtype", ty))


class _Reader:
    """Translates the host function into a ``hostcode`` program."""

    def __init__(self, host: Any, target: str, fn_name: str) -> None:
        self.target = target
        self.fn_name = fn_name
        self.vars: list[tuple[Any, int]] = []
        """Each variable seen with its number (TVM objects compared with ``same_as``)."""
        self.names: dict[str, int] = {}
        """The parameters by name (a buffer's data is read through its parameter)."""
        self.dtypes: list[str] = []
        """Per parameter: ``handle`` for a buffer, else its scalar dtype."""
        for k, p in enumerate(host.params):
            self.vars.append((p, k))
            if p.name in self.names:
                raise self.refuse(f"two parameters named {p.name!r}")
            self.names[p.name] = k
            self.dtypes.append("handle" if type(p.ty).__name__ == "BufferType"
                               else _dtype(p))
        self.launches: list[tuple[str, list[str], int]] = []
        """Per launch: the kernel's symbol, its launch tags, its argument count."""

    def refuse(self, what: str) -> UnsupportedError:
        return UnsupportedError(self.target, None, f"TVM's host code for @{self.fn_name} "
                                                   f"holds {what}, which the launch record "
                                                   f"cannot hold")

    def var(self, v: Any, bind: bool = False) -> int:
        for known, k in self.vars:
            if known.same_as(v):
                if bind:
                    raise self.refuse(f"a second binding of {v.name}")
                return k
        if not bind:
            raise self.refuse(f"a read of {v.name} before it is bound")
        k = len(self.vars)
        self.vars.append((v, k))
        return k

    def expr(self, e: Any) -> list[Any]:
        from tvm import tirx as tx

        kind = type(e).__name__
        if isinstance(e, tx.IntImm):
            return ["int", _dtype(e), int(e.value)]
        if isinstance(e, tx.FloatImm):
            return ["float", _dtype(e), float(e.value).hex()]
        if kind == "Var":
            return ["var", self.var(e)]
        if kind == "Cast":
            return ["cast", _dtype(e), self.expr(e.value)]
        if kind in _BIN:
            return ["bin", _BIN[kind], _dtype(e.a), self.expr(e.a), self.expr(e.b)]
        if kind == "Not":
            return ["not", self.expr(e.a)]
        if kind == "BitwiseNot":
            return ["call", "bitwise_not", _dtype(e), [self.expr(e.a)]]
        if kind == "Select":
            return ["select", self.expr(e.condition), self.expr(e.true_value),
                    self.expr(e.false_value)]
        if kind == "Let":
            value = self.expr(e.value)
            return ["let", self.var(e.var, bind=True), value, self.expr(e.body)]
        if kind == "Call":
            name = e.op.name
            if name in _CALL_BIN:
                a, b = e.args
                return ["bin", _CALL_BIN[name], _dtype(a), self.expr(a), self.expr(b)]
            if name in _CALLS:
                return ["call", _CALLS[name], _dtype(e), [self.expr(a) for a in e.args]]
            if name == "tirx.buffer_data":
                p = e.args[0]
                k = self.names.get(p.name)
                if k is None or self.dtypes[k] != "handle":
                    raise self.refuse(f"the data of {p.name}, which is not a parameter")
                return ["var", k]
            raise self.refuse(f"a call of {name}")
        raise self.refuse(f"an expression {kind} ({str(e)[:80]})")

    def stmts(self, s: Any) -> list[Any]:
        kind = type(s).__name__
        if kind == "SeqStmt":
            return [x for part in s.seq for x in self.stmts(part)]
        if kind == "DeclBuffer":  # a flattened view of a parameter: its data is the parameter's
            return []
        if kind == "Bind":
            value = self.expr(s.value)
            return [["let", self.var(s.var, bind=True), _dtype(s.var), value]]
        if kind == "IfThenElse":
            cond = self.expr(s.condition)
            then = self.stmts(s.then_case)
            other = self.stmts(s.else_case) if s.else_case is not None else []
            return [["if", cond, then, other]]
        if kind == "Evaluate":
            e = s.value
            if type(e).__name__ == "Call" and e.op.name == "tirx.call_ffi_kernel":
                return [self.launch(e)]
            if type(e).__name__ == "IntImm":  # a no-op
                return []
        raise self.refuse(f"a statement {kind} ({str(s)[:80]})")

    def launch(self, e: Any) -> list[Any]:
        tags = [str(t) for t in e.attrs.launch_params]
        bad = [t for t in tags if t not in LAUNCH_TAGS]
        if bad:
            raise self.refuse(f"a launch with {', '.join(bad)}")
        symbol = str(e.args[0].value)
        args = list(e.args[1:])
        n = len(args) - len(tags)
        self.launches.append((symbol, tags, n))
        return ["launch", [self.expr(a) for a in args[:n]], [self.expr(a) for a in args[n:]]]


def record_launch(mod: Any, entry: str, target: str, fn_name: str) -> dict[str, Any]:
    """The launch part of a record from the module after ``SplitHostDevice``: ``kernel``
    (the device symbol), ``kernel_params`` (its parameters' dtypes), ``launch_tags``,
    ``inputs`` (the host function's parameters' dtypes) and ``host`` (the program)."""
    funcs = {gv.name_hint: f for gv, f in mod.functions.items()}
    host = funcs.get(entry)
    if host is None:
        raise UnsupportedError(target, None, f"TVM's split module for @{fn_name} has no host "
                                             f"function {entry!r}")
    reader = _Reader(host, target, fn_name)
    program = reader.stmts(host.body)
    if len(reader.launches) != 1:
        raise reader.refuse(f"{len(reader.launches)} launches (the bridge makes one)")
    symbol, tags, n = reader.launches[0]
    kernel = funcs.get(symbol)
    if kernel is None or len(kernel.params) != n:
        raise reader.refuse(f"a launch of {symbol} whose parameters do not match its call")
    params = ["handle" if "handle" in str(p.ty) else _dtype(p) for p in kernel.params]
    check_program(program)
    return {"kernel": symbol, "kernel_params": params, "launch_tags": tags,
            "inputs": reader.dtypes, "host": program}


_RTC_BEGIN = "#ifdef __CUDACC_RTC__"

SELF_CONTAINED_RTC = """#ifdef __CUDACC_RTC__
  // tilec: fixed-width types without the toolkit's headers (as tilec's own prelude)
""" + textwrap.indent(FIXED_WIDTH_TYPES, "  ") + """  #ifndef __asm__
  #define __asm__ asm
  #endif
  #ifndef __volatile__
  #define __volatile__ volatile
  #endif
  #ifndef INFINITY
  #define INFINITY __int_as_float(0x7f800000)
  #endif
"""
"""What replaces TVM's NVRTC branch (up to its ``#else``)."""

_MATH_CONSTANTS = "#include <math_constants.h>"

MATH_CONSTANTS_RTC = """#ifdef __CUDACC_RTC__
// tilec: the constants of <math_constants.h> TVM prints, without the toolkit's headers
#define CUDART_INF_F __int_as_float(0x7f800000U)
#define CUDART_NAN_F __int_as_float(0x7fffffffU)
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#else
#include <math_constants.h>
#endif"""
"""What replaces TVM's ``#include <math_constants.h>`` (``CUDART_INF_F`` for a max's seed):
the header's values under NVRTC, the header itself under nvcc."""


def self_contained(source: str, target: str, fn_name: str) -> str:
    """TVM's CUDA ``source`` with its NVRTC branch (``#ifdef __CUDACC_RTC__`` up to the
    ``#else`` that opens the nvcc branch) replaced by ``SELF_CONTAINED_RTC``; the nvcc
    branch is kept, so ``nvcc -c`` compiles the text as before."""
    start = source.find(_RTC_BEGIN)
    end = source.find("\n#else", start)
    if start < 0 or end < 0 or "#if" in source[start + len(_RTC_BEGIN):end].replace(
            "#ifndef __asm__", "").replace("#ifndef __volatile__", ""):
        raise UnsupportedError(target, None, f"TVM's CUDA source for @{fn_name} has no NVRTC "
                                             f"branch the bridge recognizes (its header "
                                             f"changed); it cannot be made self-contained")
    out = source[:start] + SELF_CONTAINED_RTC + source[end + 1:]
    return "\n".join(MATH_CONSTANTS_RTC if line.strip() == _MATH_CONSTANTS else line
                     for line in out.split("\n"))
