"""A call trace of ``tc.compile(...).executable()``: frontend -> driver -> planner and
lowering -> target, and no call goes back up that chain (docs/design/architecture.md)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import matmul
from tilec.runtime import why_unavailable

RANKS = {"tilec.frontend": 0, "tilec.driver": 1, "tilec.plan": 2, "tilec.lower": 2}
"""The chain; a target package (``tilec.targets.<name>``) comes last. The IR, the
execution calculus, the registry and the modules targets share are called from anywhere."""

QUERIES = {"compile_identity", "device_identity", "planner_overrides"}
"""What the driver asks a backend before any stage runs (a warm start's key: what the
target's products depend on): questions, not work, so they do not order the chain."""


def _rank(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] == ["tilec", "targets"] and len(parts) > 3:
        if parts[3] == "profile":
            return None  # a target's profile is data every layer reads (exec.get_profile)
        return 3  # tilec.targets.<target>.<module>
    return RANKS.get(".".join(parts[:2]))


def _trace(target: str, warm_hit: bool = False) -> tuple[list[int], list[str]]:
    a = np.ones((40, 24), np.float32)
    b = np.ones((24, 36), np.float32)
    c = np.zeros((40, 36), np.float32)
    order: list[int] = [0]  # the frontend's compile is where the trace starts
    back: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        caller = frame.f_back.f_globals.get("__name__", "")
        rc, re_ = _rank(caller), _rank(callee)
        # The order of the work: calls from one layer of the chain into another (not the
        # registry building the backend object, nor a module's own body when imported).
        if re_ is not None and rc is not None and rc != re_ and order[-1] != re_ \
                and frame.f_code.co_name not in QUERIES:
            order.append(re_)
        if rc is not None and re_ is not None and re_ < rc:
            back.append(f"{caller}.{frame.f_back.f_code.co_name} -> "
                        f"{callee}.{frame.f_code.co_name}")

    kernel = tc.kernel(matmul.fn)  # its own caches: nothing compiled before in this process
    if warm_hit:  # another process compiled it: its launch record is on disk
        tc.compile(tc.kernel(matmul.fn), a, b, c, target=target, BM=32, BN=32,
                   BK=16).executable()
    sys.setprofile(profile)
    try:
        tc.compile(kernel, a, b, c, target=target, BM=32, BN=32, BK=16).executable()
    finally:
        sys.setprofile(None)
    return order, back


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of the test's own: no launch record of an earlier run short-cuts the chain."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize("target", ["cuda:sm_90", "simt:cuda:sm_90", "cpu"])
def test_compile_goes_down_the_chain_without_back_edges(target: str) -> None:
    if target.startswith("cuda") and why_unavailable(target, run=False) is not None:
        pytest.skip(f"CUDA kernels cannot be built here: {why_unavailable(target, run=False)}")
    order, back = _trace(target)
    assert not back, "calls back up the chain:\n" + "\n".join(sorted(set(back))[:20])
    firsts = [r for i, r in enumerate(order) if r not in order[:i]]
    assert firsts == [0, 1, 2, 3], firsts  # frontend, driver, plan/lower, the target


def test_a_warm_start_goes_from_the_driver_to_the_target_without_planning() -> None:
    order, back = _trace("cpu", warm_hit=True)
    assert not back, "calls back up the chain:\n" + "\n".join(sorted(set(back))[:20])
    firsts = [r for i, r in enumerate(order) if r not in order[:i]]
    assert firsts == [0, 1, 3], firsts  # frontend, driver, the target: no plan, no lowering


_LOWERING_BUILD = """
def lowering_build(self, module, fn_name, src):
    from tilec.lower.reductions import identity

    identity("add", ir.f32)  # the target reaching back into lowering
    return original_build(self, module, fn_name, src)
"""


def test_a_target_calling_lowering_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from tilec.targets.cpu import backend as cb

    # Defined among the target module's globals, as a target's own function would be.
    scope = dict(vars(cb), original_build=cb.CBackend.build)
    exec(_LOWERING_BUILD, scope)
    monkeypatch.setattr(cb.CBackend, "build", scope["lowering_build"])
    _, back = _trace("cpu")
    assert back == ["tilec.targets.cpu.backend.lowering_build -> "
                    "tilec.lower.reductions.identity"], back
