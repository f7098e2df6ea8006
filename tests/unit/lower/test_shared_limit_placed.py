"""The group's shared memory is checked against the target's limit as it is placed: each
buffer at the target's alignment (``ir.allocation``), not the sum of the buffers' sizes.
lib.layernorm with one 256-column row per group has an 8-byte buffer and a 1024-byte one:
1032 bytes counted, 1152 placed (the second buffer starts at 128). A limit between the two
is a located error at the machine stage and at the allocate stage, never a launch
failure."""

from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.driver import compile_module
from tilec.lower import LoweringError, LowerOptions, lower_to_machine
from tilec.lower.machine import _FunctionLowering

norms = importlib.import_module("tilec.lib.norms")

COUNTED, PLACED = 1032, 1152


def _module() -> ir.Module:
    x = np.ones((64, 256), np.float32)
    w = np.ones(256, np.float32)
    return tc.compile(norms.layernorm, x, w, w.copy(), x.copy(), 1e-5, target="reference",
                      BM=1, BN=256).module


def _grid(module: ir.Module) -> ir.Operation:
    (grid,) = [op for f in module for op in f.walk()
               if op.name == "parallel" and op.attr("level") == "grid"]
    return grid


def test_the_case_lands_over_a_limit_by_alignment_only() -> None:
    grid = _grid(lower_to_machine(_module(), "cuda:sm_90"))
    assert sum(ir.allocation.buffer_bytes(b) for b in ir.allocation.shared_buffers(grid)) \
        == COUNTED
    assert ir.shared_layout(grid, 128).launch_bytes == PLACED


def test_the_machine_stage_checks_the_placed_bytes(monkeypatch) -> None:
    monkeypatch.setattr(_FunctionLowering, "shared_limit", lambda self: COUNTED + 8)
    with pytest.raises(LoweringError, match=f"needs {PLACED} bytes of shared memory; "
                                            f"cuda:sm_90 allows {COUNTED + 8}") as e:
        lower_to_machine(_module(), "cuda:sm_90")
    assert "norms.py" in str(e.value)  # located at the group
    monkeypatch.setattr(_FunctionLowering, "shared_limit", lambda self: PLACED)
    lower_to_machine(_module(), "cuda:sm_90")  # exactly full fits


def test_allocate_shared_refuses_a_placement_over_the_limit() -> None:
    module = lower_to_machine(_module(), "cuda:sm_90")
    with pytest.raises(ir.SharedCapacityError) as e:
        ir.allocate_shared(module, 128, PLACED - 1)
    msg = str(e.value)
    assert "@layernorm" in msg and f"places {PLACED} bytes" in msg
    assert f"allows {PLACED - 1} per group" in msg and "norms.py" in msg
    assert isinstance(e.value, tc.UserError)
    ir.allocate_shared(module, 128, PLACED)
    assert _grid(module).attr("shared_bytes") == PLACED
    ir.allocate_shared(module, 128)  # no limit: no check


def test_the_allocate_stage_passes_the_profiles_limit(monkeypatch) -> None:
    """The driver's allocate stage checks the profile's limit (the machine stage's check is
    switched off here, so the placement is the only one that can refuse)."""
    import tilec.exec as ex

    real = ex.get_profile
    monkeypatch.setattr(ex, "get_profile",
                        lambda name: replace(real(name), shared_bytes_per_group=COUNTED + 8))
    monkeypatch.setattr(_FunctionLowering, "shared_limit", lambda self: None)
    with pytest.raises(ir.SharedCapacityError, match=f"places {PLACED} bytes"):
        compile_module(_module(), "layernorm", "cuda:sm_90", "allocate", LowerOptions())
