"""Warm start (docs/design/warm_start.md): a kernel compiled before, in any process, is
called from its launch record without capture, planning, lowering or emission; whatever
capture reads is in the key, so an edited helper, a changed global, another variant or
planner override, or an edited tilec misses; the IR products are recomputed on demand."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc
from tilec.frontend import warm
from tilec.lib.matmul import matmul
from tilec.runtime import why_unavailable

pytestmark = pytest.mark.skipif(why_unavailable("cpu") is not None,
                                reason=f"no C compiler: {why_unavailable('cpu')}")

SRC = Path(tc.__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of the test's own, warm start on."""
    root = tmp_path / "cache"
    monkeypatch.setenv("TILEC_CACHE_DIR", str(root))
    monkeypatch.delenv("TILEC_WARM_START", raising=False)
    return root


def _mm(n: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    return a, b, np.zeros((n, n), np.float32)


def _fresh(k: Any) -> Any:
    """The same kernel as a new process sees it: no in-process caches."""
    return tc.kernel(k.fn)


# ------------------------------------------------------------------ the warm path


_CHILD = """
import json, sys
import numpy as np
import tilec as tc
from tilec.lib.matmul import matmul
a = np.ones((64, 48), np.float32); b = np.ones((48, 40), np.float32)
c = np.zeros((64, 40), np.float32)
k = tc.compile(matmul, a, b, c, target="cpu")
k(a, b, c)
print(json.dumps({"warm": k.warm, "c": float(c[3, 5]), "selection": str(k.selection),
                  "loaded": sorted(m for m in ("tilec.plan", "tilec.lower", "tilec.exec",
                                               "tilec.targets.cpu.emitter",
                                               "tilec.targets.cpu.plan", "subprocess")
                                   if m in sys.modules)}))
"""


def test_a_new_process_calls_a_cached_kernel_without_compiling_it(cache: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TILEC_CACHE_DIR": str(cache)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD], env=env, check=True,
                                      capture_output=True, text=True, timeout=300)
                       .stdout.splitlines()[-1]) for _ in range(2)]
    cold, hot = runs
    assert not cold["warm"] and "tilec.plan" in cold["loaded"]
    assert hot["warm"], hot
    assert hot["c"] == cold["c"] == 48.0 and hot["selection"] == cold["selection"]
    # no planner, no lowering, no emitter, no compiler process: only the launch path
    assert hot["loaded"] == [], hot["loaded"]
    kinds = sorted(p.name for p in (cache / "warm").iterdir())
    assert kinds == ["launch", "resolution"]


def test_a_warm_hit_recomputes_the_ir_products_when_asked() -> None:
    a, b, c = _mm()
    cold = tc.compile(_fresh(matmul), a, b, c, target="cpu")
    cold(a, b, c)
    want = c.copy()
    hot = tc.compile(_fresh(matmul), a, b, c, target="cpu")
    assert hot.warm and not cold.warm
    c[:] = 0
    hot(a, b, c)
    np.testing.assert_array_equal(c, want)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert hot._module is None, "a warm hit captured the kernel"
    assert hot.source == cold.source  # read from the cache beside the object
    assert hot.ir == cold.ir  # captured now
    assert hot.plan.render() == cold.plan.render()
    assert [r.name for r in hot.stages.values()] == ["capture", "plan", "emit", "build"]
    assert hot.stages["emit"].text == cold.source
    assert hot.warm and hot.executable() is hot.stages["build"].value  # the pipeline's now
    hot(a, b, c)
    np.testing.assert_array_equal(c, want)


def test_emitted_source_names_no_folder_and_no_process_ids() -> None:
    a, b, c = _mm()
    one = tc.compile(_fresh(matmul), a, b, c, target="cpu", BM=32, BN=32, BK=32)
    text = one.after("emit")
    tc.kernel(lambda: None)  # other compilations in between change no number
    two = tc.compile(_fresh(matmul), *_mm(24), target="reference").module
    assert two is not None
    again = tc.kernel(matmul.fn)
    assert tc.compile(again, a, b, c, target="cpu", BM=32, BN=32, BK=32).after("emit") == text
    assert str(Path(matmul.fn.__code__.co_filename).parent) not in text


