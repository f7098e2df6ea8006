"""Printed Machine TileIR goldens: a small bf16 GEMM and a row softmax.

The expected text lives in ``tests/filecheck/machine/<name>.tir``. After an
intended change, regenerate with ``TILEC_UPDATE_GOLDENS=1 pytest
tests/unit/lower/test_lower_goldens.py`` and review the diff. Every golden
also parses back to a structurally equal module that verifies in Machine form.
"""

from __future__ import annotations

import os
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.lib import matmul, softmax
from tilec.lower import lower_to_machine

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "filecheck" / "machine"
UPDATE = os.environ.get("TILEC_UPDATE_GOLDENS") == "1"


def _gemm() -> ir.Module:
    a = tc.array((None, None), ml_dtypes.bfloat16)
    c = tc.array((None, None), np.float32)
    m = tc.compile(matmul, a, a, c, target="reference", BM=32, BN=16, BK=16).module
    return lower_to_machine(m, "cuda:sm_90")


def _softmax() -> ir.Module:
    x = tc.array((None, None), np.float32)
    m = tc.compile(softmax, x, x, target="reference", BM=2, BN=64).module
    return lower_to_machine(m, "cuda:sm_90")


GOLDENS = {"gemm_bf16_sm90": _gemm, "softmax_rows_sm90": _softmax}


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_machine_golden(name):
    module = GOLDENS[name]()
    text = ir.print_module(module)
    path = GOLDEN_DIR / f"{name}.tir"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{path.name} changed; see the module docstring"
    again = ir.parse(text)
    assert ir.structurally_equal(module, again), ir.explain_difference(module, again)
    ir.verify(again, "machine")


def test_golden_gemm_uses_the_matrix_atom_and_stores_fragments_directly():
    text = (GOLDEN_DIR / "gemm_bf16_sm90.tir").read_text()
    assert 'catalog_id = "mma.m16n8k16.bf16"' in text
    # The staging protocol needs one group barrier per K iteration (see machine_pipeline).
    assert text.count('catalog_id = "barrier.group"') == 1
    assert 'catalog_id = "cp.async.wait", pending = 0' in text
    assert "scratch" not in text  # the accumulator never goes through shared memory


def test_golden_softmax_has_no_shared_memory():
    text = (GOLDEN_DIR / "softmax_rows_sm90.tir").read_text()
    assert 'catalog_id = "shfl.xor"' in text
    assert "memory()" not in text and "barrier.group" not in text
