# ruff: noqa: E501
# (the textual IR lines below are long by nature)
"""Hand-written Machine TileIR kernels for the CUDA backend's tests (docs/design/lowering.md).

Each sample is the textual IR of one Machine function (``form = "machine"``):
a grid ``parallel`` with ``threads = T``, per-group shared memory, one lane
``parallel`` and per-lane code over register tiles, with ``atom.call`` from
``tilec.ir.atoms``. ``SAMPLES`` maps a name to ``(builder, reference)``:
``builder()`` returns the parsed module, ``reference(*arrays)`` the numpy
result the kernel must write into its last array argument; ``make_args(rng)``
builds inputs (ragged shapes, so every guard is exercised).

They stand in for the lowering's output (``tilec.lower.lower_to_machine``)
until it lands, and keep testing the emitter against fixed inputs after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

import tilec.ir as ir

__all__ = ["Sample", "SAMPLES", "sample", "add_f32", "add_bf16", "softmax_rows",
           "gemm_mma_bf16", "gemm_mma_tf32", "gemm_smem_bf16", "gemm_ffma_f32",
           "gemm_ffma_strict_f32", "smem_big"]

BF16 = ml_dtypes.bfloat16


@dataclass(frozen=True)
class Sample:
    """A Machine kernel with inputs and a numpy oracle."""

    name: str
    """The function's name."""
    text: str
    """Its textual Machine TileIR."""
    make_args: Callable[[np.random.Generator], list[np.ndarray]]
    """Inputs then the output array (the output's contents are overwritten)."""
    reference: Callable[..., np.ndarray]
    """The expected output from the inputs."""
    rtol: float = 0.0
    """Relative tolerance (0: bit-exact)."""
    atol: float = 0.0
    """Absolute tolerance."""

    def module(self) -> ir.Module:
        """The parsed module."""
        return ir.parse(self.text)


def _fn(name: str, params: str, symbols: list[str], body: str) -> str:
    syms = ", ".join(f'"{s}"' for s in symbols)
    return (f"module {{\n  func @{name}({params}) -> () {{form = \"machine\", "
            f"shape_symbols = [{syms}], target = \"cuda:sm_90\"}} {{\n{body}\n    return()\n"
            "  }\n}\n")


# ----------------------------------------------------------------------- elementwise add


def _add_text(name: str, dt: str, v: int) -> str:
    chunk = 128 * v
    return _fn(name, f"%A: mem<nx{dt}, global>, %B: mem<nx{dt}, global>, "
               f"%C: mem<nx{dt}, global>, %n: index", ["n"], f"""
    %cw = constant() {{value = {chunk}}} : index
    %g = arith(%n, %cw) {{fn = "cdiv"}} : index
    parallel(%g) {{level = "grid", rank = 1, threads = 128}} ({{
    ^bb1(%p: index):
      %c128 = constant() {{value = 128}} : index
      parallel(%c128) {{level = "lane", rank = 1}} ({{
      ^bb2(%tid: index):
        %cv = constant() {{value = {v}}} : index
        %tv = arith(%tid, %cv) {{fn = "mul"}} : index
        %base = arith(%p, %cw) {{fn = "mul"}} : index
        %off = arith(%base, %tv) {{fn = "add"}} : index
        %va = view(%A, %off) {{bounds = "bounded", map = #map<(d0)[s0] -> (d0 + s0)>}} : mem<{v}x{dt}, global>
        %a = load(%va) : tile<{v}x{dt}>
        %vb = view(%B, %off) {{bounds = "bounded", map = #map<(d0)[s0] -> (d0 + s0)>}} : mem<{v}x{dt}, global>
        %b = load(%vb) : tile<{v}x{dt}>
        %s = map(%a, %b) {{shape = #domain<[{v}]>}} ({{
        ^bb3(%x: {dt}, %y: {dt}):
          %z = arith(%x, %y) {{fn = "add"}} : {dt}
          yield(%z)
        }}) : tile<{v}x{dt}>
        %vc = view(%C, %off) {{bounds = "bounded", map = #map<(d0)[s0] -> (d0 + s0)>}} : mem<{v}x{dt}, global>
        store(%vc, %s)
        yield()
      }})
      yield()
    }})""")