def test_a_lost_binary_is_a_miss_that_rebuilds(cache: Path) -> None:
    a, b, c = _mm()
    tc.compile(_fresh(matmul), a, b, c, target="cpu").executable()
    for so in (cache / "c").rglob("*.so"):
        so.unlink()
    from tilec.targets.cpu import compiler

    compiler._loaded.clear()
    k = tc.compile(_fresh(matmul), a, b, c, target="cpu")
    assert not k.warm
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_warm_start_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = _mm()
    tc.compile(_fresh(matmul), a, b, c, target="cpu").executable()
    monkeypatch.setenv("TILEC_WARM_START", "0")
    assert not tc.compile(_fresh(matmul), a, b, c, target="cpu").warm
    monkeypatch.setenv("TILEC_WARM_START", "1")
    assert tc.compile(_fresh(matmul), a, b, c, target="cpu").warm


# ------------------------------------------------------------------ staleness


_MODULE = '''
import tilec as tc

SCALE = {scale}


@tc.func
def bump(x):
    return x * {factor}


@tc.kernel
def scaled(X, Y):
    for p in tc.parallel(X.shape[0] // 8):
        Y.tile((p * 8,), (8,)).store(bump(X.tile((p * 8,), (8,)).load()) + SCALE)
'''


def _module(tmp_path: Path, name: str, scale: float, factor: float) -> Any:
    path = tmp_path / f"{name}.py"
    old = path.stat().st_mtime_ns if path.exists() else None
    path.write_text(_MODULE.format(scale=scale, factor=factor))
    if old is not None:  # a later edit in the same clock tick still looks edited
        os.utime(path, ns=(old + 10**9, old + 10**9))
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def _run(k: Any) -> tuple[bool, float]:
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    c = tc.compile(k, x, y, target="cpu")
    c(x, y)
    return c.warm, float(y[1])


def test_an_edited_helper_misses(tmp_path: Path) -> None:
    mod = _module(tmp_path, "warm_helper_edit", 1.0, 2.0)
    assert _run(mod.scaled) == (False, 3.0)
    assert _run(_fresh(mod.scaled)) == (True, 3.0)
    mod = _module(tmp_path, "warm_helper_edit", 1.0, 5.0)  # only the helper's body changed
    assert _run(mod.scaled) == (False, 6.0)
    assert _run(_fresh(mod.scaled)) == (True, 6.0)


def test_a_changed_global_constant_misses(tmp_path: Path) -> None:
    mod = _module(tmp_path, "warm_global_edit", 1.0, 2.0)
    assert _run(mod.scaled) == (False, 3.0)
    mod.SCALE = 10.0  # what a new process sees after the module's constant changed
    assert _run(_fresh(mod.scaled)) == (False, 12.0)
    mod.SCALE = 1.0
    assert _run(_fresh(mod.scaled)) == (True, 3.0)


def test_another_variant_or_planner_override_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    from tilec.targets.cpu.backend import CBackend

    a, b, c = _mm()
    tiles = {"BM": 32, "BN": 32, "BK": 32}
    tc.compile(_fresh(matmul), a, b, c, target="cpu", **tiles).executable()
    assert tc.compile(_fresh(matmul), a, b, c, target="cpu", **tiles).warm
    k = _fresh(matmul).compile(a, b, c, target="cpu", variant={"threads": 64}, **tiles)
    assert not k.warm
    k(a, b, c)
    monkeypatch.setattr(CBackend, "planner_overrides",
                        lambda self: {"accumulator_residency": False}, raising=False)
    k = tc.compile(_fresh(matmul), a, b, c, target="cpu", **tiles)
    assert not k.warm
    assert k.compilation().options.planner.accumulator_residency is False
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert tc.compile(_fresh(matmul), a, b, c, target="cpu", **tiles).warm


def test_an_edited_tilec_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = _mm()
    tc.compile(_fresh(matmul), a, b, c, target="cpu").executable()
    assert tc.compile(_fresh(matmul), a, b, c, target="cpu").warm
    monkeypatch.setattr(warm, "code_fingerprint", lambda: "another tilec")
    assert not tc.compile(_fresh(matmul), a, b, c, target="cpu").warm


def test_a_tuning_record_written_later_is_seen(cache: Path) -> None:
    a, b, c = _mm()
    k = _fresh(matmul)
    sel = tc.compile(k, a, b, c, target="cpu").selection
    assert sel.source == "default"
    # the record this call consults, as tc.tune would write it (here: unreadable)
    entries = list((cache / "warm" / "resolution").rglob("*.json"))
    assert len(entries) == 1
    record = json.loads(entries[0].read_text())["record"]
    assert record is not None and not Path(record).exists()
    Path(record).parent.mkdir(parents=True, exist_ok=True)
    Path(record).write_text("{not json")
    with pytest.warns(tc.RecordWarning, match="not valid JSON"):
        again = tc.compile(_fresh(matmul), a, b, c, target="cpu").selection
    assert again.source == "default"
    with warnings.catch_warnings(record=True) as seen:  # ignored records are not cached
        warnings.simplefilter("always")
        tc.compile(_fresh(matmul), a, b, c, target="cpu")
    assert any(issubclass(w.category, tc.RecordWarning) for w in seen)


