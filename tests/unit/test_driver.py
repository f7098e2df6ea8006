"""The compile driver: each target's declared pipeline, stage records, stopping and resuming,
building CUDA without a GPU driver, and ``tilec ir --after``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.cli import main
from tilec.driver import STAGES, UnknownStage, compile_module
from tilec.lib.matmul import matmul
from tilec.lib.softmax import softmax
from tilec.lower import lower_to_machine
from tilec.runtime import why_unavailable

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _gemm(target: str) -> tc.Compiled:
    """A fresh compilation (its own kernel object, so no other test's cached one)."""
    a = np.ones((40, 24), np.float32)
    b = np.ones((24, 36), np.float32)
    c = np.zeros((40, 36), np.float32)
    return tc.compile(tc.kernel(matmul.fn), a, b, c, target=target, BM=32, BN=32, BK=16)


def _needs_nvrtc() -> None:
    why = why_unavailable("cuda:sm_90", run=False)
    if why is not None:
        pytest.skip(f"CUDA kernels cannot be built here: {why}")


@pytest.mark.parametrize("target, stages", [
    ("reference", ["capture", "build"]),
    ("cpu", ["capture", "plan", "emit", "build"]),
    ("simt:cuda:sm_90", ["capture", "plan", "schedule", "machine", "allocate", "build"]),
])
def test_each_target_declares_its_pipeline(target: str, stages: list[str]) -> None:
    compiled = _gemm(target)
    got = compiled.stages
    assert list(got) == stages
    forms = {"capture": "candidate", "plan": "plan", "schedule": "scheduled",
             "machine": "machine", "allocate": "machine", "emit": "source", "build": "binary"}
    assert [r.form for r in got.values()] == [forms[s] for s in stages]
    assert got["build"].value is compiled.executable()
    for r in got.values():
        assert r.text and r.seconds >= 0
        if isinstance(r.value, ir.Module):
            ir.verify(r.value, r.form)  # what the driver checked after the stage


def test_cuda_pipeline_builds_without_a_gpu_driver() -> None:
    _needs_nvrtc()
    compiled = _gemm("cuda:sm_90")
    assert list(compiled.stages) == ["capture", "plan", "schedule", "machine", "allocate",
                                     "emit", "build"]
    assert compiled.source.startswith("/* tilec CUDA backend: @matmul for cuda:sm_90 */")
    assert compiled.source == compiled.after("emit")
    assert compiled.executable().cubin.data
    assert compiled.resources.registers is None or compiled.resources.registers > 0
    assert "registers" in compiled.after("build")


def test_a_kernel_built_where_it_cannot_run_says_why() -> None:
    _needs_nvrtc()
    if why_unavailable("cuda:sm_90") is None:
        pytest.skip("a CUDA device is present: kernels run here")
    compiled = _gemm("cuda:sm_90")
    a, b, c = (np.ones((40, 24), np.float32), np.ones((24, 36), np.float32),
               np.zeros((40, 36), np.float32))
    with pytest.raises(tc.TargetUnavailable, match="'cuda:sm_90' is unavailable here: "):
        compiled(a, b, c)


def test_the_plan_stage_is_the_plan_that_lowering_commits() -> None:
    compiled = _gemm("simt:cuda:sm_90")
    comp = compiled.compilation("machine")
    assert comp.plan is compiled.plan and comp.plan.groups
    assert comp.plan.groups[0].selected is not None
    # Lowering that plans for itself gives the same Machine TileIR, text for text.
    alone = lower_to_machine(compiled.module, "cuda:sm_90")
    assert str(alone) == compiled.after("machine")


def test_a_compilation_stops_after_a_stage_and_resumes() -> None:
    compiled = _gemm("simt:cuda:sm_80")
    comp = compiled.compilation("schedule")
    assert list(comp.stages) == ["capture", "plan", "schedule"] and not comp.complete
    assert comp.executable is None
    assert 'form = "scheduled"' in comp.after("schedule")
    assert 'form = "machine"' in compiled.after("machine")
    assert comp.executable is None  # still not built
    compiled.executable()
    assert comp.complete and list(comp.stages)[-1] == "build"


def test_unknown_stages_are_named_with_the_pipeline() -> None:
    compiled = _gemm("cpu")
    with pytest.raises(UnknownStage, match=r"target 'cpu' has no stage 'machine' \(its pipeline: "
                                           r"capture, plan, emit, build\)"):
        compiled.after("machine")
    with pytest.raises(UnknownStage, match="stages are capture, plan, schedule"):
        compiled.after("lowering")


def test_compile_module_runs_a_module_directly() -> None:
    module = _gemm("reference").module
    comp = compile_module(module, "matmul", "simt:cuda:sm_90", until="machine")
    assert comp.module.lookup("matmul").attributes["form"] == "machine"
    with pytest.raises(KeyError, match="no function @nope"):
        compile_module(module, "nope", "cpu")


@pytest.mark.parametrize("target", ["cpu", "cuda:sm_90"])
def test_cli_ir_prints_every_stage(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    if target.startswith("cuda"):
        _needs_nvrtc()
    stages = _gemm(target).compilation("capture").pipeline
    expect = {"capture": "func @matmul(", "plan": f"plan for {target}",
              "schedule": 'form = "scheduled"', "machine": 'form = "machine"',
              "allocate": "offset = 0",
              "emit": "tilec C backend" if target == "cpu" else "tilec CUDA backend",
              "build": "<CExecutable" if target == "cpu" else "registers"}
    for stage in ("capture",) + stages:
        assert main(["ir", str(EXAMPLES / "matmul.py"), "--after", stage,
                     "--target", target]) == 0
        out = capsys.readouterr().out
        assert f"examples.matmul after {stage} for {target}" in out
        assert expect[stage] in out, stage
        if stage == "plan" and target == "cpu":  # the target's own realization plan
            assert "cpu realization of @matmul" in out and "register blocks" in out
    assert set(STAGES) >= set(stages)


def test_cli_ir_refuses_a_stage_the_target_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ir", str(EXAMPLES / "matmul.py"), "--after", "machine",
                 "--target", "cpu"]) == 1
    err = capsys.readouterr().err
    assert "tilec: target 'cpu' has no stage 'machine'" in err
    assert main(["ir", str(EXAMPLES / "matmul.py"), "--form", "scheduled",
                 "--target", "simt:cuda:sm_90"]) == 0
    assert 'form = "scheduled"' in capsys.readouterr().out


