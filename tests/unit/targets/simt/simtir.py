"""Small Machine TileIR kernels written as text for the simulator tests (not part of tilec).

``machine(body, ...)`` wraps lane-level IR text in the lowering.md skeleton
(a grid ``parallel`` with ``threads``, optional group-level shared memory, a
lane ``parallel`` over ``%tid``) and parses it. Every operation is then
located at its line of the printed module, which is registered with
``linecache`` so diagnostics show a caret snippet, and tests can check which
operation a message names. The body may use ``%p`` (group), ``%tid`` and the
predefined ``%c0 %c1 %c2 %c4 %c16 %c32 %c64 %lane %warp``.
"""

from __future__ import annotations

import itertools
import linecache

import numpy as np

import tilec.ir as ir

_PRELUDE = """
%c0 = constant() {value = 0} : index
%c1 = constant() {value = 1} : index
%c2 = constant() {value = 2} : index
%c4 = constant() {value = 4} : index
%c16 = constant() {value = 16} : index
%c32 = constant() {value = 32} : index
%c64 = constant() {value = 64} : index
%lane = arith(%tid, %c32) {fn = "rem"} : index
%warp = arith(%tid, %c32) {fn = "floordiv"} : index
"""

_counter = itertools.count()


def _indent(text: str, depth: int) -> str:
    return "\n".join("  " * depth + line.strip() for line in text.strip().splitlines())


def machine(body: str, params: str = "%out: mem<128xf32, global>", *, threads: int = 128,
            groups: int = 1, shared: str = "", symbols: tuple[str, ...] = (),
            bindings: tuple[tuple[int, int], ...] | None = None, form: str = "machine"
            ) -> ir.Module:
    """A one-function module ``@k`` whose lane-level body is ``body``."""
    attrs = [f'form = "{form}"', 'target = "cuda:sm_90"', "kernel = true",
             "shape_symbols = [" + ", ".join(f'"{s}"' for s in symbols) + "]"]
    if bindings is not None:
        attrs.append("shape_bindings = [" + ", ".join(f"[{p}, {a}]" for p, a in bindings) + "]")
    sym_params = "".join(f", %{s}: index" for s in symbols)
    text = "\n".join([
        "module {",
        f"  func @k({params}{sym_params}) -> () {{{', '.join(attrs)}}} {{",
        f"    %ng = constant() {{value = {groups}}} : index",
        f'    parallel(%ng) {{level = "grid", rank = 1, threads = {threads}}} ({{',
        "    ^bb1(%p: index):",
        _indent(shared, 3) if shared.strip() else "",
        f"      %nt = constant() {{value = {threads}}} : index",
        '      parallel(%nt) {level = "lane", rank = 1} ({',
        "      ^bb2(%tid: index):",
        _indent(_PRELUDE, 4),
        _indent(body, 4),
        "        yield()",
        "      })",
        "      yield()",
        "    })",
        "    return()",
        "  }",
        "}",
    ])
    module = ir.parse(text)
    locate(module)
    return module


def locate(module: ir.Module) -> str:
    """Give every operation the location of its line in the printed module; return the name."""
    printer = ir.Printer()
    printer.module(module)
    text = printer.text()
    name = f"<simt-test-{next(_counter)}>.tir"
    lines = text.splitlines(keepends=True)
    linecache.cache[name] = (len(text), None, lines, name)
    for op in module.walk():
        line = printer.op_lines[op.id]
        col = len(lines[line]) - len(lines[line].lstrip())
        op.loc = ir.Location(name, line + 1, col)
    return name


def find(module: ir.Module, name: str, **attrs: object) -> list[ir.Operation]:
    """The operations named ``name`` (with these attribute values), in walk order."""
    return [op for op in module.walk()
            if op.name == name and all(op.attr(k) == v for k, v in attrs.items())]


def poisoned(*shape: int) -> np.ndarray:
    """A NaN-filled f32 output."""
    return np.full(shape, np.nan, np.float32)
