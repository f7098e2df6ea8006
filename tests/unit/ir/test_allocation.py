"""Shared-memory placement (``ir.allocation``) and the Machine verifier's check of it."""

from __future__ import annotations

import numpy as np
import pytest
from ml_dtypes import bfloat16

import tilec as tc
import tilec.ir as ir
from tilec.driver import compile_module
from tilec.ir.allocation import buffer_bytes, shared_buffers
from tilec.ir.atoms import SWIZZLE_ALIGN
from tilec.lib.matmul import matmul


def _placed(dtype: type = np.float32, tiles: tuple[int, int, int] = (32, 32, 16),
            target: str = "simt:cuda:sm_90") -> tuple[ir.Module, ir.Operation]:
    bm, bn, bk = tiles
    a = np.ones((128, 128), dtype)
    b = np.ones((128, 128), dtype)
    c = np.zeros((128, 128), np.float32)
    comp = tc.compile(tc.kernel(matmul.fn), a, b, c, target="reference", BM=bm, BN=bn, BK=bk)
    module = compile_module(comp.module, comp.fn_name, target, until="allocate").module
    grid = next(op for op in module.lookup("matmul").walk()
                if op.name == "parallel" and op.attr("level") == "grid")
    return module, grid


def _issues(module: ir.Module) -> list[str]:
    return [str(e) for e in ir.verify(module, "machine", collect=True)]


def test_buffers_are_placed_in_order_aligned_and_disjoint() -> None:
    module, grid = _placed()
    bufs = list(shared_buffers(grid))
    assert len(bufs) >= 2
    end = 0
    for b in bufs:
        off = b.attr("offset")
        assert off % 128 == 0 and off >= end
        end = off + buffer_bytes(b)
    assert grid.attr("shared_bytes") == end and grid.attr("shared_base_align") is None
    assert _issues(module) == []


def test_a_swizzled_buffer_aligns_the_base_and_adds_slack() -> None:
    module, grid = _placed(bfloat16, (128, 128, 64))
    swizzled = [b for b in shared_buffers(grid) if b.attr("swizzle")]
    if not swizzled:
        pytest.skip("this plan stages no swizzled (warpgroup) operand")
    assert all(b.attr("offset") % SWIZZLE_ALIGN == 0 for b in swizzled)
    lay = ir.shared_layout(grid, 128)
    assert grid.attr("shared_base_align") == SWIZZLE_ALIGN == lay.slack
    assert grid.attr("shared_bytes") == lay.end + SWIZZLE_ALIGN
    assert _issues(module) == []


def test_the_verifier_catches_a_wrong_placement() -> None:
    module, grid = _placed()
    first, second = list(shared_buffers(grid))[:2]
    second.attributes["offset"] = first.attr("offset") + 4
    assert any("shared buffers overlap" in e for e in _issues(module))
    second.attributes.pop("offset")
    assert any("has no offset while others of its group have one" in e
               for e in _issues(module))
    ir.allocate_shared(module, 128)
    grid.attributes["shared_bytes"] = 8
    assert any("is less than the" in e for e in _issues(module))
    ir.allocate_shared(module, 128)  # places afresh
    assert _issues(module) == []
