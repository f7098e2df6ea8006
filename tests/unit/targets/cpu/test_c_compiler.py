"""The compiler probe and the disk compile cache: atomic, concurrent, never trusting corruption."""

from __future__ import annotations

import ctypes
import json
import multiprocessing as mp
import os
import stat
from pathlib import Path

import pytest

from tilec.targets.cpu import compiler as cc
from tilec.targets.cpu.backend import probe

SRC = "int tc_answer(int x) { return 3 * x + %d; }\n"


@pytest.fixture()
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and no in-process memo."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cc, "_loaded", {})
    return tmp_path


def _entry(source: str) -> tuple[Path, Path]:
    key = cc.cache_key(source, cc.toolchain())
    d = cc.cache_dir() / key[:2]
    return d / f"{key}.so", d / f"{key}.json"


def _call(lib: ctypes.CDLL, x: int) -> int:
    return int(lib.tc_answer(ctypes.c_int(x)))


def test_probe_finds_this_machines_compiler() -> None:
    assert probe() is None
    tc = cc.toolchain()
    for flag in cc.BASE_FLAGS:
        assert flag in tc.flags
    assert "-ffp-contract=off" in tc.flags and tc.identity


def test_build_then_hit(fresh_cache: Path) -> None:
    src = SRC % 1
    lib = cc.compile_cached(src)
    assert _call(lib, 2) == 7
    so, meta = _entry(src)
    info = json.loads(meta.read_text())
    assert so.exists() and info["key"] == so.stem
    before = so.stat().st_mtime_ns
    cc._loaded.clear()  # a new process: only the disk cache is left
    assert _call(cc.compile_cached(src), 5) == 16
    assert so.stat().st_mtime_ns == before  # reused, not rebuilt


def test_key_covers_source_flags_and_compiler() -> None:
    tc = cc.toolchain()
    k = cc.cache_key(SRC % 1, tc)
    assert k != cc.cache_key(SRC % 2, tc)
    assert k != cc.cache_key(SRC % 1, cc.Toolchain(tc.cc, tc.identity, tc.flags[:-1], False,
                                                       tc.native))
    assert k != cc.cache_key(SRC % 1, cc.Toolchain(tc.cc, tc.identity + " patched", tc.flags,
                                                       tc.openmp, tc.native))


def test_key_ignores_origin_comments_only() -> None:
    """Two checkouts (or two processes numbering operations differently) share an entry:
    the origin comments name op ids and source files, not code."""
    tc = cc.toolchain()
    body = SRC % 1
    here = "  /* tilec: arith#3 at /one/checkout/k.py:7:3 */\n" + body
    there = "/* tilec: arith#41 at k.py:7:3 */\n" + body
    assert cc.cache_key(here, tc) == cc.cache_key(there, tc) == cc.cache_key(body, tc)
    assert cc.cache_key("/* other */\n" + body, tc) != cc.cache_key(body, tc)


def test_emitted_c_names_no_machine_path() -> None:
    import numpy as np

    import tilec
    from tilec.lib.matmul import matmul

    a = np.zeros((64, 64), np.float32)
    src = tilec.compile(matmul, a, a, a, target="cpu", BM=32, BN=32, BK=32).after("emit")
    origins = [line for line in src.splitlines() if "/* tilec: " in line]
    assert origins and all(" at matmul.py:" in line for line in origins if " at " in line)
    assert str(Path(tilec.__file__).parent) not in src and os.sep + "lib" + os.sep not in src


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip", "bad_meta", "no_meta",
                                    "meta_for_other"])
