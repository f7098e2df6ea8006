"""Instruction mix of the GEMM main loop, read from the compiled SASS (no GPU needed).

Compiles ``tilec.lib.matmul`` for ``cuda:sm_90`` as a user gets it (``--tile default``: the
model's tiles and the default plan) or with the given tiles and plan variant, compiles the
source with NVRTC, disassembles the cubin with ``cuobjdump -sass`` or ``nvdisasm`` (on
``PATH``, or named by ``$CUOBJDUMP`` / ``$NVDISASM``) and prints, for every loop of the
kernel (a backward branch), its instruction count and the most frequent opcodes, plus the
ratio of all instructions to the math instructions (HGMMA, HMMA or FFMA). A kernel whose
loop issues many more instructions than math ones spends issue slots (and power) on
index arithmetic; this is the offline check for that.

    python benchmarks/sass_mix.py --dtype bf16 --out same [--tile default|128x256x64]
        [--variant '{"wgmma_stages": 3}'] [--threads 128] [--budget 192] [--size 4096]
        [--save-source out.cu] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

MATH = ("HGMMA", "HMMA", "FFMA")
_INSTR = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_GUARD = re.compile(r"^@!?U?P\w+\s+")


_LABEL = re.compile(r"^\s*(\.L_x_\d+):")


def parse_sass(text: str) -> list[tuple[int, str]]:
    """``(address, instruction text)`` for every instruction of a ``cuobjdump -sass`` or
    ``nvdisasm`` dump; a branch to an ``nvdisasm`` label names the label's address."""
    out = []
    labels: dict[str, int] = {}
    pending: list[str] = []
    for line in text.splitlines():
        lm = _LABEL.match(line)
        if lm:
            pending.append(lm.group(1))
            continue
        m = _INSTR.match(line)
        if m:
            addr = int(m.group(1), 16)
            for name in pending:
                labels[name] = addr
            pending = []
            out.append((addr, m.group(2)))
    return [(a, re.sub(r"`?\((\.L_x_\d+)\)`?", lambda x: hex(labels.get(x.group(1), -1)), t))
            for a, t in out]


def opcode(text: str) -> str:
    """The opcode without guard predicate and modifiers (``@P0 HMMA.16816.F32`` -> HMMA)."""
    return _GUARD.sub("", text).split()[0].split(".")[0]


def loops(instrs: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Every backward branch's body: start, end, size and opcode counts."""
    index = {a: i for i, (a, _) in enumerate(instrs)}
    out = []
    for i, (addr, text) in enumerate(instrs):
        if opcode(text) != "BRA":
            continue
        m = re.search(r"0x([0-9a-f]+)", text.split("BRA", 1)[1])
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= addr or target not in index:
            continue
        body = instrs[index[target]: i + 1]
        counts = collections.Counter(opcode(t) for _, t in body)
        math = sum(counts[k] for k in MATH)
        out.append({"start": hex(target), "end": hex(addr), "instructions": len(body),
                    "math": math, "per_math": round(len(body) / math, 2) if math else None,
                    "opcodes": dict(counts.most_common())})
    return out


def compile_matmul(dtype: str, size: int, threads: int | None, budget: int | None,
                   tiles: tuple[int, int, int] | None, out: str = "f32",
                   variant: dict | None = None) -> Any:
    """The CUDA source and cubin of ``lib.matmul`` for one dtype and square size (compile
    only). ``tiles`` None: the model's tiles; ``variant``: plan-variant choices; ``budget``
    (fragment scalars per lane) lowers the reference capture with that planner option."""
    import ml_dtypes
    import numpy as np

    import tilec
    from tilec.lib.matmul import matmul
    from tilec.targets.cuda.compiler import compile_cubin

    npdt = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}[dtype]
    a = np.empty((size, size), npdt)
    b = np.empty((size, size), npdt)
    c = np.empty((size, size), np.float32 if out == "f32" else npdt)
    var = dict(variant or {})
    if threads is not None:
        var["threads"] = threads
    sizes = {} if tiles is None else dict(zip(("BM", "BN", "BK"), tiles))
    if budget is None:  # what the user gets (the executable's own build)
        exe = tilec.compile(matmul, a, b, c, target="cuda:sm_90", **sizes,
                            **({"variant": var} if var else {})).executable()
        return exe.kernel, exe.cubin
    import tilec.lower as lower
    from tilec.frontend.tunables import apply_variant
    from tilec.lower.options import LowerOptions
    from tilec.targets.cuda.emitter import emit_cuda

    comp = tilec.compile(matmul, a, b, c, target="reference", **sizes)
    opts = apply_variant(LowerOptions(), var)
    opts = replace(opts, planner=replace(opts.planner, max_fragment_scalars_per_lane=budget))
    src = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90", opts), comp.fn_name,
                    "cuda:sm_90")
    cub = compile_cubin(src.text, "sm_90" + src.arch_suffix, src.kernel, src.shared_bytes,
                        src.buffer.origin_of_line)
    return src, cub


def main(argv: list[str] | None = None) -> int:
    """Compile, disassemble and print the loop mix."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", default="bf16", choices=("bf16", "f16", "f32"))
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--budget", type=int, default=None, help="fragment scalars per lane")
    p.add_argument("--tile", default="default",
                   help="BMxBNxBK, or default (the model's tiles, as a user gets them)")
    p.add_argument("--variant", default=None, help="plan-variant choices as JSON")
    p.add_argument("--out", default="f32", choices=("f32", "same"),
                   help="output dtype: f32 or the inputs' (the fused cast epilogue)")
    p.add_argument("--save-source", default=None)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    cmd = [tool, "-sass"] if tool else None
    if cmd is None:
        dis = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
        cmd = [dis, "-c"] if dis else None
    if cmd is None:
        print("neither cuobjdump nor nvdisasm found: put one on PATH or set CUOBJDUMP or "
              "NVDISASM", file=sys.stderr)
        return 2
    tiles = None if args.tile == "default" else tuple(int(x) for x in args.tile.split("x"))
    variant = json.loads(args.variant) if args.variant else None
    src, cub = compile_matmul(args.dtype, args.size, args.threads, args.budget,
                              tiles, args.out, variant)  # type: ignore[arg-type]
    if args.save_source:
        Path(args.save_source).write_text(src.text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cub.data)
        sass = subprocess.run([*cmd, str(path)], check=True, capture_output=True,
                              text=True).stdout
    found = loops(parse_sass(sass))
    report = {"dtype": args.dtype, "tile": args.tile, "variant": variant,
              "threads": args.threads, "resources": str(cub.resources), "loops": found}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{args.dtype} {args.tile} {variant or ''} threads={args.threads}: {cub.resources}")
    for lp in found:
        if lp["math"] == 0:
            continue
        top = ", ".join(f"{k} {v}" for k, v in list(lp["opcodes"].items())[:14])
        print(f"  loop {lp['start']}..{lp['end']}: {lp['instructions']} instructions, "
              f"{lp['math']} math, {lp['per_math']} per math op\n    {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