def _add_args(dt: Any) -> Callable[[np.random.Generator], list[np.ndarray]]:
    def make(rng: np.random.Generator) -> list[np.ndarray]:
        n = 5000 + 3
        a = rng.standard_normal(n).astype(dt)
        b = rng.standard_normal(n).astype(dt)
        return [a, b, np.zeros(n, dt)]
    return make


def _add_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype)


add_f32 = Sample("add_f32", _add_text("add_f32", "f32", 4), _add_args(np.float32), _add_ref)
"""C = A + B on f32: 4 registers per thread, one 16-byte access each."""

add_bf16 = Sample("add_bf16", _add_text("add_bf16", "bf16", 8), _add_args(BF16), _add_ref)
"""C = A + B on bf16: 8 registers per thread (16 bytes), computed in f32, rounded once."""


# ----------------------------------------------------------------------- row softmax


def _shfl_tree(src: str, fn: str, tag: str) -> tuple[str, str]:
    lines = []
    cur = src
    for k, mask in enumerate((16, 8, 4, 2, 1)):
        lines.append(f"""
        %{tag}m{k} = constant() {{value = {mask}}} : index
        %{tag}o{k} = atom.call(%{cur}, %{tag}m{k}) {{catalog_id = "shfl.xor"}} : tile<f32>
        %{tag}r{k} = map(%{cur}, %{tag}o{k}) {{shape = #domain<[]>}} ({{
        ^bb{tag}{k}(%{tag}x{k}: f32, %{tag}y{k}: f32):
          %{tag}z{k} = arith(%{tag}x{k}, %{tag}y{k}) {{fn = "{fn}"}} : f32
          yield(%{tag}z{k})
        }}) : tile<f32>""")
        cur = f"{tag}r{k}"
    return "".join(lines).replace("^bb", "^b"), cur


def _softmax_text() -> str:
    mx, mlast = _shfl_tree("m", "max", "q")
    sx, slast = _shfl_tree("s", "add", "w")
    return _fn("softmax_rows", "%x: mem<Mx128xf32, global>, %y: mem<Mx128xf32, global>, "
               "%M: index", ["M"], f"""
    %c4 = constant() {{value = 4}} : index
    %rows = arith(%M, %c4) {{fn = "cdiv"}} : index
    parallel(%rows) {{level = "grid", rank = 1, threads = 128}} ({{
    ^bb1(%p: index):
      %c128 = constant() {{value = 128}} : index
      parallel(%c128) {{level = "lane", rank = 1}} ({{
      ^bb2(%tid: index):
        %c32 = constant() {{value = 32}} : index
        %warp = arith(%tid, %c32) {{fn = "floordiv"}} : index
        %lane = arith(%tid, %c32) {{fn = "rem"}} : index
        %r0 = arith(%p, %c4) {{fn = "mul"}} : index
        %row = arith(%r0, %warp) {{fn = "add"}} : index
        %col = arith(%lane, %c4) {{fn = "mul"}} : index
        %vx = view(%x, %row, %col) {{bounds = "bounded", map = #map<(d0)[s0, s1] -> (s0, d0 + s1)>}} : mem<4xf32, global>
        %t = load(%vx) {{fill = -inf}} : tile<4xf32>
        %ninf = constant() {{value = -inf}} : f32
        %m = reduce(%t, %ninf) {{axes = [0], combiner = ["max"], n_inputs = 1, policy = #policy<unordered_tree>}} ({{
        ^bb3(%run: f32, %el: f32):
          %mx = arith(%run, %el) {{fn = "max"}} : f32
          yield(%mx)
        }}) : tile<f32>{mx}
        %mb = reindex(%{mlast}) {{map = #map<(d0) -> ()>}} : tile<4xf32>
        %ex = map(%t, %mb) {{shape = #domain<[4]>}} ({{
        ^bb4(%v: f32, %mv: f32):
          %d = arith(%v, %mv) {{fn = "sub"}} : f32
          %e = arith(%d) {{fn = "exp"}} : f32
          yield(%e)
        }}) : tile<4xf32>
        %zero = constant() {{value = 0.0}} : f32
        %s = reduce(%ex, %zero) {{axes = [0], combiner = ["add"], n_inputs = 1, policy = #policy<unordered_tree>}} ({{
        ^bb5(%run2: f32, %el2: f32):
          %sm = arith(%run2, %el2) {{fn = "add"}} : f32
          yield(%sm)
        }}) : tile<f32>{sx}
        %sb = reindex(%{slast}) {{map = #map<(d0) -> ()>}} : tile<4xf32>
        %out = map(%ex, %sb) {{shape = #domain<[4]>}} ({{
        ^bb6(%num: f32, %den: f32):
          %q = arith(%num, %den) {{fn = "div"}} : f32
          yield(%q)
        }}) : tile<4xf32>
        %vy = view(%y, %row, %col) {{bounds = "bounded", map = #map<(d0)[s0, s1] -> (s0, d0 + s1)>}} : mem<4xf32, global>
        store(%vy, %out)
        yield()
      }})
      yield()
    }})""")


