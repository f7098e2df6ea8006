"""CUDA integer arithmetic wraps like TileIR says, without relying on undefined behaviour.

TileIR integers wrap in two's complement (docs/design/tileir.md). The C target builds
with ``-fwrapv``; NVRTC has no such flag and signed overflow is undefined in C++, so the
CUDA emitter computes 32- and 64-bit add/sub/mul/neg/abs/fma through the unsigned type,
except where value ranges prove that nothing can overflow. The GPU run of the same
kernel is ``tests/device/test_cuda_integer_wrap.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec as tc
from tilec import lower
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.cuda.emitter import emit_cuda


@tc.kernel
def wrap_ops(X, Y, k: tc.int32):
    N = X.shape[0]
    for i in tc.parallel(tc.cdiv(N, 64)):
        x = X.tile((i * 64,), (64,), fill=0)
        Y.tile((i * 64,), (64,)).store(x * k + x * x - (-x) * 7)


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    x = (np.arange(200, dtype=np.int64) * 40503 - 4_000_000).astype(np.int32)
    return x, np.full(200, -7, np.int32)


def _expected(x: np.ndarray, k: int) -> np.ndarray:
    w = x.astype(np.int64)
    return ((w * k + w * w + w * 7) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("path", ["reference", "cpu", "cuda:sm_90", "metal:m1"])
def test_every_path_wraps(path: str) -> None:
    x, y = _inputs()
    if path in ("reference", "cpu"):
        tc.compile(wrap_ops, x, y, 65537, target=path)(x, y, 65537)
    else:
        tc.simulate(wrap_ops, x, y, 65537, target=path)
    np.testing.assert_array_equal(y, _expected(x, 65537))


def test_cuda_source_multiplies_through_unsigned() -> None:
    x, y = _inputs()
    comp = tc.compile(wrap_ops, x, y, 3, target="reference")
    src = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90"), comp.fn_name)
    body = src.text[src.text.index("__global__"):]
    products = re.findall(r"\(\(int32_t\)\(\(uint32_t\)\S+ \* \(uint32_t\)\S+\)\)", body)
    assert len(products) >= 3, body
    assert not re.search(r"\(\(int32_t\)\(\w+ \* \w+\)\)", body)
    why = nvrtc_available()
    if why is None:
        cub = compile_cubin(src.text, "sm_90", src.kernel)
        assert cub.data[:4] == b"\x7fELF"
