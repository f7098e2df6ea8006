"""The GPU launching process, without a GPU: ``GpuRunner`` runs a fake executor and a fake
context probe (this module's, imported by the spawned child) and must give each program its
own outcome, copy the outputs back, and replace the child after a lost context, a death or a
hang, counting the replacements; a campaign's table and records show them.

One runner serves the module (each start of a child costs about a second); each test checks
the restarts it caused, not the total.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tilec.testing.fuzz import ChoiceStream, generate
from tilec.testing.fuzz.campaign import Campaign, records
from tilec.testing.fuzz.gpu import GpuRunner
from tilec.testing.fuzz.paths import Outcome, execute, gpu_available
from tilec.testing.fuzz.runner import run_program

ILLEGAL = "CUDA error: an illegal instruction was encountered"

_dead = False
"""In the child: set once a fake launch has "lost the context"; a fresh child starts clear."""


def fake_execute(path: str, kernel: Any, args: list[Any], file: str,
                 timeout: float | None) -> Outcome:
    """Stands in for ``paths.execute``: the kernel file's ``fuzz_kernel`` says what to do
    (a real kernel runs on the reference path)."""
    global _dead
    if _dead:  # like a dead context: every launch fails the same way
        return Outcome("internal", f"RuntimeError: {ILLEGAL}", f"RuntimeError: {ILLEGAL}")
    if not isinstance(kernel, str):
        return execute("reference", kernel, args, file, timeout)
    if kernel == "ok":
        args[-1][...] = 7
        return Outcome("ran")
    if kernel == "plain error":  # internal, but the context is fine
        return Outcome("internal", "ValueError: plain", "ValueError: plain")
    if kernel == "illegal":
        _dead = True
        return Outcome("internal", f"RuntimeError: {ILLEGAL}", f"RuntimeError: {ILLEGAL}")
    if kernel == "hang":
        time.sleep(120)
    if kernel == "exit":
        os._exit(3)
    raise AssertionError(f"unknown fake kernel {kernel!r}")


def fake_probe() -> str | None:
    """Stands in for ``gpu_child.cuda_probe``."""
    return f"RuntimeError: {ILLEGAL}" if _dead else None


@pytest.fixture(scope="module")
def runner() -> Iterator[GpuRunner]:
    r = GpuRunner(timeout=60.0, grace=0.5, executor=f"{__name__}:fake_execute",
                  probe=f"{__name__}:fake_probe", check_device=False)
    yield r
    r.close()


def _file(tmp_path: Any, what: str) -> str:
    path = tmp_path / f"fake_{what.replace(' ', '_')}.py"
    path.write_text(f"fuzz_kernel = {what!r}\n")
    return str(path)


def _run(runner: GpuRunner, tmp_path: Any, what: str) -> tuple[Outcome, np.ndarray]:
    args = [np.zeros(3, np.float32), np.full(4, np.nan, np.float32)]
    out = runner.run(None, args, _file(tmp_path, what), "cuda")
    return out, args[1]


def test_no_gpu_is_refused_up_front() -> None:
    why = gpu_available()
    if why is None:
        pytest.skip("a GPU is here: the check passes")
    with pytest.raises(RuntimeError, match="the cuda path cannot run here"):
        GpuRunner()


def test_a_launch_returns_its_outcome_and_outputs(runner: GpuRunner, tmp_path: Any) -> None:
    before = runner.restarts
    out, y = _run(runner, tmp_path, "ok")
    assert out.kind == "ran", out
    assert (y == 7).all(), y
    out, _ = _run(runner, tmp_path, "plain error")  # probed, found alive: kept
    assert (out.kind, out.reason) == ("internal", "ValueError: plain")
    assert "restarted" not in out.detail
    assert runner.restarts == before


def test_a_real_program_round_trips(runner: GpuRunner, tmp_path: Any) -> None:
    """The child imports the kernel from the parent's file and the outputs come back: the
    reference standing in for the GPU agrees with the reference."""
    prog = generate(ChoiceStream(3), {"elementwise": 1, "windows": 1})
    res = run_program(prog, ["reference", "cuda"], str(tmp_path), gpu_runner=runner.run)
    assert res.outcomes["cuda"].kind == "ok", res.outcomes["cuda"]


def test_a_lost_context_restarts_the_child(runner: GpuRunner, tmp_path: Any) -> None:
    before = runner.restarts
    out, _ = _run(runner, tmp_path, "illegal")
    assert out.kind == "internal" and ILLEGAL in out.reason, out
    assert "the CUDA context was lost" in out.detail
    assert runner.restarts == before + 1
    assert runner.restart_causes[f"RuntimeError: {ILLEGAL}"] >= 1
    out, y = _run(runner, tmp_path, "ok")  # in the old child this would fail too
    assert out.kind == "ran", out
    assert (y == 7).all()
    assert runner.restarts == before + 1


def test_a_hang_is_a_timeout_and_restarts_the_child(runner: GpuRunner, tmp_path: Any) -> None:
    before, timeout = runner.restarts, runner.timeout
    runner.timeout = 0.5
    try:
        t0 = time.monotonic()
        out, _ = _run(runner, tmp_path, "hang")
        assert time.monotonic() - t0 < 30
    finally:
        runner.timeout = timeout
    assert out.kind == "timeout", out
    assert runner.restarts == before + 1
    out, _ = _run(runner, tmp_path, "ok")
    assert out.kind == "ran", out


def test_a_dead_child_is_internal_and_restarted(runner: GpuRunner, tmp_path: Any) -> None:
    before = runner.restarts
    out, _ = _run(runner, tmp_path, "exit")
    assert out.kind == "internal", out
    assert out.reason == "the launching process died (exit code 3)"
    assert runner.restarts == before + 1
    out, _ = _run(runner, tmp_path, "ok")
    assert out.kind == "ran", out
    assert runner.restarts == before + 1


def test_the_campaign_reports_restarts() -> None:
    camp = Campaign(["reference", "cuda"], 1, {})
    camp.gpu_restarts = Counter({f"RuntimeError: {ILLEGAL}": 2})
    table = camp.table()
    assert "GPU launching process restarts: 2" in table
    assert f"restarted 2x after: RuntimeError: {ILLEGAL}" in table
    recs = {r["target"]: r for r in records(camp, ["fuzz"], None)}
    assert recs["cuda"]["gpu_restarts"] == 2
    assert recs["cuda"]["gpu_restarts_by_reason"] == {f"RuntimeError: {ILLEGAL}": 2}
    assert recs["reference"]["gpu_restarts"] == 0
    assert "restarts" not in Campaign(["reference", "cpu"], 1, {}).table()