def _softmax_args(rng: np.random.Generator) -> list[np.ndarray]:
    m = 37
    x = (rng.standard_normal((m, 128)) * 3).astype(np.float32)
    return [x, np.zeros_like(x)]


def _softmax_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


softmax_rows = Sample("softmax_rows", _softmax_text(), _softmax_args, _softmax_ref, 1e-5, 1e-7)
"""Row softmax over 128 f32 columns: a row per warp, 4 columns per lane, shuffle trees."""


# ----------------------------------------------------------------------- GEMM: mma from global


def _mma_text(name: str, dt: str, atom: str, ka: int, a_map: str, b_map: str, na: int,
              nb: int) -> str:
    return _fn(name, f"%A: mem<MxKx{dt}, global>, %B: mem<KxNx{dt}, global>, "
               "%C: mem<MxNxf32, global>, %M: index, %N: index, %K: index", ["M", "N", "K"], f"""
    %c0 = constant() {{value = 0}} : index
    %c16 = constant() {{value = 16}} : index
    %c8 = constant() {{value = 8}} : index
    %ck = constant() {{value = {ka}}} : index
    %gm = arith(%M, %c16) {{fn = "cdiv"}} : index
    %gn = arith(%N, %c8) {{fn = "cdiv"}} : index
    parallel(%gm, %gn) {{level = "grid", rank = 2, threads = 32}} ({{
    ^bb1(%pm: index, %pn: index):
      %c32 = constant() {{value = 32}} : index
      parallel(%c32) {{level = "lane", rank = 1}} ({{
      ^bb2(%l: index):
        %c4 = constant() {{value = 4}} : index
        %g = arith(%l, %c4) {{fn = "floordiv"}} : index
        %q = arith(%l, %c4) {{fn = "rem"}} : index
        %om = arith(%pm, %c16) {{fn = "mul"}} : index
        %on = arith(%pn, %c8) {{fn = "mul"}} : index
        %acc0 = constant() {{value = 0.0}} : tile<4xf32>
        %acc = serial(%c0, %K, %ck, %acc0) ({{
        ^bb3(%k: index, %c: tile<4xf32>):
          %va = view(%A, %om, %k, %g, %q) {{bounds = "bounded", map = #map<{a_map}>}} : mem<{na}x{dt}, global>
          %a = load(%va) {{fill = 0.0}} : tile<{na}x{dt}>
          %vb = view(%B, %k, %on, %g, %q) {{bounds = "bounded", map = #map<{b_map}>}} : mem<{nb}x{dt}, global>
          %b = load(%vb) {{fill = 0.0}} : tile<{nb}x{dt}>
          %d = atom.call(%a, %b, %c) {{catalog_id = "{atom}"}} : tile<4xf32>
          yield(%d)
        }}) : tile<4xf32>
        %vc = view(%C, %om, %on, %g, %q) {{bounds = "bounded", map = #map<(d0)[s0, s1, s2, s3] -> (s0 + s2 + (d0 floordiv 2) * 8, s1 + s3 * 2 + (d0 mod 2))>}} : mem<4xf32, global>
        store(%vc, %acc)
        yield()
      }})
      yield()
    }})""")


