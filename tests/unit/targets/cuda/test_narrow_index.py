"""Narrow index arithmetic in the CUDA emitter (``access.IndexWriter``, ``emitter.int_arith``).

The C text of index expressions is checked by compiling it with the host C++
compiler, trapping on any signed overflow, and comparing with Python's exact
arithmetic over the corners of the symbols' ranges: a narrowed operation
that could overflow 32 bits shows up as a trap or a wrong value.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cuda_machine_ir import SAMPLES

import tilec.ir as ir
from tilec.ir.ranges import I32, I64, Range, affine_range
from tilec.targets.cuda.access import IndexWriter, affine_c, div_c
from tilec.targets.cuda.emitter import CUDAEmitter

SIZE = Range(0, I64.hi)
TID = Range(0, 127)


# ----------------------------------------------------------------- emission


def test_division_forms() -> None:
    assert div_c("floordiv", "x", TID, 32)[0] == "(x >> 5)"
    assert div_c("mod", "x", Range(-100, 100), 32)[0] == "(x & 31)"  # floor semantics by sign
    assert div_c("floordiv", "x", TID, 40)[0] == "(int)((unsigned)x / 40u)"
    assert div_c("floordiv", "x", SIZE, 40)[0] == "(int64_t)((uint64_t)x / 40u)"
    assert div_c("floordiv", "x", Range(-9, 9), 3)[0] == "tc_fdiv(x, 3)"
    assert div_c("mod", "x", Range(-9, 9), 3)[0] == "tc_fmod(x, 3)"
    assert div_c("mod", "x", Range(0, 31), 32)[0] == "x"  # one period: the operand itself
    assert div_c("floordiv", "x", Range(0, 31), 32)[0] == "0"


def test_narrow_and_wide_text() -> None:
    iw = IndexWriter([TID, Range(0, (1 << 31) - 2)])
    text, r = iw.expr((ir.s(0) * 8).floordiv(32) * 40 + ir.s(0), ["tid", "bx"])
    assert "int64_t" not in text and "tc_" not in text and r.within(I32)
    # blockIdx.x * 128 can leave 32 bits: computed in int64
    text, r = iw.expr(ir.s(1) * 128 + ir.s(0), ["tid", "bx"])
    assert "(int64_t)bx * 128" in text and not r.within(I32)
    # without ranges everything may be 64-bit: the helpers stay
    assert affine_c((ir.s(0) + 1).floordiv(3), ["x"]) == "tc_fdiv((x + 1), 3)"


def test_narrow_size_comparisons_and_types() -> None:
    """A lowered kernel: 32-bit thread ids, saturated size copies, no 64-bit division of tid."""
    s = SAMPLES["gemm_mma_bf16"]
    em = CUDAEmitter(s.module(), s.name)
    text = em.emit().text
    assert "const int v" in text and "(int)threadIdx.x" in text
    assert "tc_fdiv(v" not in text.split("threadIdx.x", 1)[1].split("\n", 1)[0]
    assert "_i32 = (int)(" in text


_HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
static int64_t tc_fdiv(int64_t a, int64_t c) { int64_t q = a / c; return q - ((a % c) < 0); }
static int64_t tc_fmod(int64_t a, int64_t c) { int64_t r = a % c; return r < 0 ? r + c : r; }
int main(void) {
%s
  return 0;
}
"""

_RANGES = [TID, Range(0, 65534), Range(0, (1 << 31) - 2), Range(0, 1 << 40), Range(-300, 300),
           Range(-(1 << 31), (1 << 31) - 1), Range(0, (1 << 58) - 1)]


def _random_expr(rng: random.Random, depth: int) -> ir.AffineExpr:
    e = ir.AffineExpr((), rng.choice([0, 0, 7, -1024, 1024]))
    for _ in range(rng.randint(1, 3)):
        if depth and rng.random() < 0.5:
            inner = _random_expr(rng, depth - 1)
            k = rng.choice([2, 3, 8, 32, 40, 128])
            atom = inner.floordiv(k) if rng.random() < 0.5 else inner.mod(k)
        else:
            atom = ir.AffineExpr(((("s", rng.randrange(3)), 1),), 0)
        e = e + atom * rng.choice([1, 1, 2, 8, 40, 136, 5120, -3])
    return e


def _exact(e: ir.AffineExpr, vals: list[int]) -> int:
    total = e.constant
    for atom, c in e.terms:
        if atom[0] == "s":
            v = vals[atom[1]]
        else:
            inner = _exact(atom[1], vals)
            v = inner // atom[2] if atom[0] == "floordiv" else inner % atom[2]
        total += v * c
    return total


def _nodes_fit(e: ir.AffineExpr, rs: list[Range]) -> bool:
    """Every node of ``e`` has an exact range inside ``int64_t`` (no wrap in the IR either)."""
    acc = Range.point(e.constant)
    for atom, c in e.terms:
        if atom[0] != "s" and not _nodes_fit(atom[1], rs):
            return False
        acc = acc + affine_range(ir.AffineExpr(((atom, 1),), 0), rs) * Range.point(c)
        if not acc.within(I64):
            return False
    return True


@pytest.mark.skipif(shutil.which("g++") is None, reason="no host C++ compiler (g++)")
def test_index_text_is_exact_at_range_corners(tmp_path: Path) -> None:
    rng = random.Random(7)
    lines = []
    expected = []
    n = 0
    while n < 300:
        rs = [rng.choice(_RANGES) for _ in range(3)]
        e = _random_expr(rng, 2)
        if not _nodes_fit(e, rs):
            continue
        n += 1
        text, r = IndexWriter(rs).expr(e, ["s0", "s1", "s2"])
        for _ in range(4):
            vals = [rng.choice([x.lo, x.hi, rng.randint(x.lo, x.hi)]) for x in rs]
            want = _exact(e, vals)
            assert r.lo <= want <= r.hi, (e, rs, vals)
            decl = "".join(f"const {'int' if x.within(I32) else 'int64_t'} s{i} = "
                           f"{'(int64_t)' if not x.within(I32) else ''}{v}LL;"
                           for i, (x, v) in enumerate(zip(rs, vals)))
            lines.append(f"  {{ {decl} printf(\"%lld\\n\", (long long)({text})); }}")
            expected.append(want)
    src = tmp_path / "ix.cpp"
    src.write_text(_HARNESS.replace("%s", "\n".join(lines)))
    exe = tmp_path / "ix"
    subprocess.run(["g++", "-O1", "-fsanitize=signed-integer-overflow",
                    "-fsanitize-undefined-trap-on-error", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert [int(x) for x in out] == expected


def test_global_offsets_stay_64_bit() -> None:
    """Rows times a runtime stride, and counters bounded by a size, are never 32-bit: a
    65536 x 65536 array needs offsets beyond 2**31."""
    s = SAMPLES["gemm_mma_bf16"]
    text = CUDAEmitter(s.module(), s.name).emit().text
    rows = re.findall(r"v\d+_[AB]\[(.*?) \* (v\d+_[AB]_s\d+)", text)
    assert rows and all(r.startswith("(int64_t)") for r, _ in rows)
    assert re.search(r"for \(int64_t v\d+_k = ", text)
