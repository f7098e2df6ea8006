"""Golden printed IR, one small kernel per DSL construct.

Each kernel of ``golden_kernels.GOLDENS`` is captured and its ``compiled.ir``
compared with ``tests/filecheck/frontend/<name>.tir``. Every golden also
verifies and round-trips through ``tilec.ir.parse``. Regenerate after an
intended change with ``TILEC_UPDATE_GOLDENS=1 pytest tests/unit/frontend``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from golden_kernels import GOLDENS

import tilec as tc
import tilec.ir as ir

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "filecheck" / "frontend"
UPDATE = os.environ.get("TILEC_UPDATE_GOLDENS") == "1"


def _compiled(name: str) -> tc.Compiled:
    kernel, args, constexprs = GOLDENS[name]
    return tc.compile(kernel, *args, target="reference", **constexprs)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_printed_ir_matches_golden(name):
    text = _compiled(name).ir
    path = GOLDEN_DIR / f"{name}.tir"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"missing golden {path}; run with TILEC_UPDATE_GOLDENS=1 to create it")
        path.write_text(text)
    assert text == path.read_text(), f"printed IR of {name} differs from {path}"


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_verifies_and_round_trips(name):
    c = _compiled(name)
    ir.verify(c.module)
    again = ir.parse(c.ir)
    assert ir.structurally_equal(c.module, again), ir.explain_difference(c.module, again)
    ir.verify(again)
    assert ir.print_module(again) == c.ir