def _gemm_args(dt: Any, m: int, n: int, k: int) -> Callable[[np.random.Generator],
                                                             list[np.ndarray]]:
    def make(rng: np.random.Generator) -> list[np.ndarray]:
        a = rng.standard_normal((m, k)).astype(dt)
        b = rng.standard_normal((k, n)).astype(dt)
        return [a, b, np.zeros((m, n), np.float32)]
    return make


def _gemm_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _tf32(x: np.ndarray) -> np.ndarray:
    """Round f32 to TF32: to nearest, ties away from zero (what cvt.rna.tf32.f32 does)."""
    u = x.astype(np.float32).view(np.uint32)
    r = ((u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).astype(np.uint32)
    keep = (u & np.uint32(0x7F800000)) == np.uint32(0x7F800000)
    return np.where(keep, u, r).view(np.float32)


def _gemm_tf32_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (_tf32(a).astype(np.float64) @ _tf32(b).astype(np.float64)).astype(np.float32)


gemm_mma_bf16 = Sample(
    "gemm_mma_bf16",
    _mma_text("gemm_mma_bf16", "bf16", "mma.m16n8k16.bf16", 16,
              "(d0)[s0, s1, s2, s3] -> (s0 + s2 + ((d0 floordiv 2) mod 2) * 8, "
              "s1 + s3 * 2 + (d0 mod 2) + (d0 floordiv 4) * 8)",
              "(d0)[s0, s1, s2, s3] -> (s0 + s3 * 2 + (d0 mod 2) + (d0 floordiv 2) * 8, s1 + s2)",
              8, 4),
    _gemm_args(BF16, 45, 29, 70), _gemm_ref, 1e-5, 1e-5)
"""C = A @ B, bf16 operands, f32 accumulation: one warp per 16x8 tile, mma.m16n8k16 from global."""

gemm_mma_tf32 = Sample(
    "gemm_mma_tf32",
    _mma_text("gemm_mma_tf32", "f32", "mma.m16n8k8.tf32", 8,
              "(d0)[s0, s1, s2, s3] -> (s0 + s2 + (d0 mod 2) * 8, s1 + s3 + (d0 floordiv 2) * 4)",
              "(d0)[s0, s1, s2, s3] -> (s0 + s3 + d0 * 4, s1 + s2)", 4, 2),
    _gemm_args(np.float32, 33, 20, 27), _gemm_tf32_ref, 1e-5, 1e-5)
"""C = A @ B under TF32 permission: mma.m16n8k8.tf32 with operands rounded by cvt.rna."""


# ----------------------------------------------------------------------- GEMM: shared + cp.async


def _smem_gemm_text() -> str:
    """64x64x32 CTA tile, 4 warps (2x2) of 2x4 atoms, double-buffered cp.async, ldmatrix for A.

    Needs K and N multiples of 8 (16-byte aligned rows for cp.async); M is free.
    """
    def issue(pre: str, st: str, kb: str) -> str:
        copies = []
        for which in ("A", "B"):
            for j in range(2):
                t = f"{pre}{which}{j}"
                copies.append(f"""
          %{t}c = arith(%tid, %cc{j}) {{fn = "add"}} : index
          %{t}r = arith(%{t}c, %cpr{which}) {{fn = "floordiv"}} : index
          %{t}m = arith(%{t}c, %cpr{which}) {{fn = "rem"}} : index
          %{t}col = arith(%{t}m, %c8) {{fn = "mul"}} : index""")
                if which == "A":
                    base, lim, left = "%A", "%M", "%K"
                    gr, gc = (f"arith(%om, %{t}r)", f"arith(%{kb}, %{t}col)")
                else:
                    gr, gc = (f"arith(%{kb}, %{t}r)", f"arith(%on, %{t}col)")
                    base, lim, left = "%B", "%K", "%N"
                copies.append(f"""
          %{t}gr = {gr} {{fn = "add"}} : index
          %{t}gc = {gc} {{fn = "add"}} : index
          %{t}rok = arith(%{t}gr, {lim}) {{fn = "lt"}} : i1
          %{t}left = arith({left}, %{t}gc) {{fn = "sub"}} : index
          %{t}src = view({base}, %{t}gr, %{t}gc) {{bounds = "bounded", map = #map<(d0)[s0, s1] -> (s0, d0 + s1)>}} : mem<8xbf16, global>
          %{t}dst = view({base}s, %{st}, %{t}r, %{t}col) {{bounds = "total", map = #map<(d0)[s0, s1, s2] -> (s0, s1, d0 + s2)>}} : mem<8xbf16, shared>
          %{t}by = arith(%{t}left, %c2) {{fn = "mul"}} : index
          %{t}n = arith(%{t}rok, %{t}by, %c0) {{fn = "select"}} : index
          %{t}tok = atom.call(%{t}dst, %{t}src, %{t}n) {{catalog_id = "cp.async.16"}} : token""")
        return "".join(copies)

    # compute for one stage: 2 k16 steps x (2 A fragments via ldmatrix, 4 B fragments) x 8 mma
    comp = []
    cur = [f"%cf{f}" for f in range(8)]
    for kk in range(2):
        comp.append(f"""
          %kk{kk} = constant() {{value = {kk * 16}}} : index""")
        for fm in range(2):
            comp.append(f"""
          %ar{kk}{fm} = arith(%wrow{fm}, %l16) {{fn = "add"}} : index
          %ac{kk}{fm} = arith(%kk{kk}, %l16h) {{fn = "add"}} : index
          %av{kk}{fm} = view(%As, %cs, %ar{kk}{fm}, %ac{kk}{fm}) {{bounds = "total", map = #map<(d0)[s0, s1, s2] -> (s0, s1, d0 + s2)>}} : mem<8xbf16, shared>
          %a{kk}{fm} = atom.call(%av{kk}{fm}) {{catalog_id = "ldmatrix.x4"}} : tile<8xbf16>""")
        for fn_ in range(4):
            comp.append(f"""
          %bv{kk}{fn_} = view(%Bs, %cs, %kk{kk}, %wcol{fn_}, %g, %q) {{bounds = "total", map = #map<(d0)[s0, s1, s2, s3, s4] -> (s0, s1 + s4 * 2 + (d0 mod 2) + (d0 floordiv 2) * 8, s2 + s3)>}} : mem<4xbf16, shared>
          %b{kk}{fn_} = load(%bv{kk}{fn_}) : tile<4xbf16>""")
        nxt = []
        for f in range(8):
            fm, fn_ = divmod(f, 4)
            name = f"%d{kk}{f}"
            comp.append(f"""
          {name} = atom.call(%a{kk}{fm}, %b{kk}{fn_}, {cur[f]}) {{catalog_id = "mma.m16n8k16.bf16"}} : tile<4xf32>""")
            nxt.append(name)
        cur = nxt
    compute = "".join(comp)
    carried_t = ", ".join(["tile<4xf32>"] * 8)
    args = ", ".join(f"%cf{f}: tile<4xf32>" for f in range(8))
    stores = []
    for f in range(8):
        fm, fn_ = divmod(f, 4)
        stores.append(f"""
        %sr{f} = arith(%om, %wrow{fm}) {{fn = "add"}} : index
        %sc{f} = arith(%on, %wcol{fn_}) {{fn = "add"}} : index
        %vc{f} = view(%C, %sr{f}, %sc{f}, %g, %q) {{bounds = "bounded", map = #map<(d0)[s0, s1, s2, s3] -> (s0 + s2 + (d0 floordiv 2) * 8, s1 + s3 * 2 + (d0 mod 2))>}} : mem<4xf32, global>
        store(%vc{f}, %res{f})""")
    inits = ", ".join(["%z"] * 8)
    results = ", ".join(f"%res{f}" for f in range(8))
    return _fn("gemm_smem_bf16", "%A: mem<MxKxbf16, global>, %B: mem<KxNxbf16, global>, "
               "%C: mem<MxNxf32, global>, %M: index, %N: index, %K: index", ["M", "N", "K"], f"""
    %c0 = constant() {{value = 0}} : index
    %c1 = constant() {{value = 1}} : index
    %c64 = constant() {{value = 64}} : index
    %c32 = constant() {{value = 32}} : index
    %gm = arith(%M, %c64) {{fn = "cdiv"}} : index
    %gn = arith(%N, %c64) {{fn = "cdiv"}} : index
    %nk = arith(%K, %c32) {{fn = "cdiv"}} : index
    parallel(%gm, %gn) {{level = "grid", rank = 2, threads = 128}} ({{
    ^bb1(%pm: index, %pn: index):
      %As = memory() : mem<2x64x32xbf16, shared>
      %Bs = memory() : mem<2x32x64xbf16, shared>
      %c128 = constant() {{value = 128}} : index
      parallel(%c128) {{level = "lane", rank = 1}} ({{
      ^bb2(%tid: index):
        %c2 = constant() {{value = 2}} : index
        %c4 = constant() {{value = 4}} : index
        %c8 = constant() {{value = 8}} : index
        %c16 = constant() {{value = 16}} : index
        %cc0 = constant() {{value = 0}} : index
        %cc1 = constant() {{value = 128}} : index
        %cprA = constant() {{value = 4}} : index
        %cprB = constant() {{value = 8}} : index
        %om = arith(%pm, %c64) {{fn = "mul"}} : index
        %on = arith(%pn, %c64) {{fn = "mul"}} : index
        %warp = arith(%tid, %c32) {{fn = "floordiv"}} : index
        %l = arith(%tid, %c32) {{fn = "rem"}} : index
        %g = arith(%l, %c4) {{fn = "floordiv"}} : index
        %q = arith(%l, %c4) {{fn = "rem"}} : index
        %wm = arith(%warp, %c2) {{fn = "floordiv"}} : index
        %wn = arith(%warp, %c2) {{fn = "rem"}} : index
        %wr = arith(%wm, %c32) {{fn = "mul"}} : index
        %wrow0 = arith(%wr, %c0) {{fn = "add"}} : index
        %wrow1 = arith(%wr, %c16) {{fn = "add"}} : index
        %wc = arith(%wn, %c32) {{fn = "mul"}} : index
        %wcol0 = arith(%wc, %c0) {{fn = "add"}} : index
        %wcol1 = arith(%wc, %c8) {{fn = "add"}} : index
        %c24 = constant() {{value = 24}} : index
        %wcol2 = arith(%wc, %c16) {{fn = "add"}} : index
        %wcol3 = arith(%wc, %c24) {{fn = "add"}} : index
        %l16 = arith(%l, %c16) {{fn = "rem"}} : index
        %lh = arith(%l, %c16) {{fn = "floordiv"}} : index
        %l16h = arith(%lh, %c8) {{fn = "mul"}} : index
        %z = constant() {{value = 0.0}} : tile<4xf32>
        %st = constant() {{value = 0}} : index
        %kb = constant() {{value = 0}} : index{issue("p", "st", "kb")}
        %t0 = atom.call() {{catalog_id = "cp.async.commit"}} : token
        {results} = serial(%c0, %nk, %c1, {inits}) ({{
        ^bb3(%kt: index, {args}):
          %kt1 = arith(%kt, %c1) {{fn = "add"}} : index
          %more = arith(%kt1, %nk) {{fn = "lt"}} : i1
          if(%more) ({{
            %st1 = arith(%kt1, %c2) {{fn = "rem"}} : index
            %kb1 = arith(%kt1, %c32) {{fn = "mul"}} : index{issue("n", "st1", "kb1")}
            yield()
          }}, {{
            yield()
          }})
          %t1 = atom.call() {{catalog_id = "cp.async.commit"}} : token
          atom.call() {{catalog_id = "cp.async.wait", pending = 1}}
          atom.call() {{catalog_id = "barrier.group"}}
          %cs = arith(%kt, %c2) {{fn = "rem"}} : index{compute}
          atom.call() {{catalog_id = "barrier.group"}}
          yield({", ".join(cur)})
        }}) : ({carried_t})
        {"".join(stores)}
        yield()
      }})
      yield()
    }})""")


def _smem_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _gemm_ref(a, b, c)


gemm_smem_bf16 = Sample("gemm_smem_bf16", _smem_gemm_text(), _gemm_args(BF16, 70, 72, 104),
                        _smem_ref, 1e-5, 1e-5)
"""bf16 GEMM through shared memory: cp.async double buffering, ldmatrix.x4, 8 mma per k16."""


# ----------------------------------------------------------------------- GEMM: exact FP32 FFMA


def _ffma_text(name: str, order: str) -> str:
    """8x8 threads per CTA, each a 4x4 register micro-tile; K in steps of 4."""
    return _fn(name, "%A: mem<MxKxf32, global>, %B: mem<KxNxf32, global>, "
               "%C: mem<MxNxf32, global>, %M: index, %N: index, %K: index", ["M", "N", "K"], f"""
    %c0 = constant() {{value = 0}} : index
    %c4 = constant() {{value = 4}} : index
    %c32 = constant() {{value = 32}} : index
    %gm = arith(%M, %c32) {{fn = "cdiv"}} : index
    %gn = arith(%N, %c32) {{fn = "cdiv"}} : index
    parallel(%gm, %gn) {{level = "grid", rank = 2, threads = 64}} ({{
    ^bb1(%pm: index, %pn: index):
      %c64 = constant() {{value = 64}} : index
      parallel(%c64) {{level = "lane", rank = 1}} ({{
      ^bb2(%tid: index):
        %c8 = constant() {{value = 8}} : index
        %ty = arith(%tid, %c8) {{fn = "floordiv"}} : index
        %tx = arith(%tid, %c8) {{fn = "rem"}} : index
        %bm = arith(%pm, %c32) {{fn = "mul"}} : index
        %bn = arith(%pn, %c32) {{fn = "mul"}} : index
        %ry = arith(%ty, %c4) {{fn = "mul"}} : index
        %rx = arith(%tx, %c4) {{fn = "mul"}} : index
        %r0 = arith(%bm, %ry) {{fn = "add"}} : index
        %c0n = arith(%bn, %rx) {{fn = "add"}} : index
        %acc0 = constant() {{value = 0.0}} : tile<4x4xf32>
        %acc = serial(%c0, %K, %c4, %acc0) ({{
        ^bb3(%k: index, %c: tile<4x4xf32>):
          %va = view(%A, %r0, %k) {{bounds = "bounded", map = #map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>}} : mem<4x4xf32, global>
          %a = load(%va) {{fill = 0.0}} : tile<4x4xf32>
          %vb = view(%B, %k, %c0n) {{bounds = "bounded", map = #map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>}} : mem<4x4xf32, global>
          %b = load(%vb) {{fill = 0.0}} : tile<4x4xf32>
          %d = mma(%a, %b, %c) {{policy = #arith<exact, {order}>}} : tile<4x4xf32>
          yield(%d)
        }}) : tile<4x4xf32>
        %vc = view(%C, %r0, %c0n) {{bounds = "bounded", map = #map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>}} : mem<4x4xf32, global>
        store(%vc, %acc)
        yield()
      }})
      yield()
    }})""")


def _strict_ref(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = (acc + np.outer(a[:, k], b[k, :]).astype(np.float32)).astype(np.float32)
    return acc


gemm_ffma_f32 = Sample("gemm_ffma_f32", _ffma_text("gemm_ffma_f32", "unordered_tree"),
                       _gemm_args(np.float32, 70, 45, 37), _gemm_ref, 1e-5, 1e-5)
"""Exact FP32 GEMM: 4x4 per-thread micro-tiles with fused multiply-add (16-byte loads of B)."""

gemm_ffma_strict_f32 = Sample("gemm_ffma_strict_f32",
                              _ffma_text("gemm_ffma_strict_f32", "strict_fold"),
                              _gemm_args(np.float32, 40, 36, 21), _strict_ref)
"""Strict-order FP32 GEMM: separate round-to-nearest multiply and add, bit-identical to numpy."""


# ----------------------------------------------------------------------- > 48 KB of shared memory


def _smem_big_text() -> str:
    """64 KB of shared memory: each thread parks 64 f32, a barrier, then reads a mirrored slot."""
    return _fn("smem_big", "%x: mem<nx16384xf32, global>, %y: mem<nx16384xf32, global>, %n: index",
               ["n"], """
    parallel(%n) {level = "grid", rank = 1, threads = 256} ({
    ^bb1(%p: index):
      %S = memory() : mem<16384xf32, shared>
      %c256 = constant() {value = 256} : index
      parallel(%c256) {level = "lane", rank = 1} ({
      ^bb2(%tid: index):
        %c64 = constant() {value = 64} : index
        %c255 = constant() {value = 255} : index
        %o = arith(%tid, %c64) {fn = "mul"} : index
        %vx = view(%x, %p, %o) {bounds = "bounded", map = #map<(d0)[s0, s1] -> (s0, d0 + s1)>} : mem<64xf32, global>
        %t = load(%vx) : tile<64xf32>
        %vs = view(%S, %o) {bounds = "total", map = #map<(d0)[s0] -> (d0 + s0)>} : mem<64xf32, shared>
        store(%vs, %t)
        atom.call() {catalog_id = "barrier.group"}
        %mt = arith(%c255, %tid) {fn = "sub"} : index
        %mo = arith(%mt, %c64) {fn = "mul"} : index
        %vr = view(%S, %mo) {bounds = "total", map = #map<(d0)[s0] -> (d0 + s0)>} : mem<64xf32, shared>
        %r = load(%vr) : tile<64xf32>
        %vy = view(%y, %p, %o) {bounds = "bounded", map = #map<(d0)[s0, s1] -> (s0, d0 + s1)>} : mem<64xf32, global>
        store(%vy, %r)
        yield()
      })
      yield()
    })""")


def _smem_big_args(rng: np.random.Generator) -> list[np.ndarray]:
    x = rng.standard_normal((3, 16384)).astype(np.float32)
    return [x, np.zeros_like(x)]


def _smem_big_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x.reshape(3, 256, 64)[:, ::-1, :].reshape(3, 16384)


smem_big = Sample("smem_big", _smem_big_text(), _smem_big_args, _smem_big_ref)
"""64 KB of dynamic shared memory (above the 48 KB default), a barrier, 16-byte LDS/STS."""


SAMPLES: dict[str, Sample] = {s.name: s for s in (
    add_f32, add_bf16, softmax_rows, gemm_mma_bf16, gemm_mma_tf32, gemm_smem_bf16,
    gemm_ffma_f32, gemm_ffma_strict_f32, smem_big)}
"""Every sample by name."""


def sample(name: str) -> Sample:
    """The sample ``name``."""
    return SAMPLES[name]