def test_the_allocate_stage_places_shared_buffers_and_keeps_the_machine_record() -> None:
    compiled = _gemm("simt:cuda:sm_90")
    machine, placed = compiled.after("machine"), compiled.after("allocate")
    assert "offset =" not in machine and "offset = 0" in placed
    grid = next(op for op in compiled.stages["allocate"].value.lookup("matmul").walk()
                if op.name == "parallel" and op.attr("level") == "grid")
    lay = ir.shared_layout(grid, 128)
    offsets = sorted(lay.offsets.values())
    assert offsets[0] == 0 and all(o % 128 == 0 for o in offsets)
    assert grid.attr("shared_bytes") == lay.launch_bytes == lay.end > 0


def test_machine_tileir_enters_after_the_machine_stage() -> None:
    machine = _gemm("simt:cuda:sm_90").stages["machine"].value
    comp = compile_module(machine, "matmul", "simt:cuda:sm_90")
    assert list(comp.stages) == ["capture", "allocate", "build"]
    assert comp.skipped == ("plan", "schedule", "machine")
    with pytest.raises(UnknownStage, match="came as Machine TileIR: stages plan, schedule, "
                                           "machine did not run"):
        comp.after("schedule")


@pytest.mark.parametrize("target", ["cpu", "cuda:sm_90"])
def test_a_kernel_prints_the_same_source_whatever_was_compiled_before(target: str) -> None:
    """Generated code names operations by their number in the module (``ir.op_number``), not
    by the process-wide ``Operation.id``, so the source and its cache key do not depend on
    what else the process compiled."""
    if target.startswith("cuda"):
        _needs_nvrtc()
    first = _gemm(target).after("emit")
    x = np.ones((64, 64), np.float32)
    tc.compile(tc.kernel(softmax.fn), x, x.copy(), target=target).after("emit")
    again = _gemm(target).after("emit")
    assert again == first