def test_a_kernel_without_source_takes_the_full_path() -> None:
    scope: dict[str, Any] = {"tc": tc}
    exec(textwrap.dedent("""
        @tc.kernel
        def twice(X, Y):
            for p in tc.parallel(1):
                Y.tile((0,), (8,)).store(X.tile((0,), (8,)).load() * 2.0)
    """), scope)
    assert warm.kernel_digest(scope["twice"].fn) is None


def test_what_a_kernel_digest_reads() -> None:
    import math

    def digest(**g: Any) -> str | None:
        k = _fresh(matmul)
        fn = k.fn
        clone = type(fn)(fn.__code__, {**fn.__globals__, **g}, fn.__name__, fn.__defaults__,
                         fn.__closure__)
        return warm.kernel_digest(clone)

    base = digest()
    assert base is not None and base == digest()
    assert digest(unused_name=3) == base  # names the kernel does not mention do not count
    assert digest(tc=math) != base  # what ``tc`` is does
    assert digest(tc=tc) == base


# ------------------------------------------------------------------ the launch path


@tc.kernel
def shifted(X, Y, s):
    assert s >= 0, "the shift is not negative"
    for p in tc.parallel(X.shape[0] // 8):
        Y.tile((p * 8,), (8,)).store(X.tile((p * 8,), (8,)).load() + s)


def _count_bindings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from tilec.targets.cpu import runtime

    seen: list[int] = []
    real = runtime.bind_arguments

    def counting(*a: Any, **kw: Any) -> Any:
        seen.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(runtime, "bind_arguments", counting)
    return seen


def test_a_call_with_a_bound_signature_skips_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = _mm()
    k = tc.compile(_fresh(matmul), a, b, c, target="cpu", BM=16, BN=16, BK=16)
    seen = _count_bindings(monkeypatch)
    checks: list[int] = []
    real_check = k.check_args
    monkeypatch.setattr(k, "check_args", lambda args: (checks.append(1), real_check(args)))
    for _ in range(3):
        k(a, b, c)
    assert len(seen) == 1 and len(checks) == 1
    other = [x.copy() for x in (a, b, c)]  # new arrays, same signature: still bound
    k(*other)
    assert len(seen) == 1 and k.executable().bindings_made == 1
    np.testing.assert_allclose(other[2], a @ b, rtol=1e-4, atol=1e-4)
    k(*_mm(24))  # another shape: bound (and checked) again
    assert len(seen) == 2 and len(checks) == 2


def test_the_jit_entry_skips_binding_too(monkeypatch: pytest.MonkeyPatch) -> None:
    k = _fresh(matmul)
    a, b, c = _mm()
    k(a, b, c, BM=16, BN=16, BK=16)
    seen = _count_bindings(monkeypatch)
    for _ in range(3):
        k(a, b, c, BM=16, BN=16, BK=16)
    assert seen == []


def test_a_changed_stride_dtype_or_alias_is_checked_again() -> None:
    a, b, c = _mm()
    k = tc.compile(_fresh(matmul), a, b, c, target="cpu", BM=16, BN=16, BK=16)
    k(a, b, c)
    with pytest.raises(tc.ArgumentError, match="not C-contiguous"):
        k(a.T, b, c)  # same shape and dtype, other strides
    with pytest.raises(tc.ArgumentError, match="compiled for float32 arrays, got float64"):
        k(a.astype(np.float64), b, c)
    with pytest.raises(tc.ArgumentError, match="overlaps argument 0"):
        k(a, b, a)  # the bound signature, an output aliasing an input
    ro = c.copy()
    ro.flags.writeable = False
    with pytest.raises(tc.ArgumentError, match="read-only"):
        k(a, b, ro)
    k(a, b, c)  # and the bound call still works
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_scalar_values_are_checked_every_call() -> None:
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    k = tc.compile(_fresh(shifted), x, y, 1.0, target="cpu")
    k(x, y, 1.0)
    assert float(y[2]) == 3.0
    with pytest.raises(tc.KernelAssertionError, match="the shift is not negative"):
        k(x, y, -1.0)
    k(x, y, 2.5)
    assert float(y[2]) == 4.5