def test_corrupt_entries_are_rebuilt(fresh_cache: Path, damage: str) -> None:
    src = SRC % 4
    cc.compile_cached(src)
    so, meta = _entry(src)
    data = so.read_bytes()
    if damage == "truncate":
        so.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        so.write_bytes(b"not an ELF object" * 10)
    elif damage == "flip":
        b = bytearray(data)
        b[len(b) // 2] ^= 0xFF
        so.write_bytes(bytes(b))
    elif damage == "bad_meta":
        meta.write_text("{ this is not json")
    elif damage == "no_meta":
        meta.unlink()
    else:
        info = json.loads(meta.read_text())
        info["key"] = "0" * 64
        meta.write_text(json.dumps(info))
    cc._loaded.clear()
    lib = cc.compile_cached(src)
    assert _call(lib, 1) == 7
    info = json.loads(meta.read_text())
    import hashlib

    assert info["sha256"] == hashlib.sha256(so.read_bytes()).hexdigest()


def _worker(args: tuple[str, str, int]) -> int:
    cache, src, x = args
    os.environ["TILEC_CACHE_DIR"] = cache
    from tilec.targets.cpu import compiler

    return int(compiler.compile_cached(src).tc_answer(ctypes.c_int(x)))


def test_concurrent_processes_build_one_key(tmp_path: Path) -> None:
    src = SRC % 9
    ctx = mp.get_context("spawn")  # never fork a process that may hold an OpenMP pool
    with ctx.Pool(4) as pool:
        got = pool.map(_worker, [(str(tmp_path), src, x) for x in range(8)])
    assert got == [3 * x + 9 for x in range(8)]
    entries = list((tmp_path / "c").rglob("*.so"))
    assert len(entries) == 1
    leftovers = [p for p in (tmp_path / "c").rglob("*") if p.name.startswith(".")]
    assert not leftovers, leftovers


def test_compile_errors_name_the_ir_operation(fresh_cache: Path) -> None:
    src = "int ok(void) { return 0; }\nint broken(void) { return undefined_name; }\n"
    with pytest.raises(cc.CCompileError, match=r"generated for op-on-line-2"):
        cc.compile_cached(src, lambda n: "op-on-line-2" if n == 2 else None)


def test_missing_compiler_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TILEC_CC", str(tmp_path / "no-such-cc"))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    reason = probe()
    assert reason is not None and "no C compiler found" in reason
    with pytest.raises(cc.CompilerNotFound):
        cc.toolchain()


def test_unsupported_flags_fall_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A compiler that rejects -fopenmp still builds kernels (programs run sequentially)."""
    real = cc.toolchain().cc
    wrapper = tmp_path / "cc-no-openmp"
    wrapper.write_text("#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -fopenmp ] && "
                       "{ echo 'unknown flag -fopenmp' >&2; exit 1; }; done\n"
                       f"exec {real} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("TILEC_CC", str(wrapper))
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cc, "_loaded", {})
    tc = cc.toolchain()
    assert not tc.openmp and "-fopenmp" not in tc.flags
    assert any("programs run sequentially" in n for n in tc.notes)
    assert _call(cc.compile_cached(SRC % 2, tc=tc), 1) == 5


def test_unusable_cache_directory_falls_back(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(blocker))
    monkeypatch.setattr(cc, "_loaded", {})
    with pytest.warns(UserWarning, match="not writable"):
        lib = cc.compile_cached(SRC % 6)
    assert _call(lib, 1) == 9


_PROCESS = """
import sys
import numpy as np
import tilec
from tilec.lib.matmul import matmul
if sys.argv[1] == "other-first":  # compile something else first: op numbering moves on
    for case in tilec.lib.DEMOS:
        if case.kernel is not matmul:
            ins = case.make_inputs(np.random.default_rng(0))
            tilec.compile(case.kernel, *ins, target="cpu", **case.constexprs)(*ins)
            break
a = np.ones((64, 64), np.float32); c = np.zeros((64, 64), np.float32)
tilec.compile(matmul, a, a, c, target="cpu", BM=32, BN=32, BK=32)(a, a, c)
assert float(c[0, 0]) == 64.0
"""


def test_a_kernel_hits_the_disk_cache_whatever_its_process_compiled_before(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path)}
    run = [sys.executable, "-c", _PROCESS]
    subprocess.run([*run, "alone"], env=env, check=True, timeout=300)
    objects = set((tmp_path / "c").rglob("*.so"))
    subprocess.run([*run, "other-first"], env=env, check=True, timeout=300)
    added = set((tmp_path / "c").rglob("*.so")) - objects
    assert len(objects) == 1 and len(added) == 1  # the other kernel only: matmul was a hit
