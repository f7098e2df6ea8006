"""The CUDA printer of tensor copies and transaction barriers (docs/design/hopper.md)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import tilec as tc
from tilec.driver import compile_module
from tilec.lib import matmul
from tilec.lower import LowerOptions
from tilec.targets.cuda.emitter import emit_cuda


def _source(m: int, n: int, k: int, tma: bool = True, target: str = "cuda:sm_90"):
    a = np.ones((m, k), ml_dtypes.bfloat16)
    b = np.ones((k, n), ml_dtypes.bfloat16)
    c = np.zeros((m, n), np.float32)
    module = tc.compile(matmul, a, b, c, target="reference", BM=128, BN=128, BK=64).module
    comp = compile_module(module, "matmul", target, "allocate", LowerOptions(tma=tma))
    return emit_cuda(comp.module, "matmul", target)


def test_tensor_maps_are_kernel_parameters_after_the_others() -> None:
    src = _source(256, 256, 256)
    kinds = [p.kind for p in src.params]
    tmaps = [p for p in src.params if p.kind == "tmap"]
    assert kinds[-len(tmaps):] == ["tmap"] * 2
    # one map per (array, box): A's 128 x 64 box, B's 64 x 64 box
    assert [(p.source, p.box, p.swizzle) for p in tmaps] == [((0, 0), (128, 64), 128),
                                                              ((1, 0), (64, 64), 128)]
    assert "const __grid_constant__ tc_tmap tc_tmap0" in src.text
    assert src.text.count("tc_tma_load_2d(tc_smem_addr(") == 9
    assert "tc_mbar_wait(" in src.text and "tc_mbar_expect_tx(" in src.text
    assert src.aligned16 >= {0, 1}  # the copies need 16-byte aligned bases


def test_without_tensor_copies_nothing_of_them_is_printed() -> None:
    src = _source(256, 256, 256, tma=False)
    assert not [p for p in src.params if p.kind == "tmap"]
    assert "tc_tma_load" not in src.text and "tc_mbar" not in src.text
    assert "cp.async.cg.shared.global" in src.text
