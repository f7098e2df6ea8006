"""``tirx:llvm`` builds once per PrimFunc: a second compile of the same kernel and
specialization is answered from this process's memo or the disk cache, never by
``tvm.compile``; a corrupt entry is rebuilt; another specialization is another build."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from tilec.targets.tirx import cache


@tc.kernel
def scaled(X, Y, B: tc.constexpr = 8):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, B)):
        Y.tile((p * B,), (B,)).store(X.tile((p * B,), (B,), fill=0.0) * 3.0)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache root and an empty memo; the build counters from zero."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_loaded", {})
    monkeypatch.setattr(cache, "stats", {"builds": 0, "disk_hits": 0, "memory_hits": 0})
    return tmp_path


def _module(**cx):
    x = np.zeros(20, np.float32)
    c = tc.compile(scaled, x, x.copy(), target="reference", **cx)
    return c.module, c.fn_name


def _build_and_run(module, name):
    from tilec.targets.tirx.backend import make_backend

    exe = make_backend().compile(module, name)
    x = np.arange(20, dtype=np.float32)
    y = np.zeros_like(x)
    exe(x, y)
    np.testing.assert_array_equal(y, x * 3.0)
    return exe


def test_second_compile_does_not_rebuild(fresh_cache):
    module, name = _module()
    _build_and_run(module, name)
    assert cache.stats == {"builds": 1, "disk_hits": 0, "memory_hits": 0}
    _build_and_run(module, name)
    assert cache.stats["builds"] == 1 and cache.stats["memory_hits"] == 1
    entries = list((fresh_cache / "tirx").glob("*/*.so"))
    assert len(entries) == 1 and entries[0].with_suffix(".json").exists()


def test_a_new_process_loads_from_disk(fresh_cache, monkeypatch):
    module, name = _module()
    _build_and_run(module, name)
    monkeypatch.setattr(cache, "_loaded", {})  # as a new process starts
    _build_and_run(module, name)
    assert cache.stats["builds"] == 1 and cache.stats["disk_hits"] == 1


def test_a_corrupt_entry_is_rebuilt(fresh_cache, monkeypatch):
    module, name = _module()
    _build_and_run(module, name)
    so = next((fresh_cache / "tirx").glob("*/*.so"))
    so.write_bytes(b"not a library")
    monkeypatch.setattr(cache, "_loaded", {})
    _build_and_run(module, name)
    assert cache.stats["builds"] == 2 and cache.stats["disk_hits"] == 0


def test_another_specialization_is_another_build(fresh_cache):
    for b in (8, 4):
        module, name = _module(B=b)
        _build_and_run(module, name)
    assert cache.stats["builds"] == 2


def test_through_tc_compile_a_second_kernel_object_reuses_the_build(fresh_cache):
    x = np.arange(20, dtype=np.float32)
    tc.compile(scaled, x, x.copy(), target="tirx:llvm", B=2)(x, x.copy())
    again = tc.kernel(scaled.fn)  # a new kernel object: its own compile table
    tc.compile(again, x, x.copy(), target="tirx:llvm", B=2)(x, x.copy())
    assert cache.stats["builds"] == 1 and cache.stats["memory_hits"] == 1
