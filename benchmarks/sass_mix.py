"""Instruction mix of the GEMM main loop, read from the compiled SASS (no GPU needed).

Lowers ``tilec.lib.matmul`` for ``cuda:sm_90`` with the given plan knobs, compiles it
with NVRTC, disassembles the cubin with ``cuobjdump -sass`` (on ``PATH``, or named by
``$CUOBJDUMP``) and prints, for every loop of the kernel (a backward branch), its
instruction count and the most frequent opcodes, plus the ratio of all instructions to
the math instructions (HMMA or FFMA). A tensor-core kernel whose loop issues many more
instructions than HMMAs is issue bound; this is the offline check for that.

    python benchmarks/sass_mix.py --dtype bf16 --threads 128 [--budget 192] [--size 4096]
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

MATH = ("HMMA", "FFMA")
_INSTR = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_GUARD = re.compile(r"^@!?U?P\w+\s+")


def parse_sass(text: str) -> list[tuple[int, str]]:
    """``(address, instruction text)`` for every instruction of a ``cuobjdump -sass`` dump."""
    out = []
    for line in text.splitlines():
        m = _INSTR.match(line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


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
                   bm: int, bn: int, bk: int, out: str = "f32") -> Any:
    """The CUDA executable of ``lib.matmul`` for one dtype and square size (compile only)."""
    import ml_dtypes
    import numpy as np

    import tilec
    import tilec.lower as lower
    from tilec.lib.matmul import matmul
    from tilec.lower.options import LowerOptions
    from tilec.targets.cuda.compiler import compile_cubin
    from tilec.targets.cuda.emitter import emit_cuda

    npdt = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}[dtype]
    a = np.empty((size, size), npdt)
    b = np.empty((size, size), npdt)
    c = np.empty((size, size), np.float32 if out == "f32" else npdt)
    comp = tilec.compile(matmul, a, b, c, target="reference", BM=bm, BN=bn, BK=bk)
    opts = LowerOptions()
    opts = replace(opts, planner=replace(opts.planner, threads=threads,
                                         max_fragment_scalars_per_lane=budget))
    m = lower.lower_to_machine(comp.module, "cuda:sm_90", opts)
    src = emit_cuda(m, comp.fn_name, "cuda:sm_90")
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
    p.add_argument("--tile", default="128x128x32", help="BMxBNxBK")
    p.add_argument("--out", default="f32", choices=("f32", "same"),
                   help="output dtype: f32 or the inputs' (the fused cast epilogue)")
    p.add_argument("--save-source", default=None)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if tool is None:
        print("cuobjdump not found: put it on PATH or set CUOBJDUMP", file=sys.stderr)
        return 2
    bm, bn, bk = (int(x) for x in args.tile.split("x"))
    src, cub = compile_matmul(args.dtype, args.size, args.threads, args.budget, bm, bn, bk,
                              args.out)
    if args.save_source:
        Path(args.save_source).write_text(src.text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cub.data)
        sass = subprocess.run([tool, "-sass", str(path)], check=True, capture_output=True,
                              text=True).stdout
    found = loops(parse_sass(sass))
    report = {"dtype": args.dtype, "tile": args.tile, "threads": args.threads,
              "resources": str(cub.resources), "loops": found}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{args.dtype} {args.tile} threads={args.threads}: {cub.resources}")
    for lp in found:
        if lp["math"] == 0:
            continue
        top = ", ".join(f"{k} {v}" for k, v in list(lp["opcodes"].items())[:14])
        print(f"  loop {lp['start']}..{lp['end']}: {lp['instructions']} instructions, "
              f"{lp['math']} math, {lp['per_math']} per math op\n    {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
