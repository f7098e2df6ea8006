"""Device tests: they need a GPU and skip elsewhere, with the reason in pytest's summary (-ra).

Fixtures:

* ``cuda_device``: skips unless ``tilec.targets.cuda.backend.probe()`` finds a
  CUDA device, cuda-core and NVRTC;
* ``torch_cuda``: the ``torch`` module with CUDA available (device tensors are
  made with torch), else a skip.

Device tests import the shared helpers from ``tests/paths.py`` and the kernels of the
regression test they repeat on the GPU from its module (``tests/regression``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

_TESTS = Path(__file__).resolve().parents[1]
# the shared helpers (paths.py), the regression modules whose kernels the GPU runs again,
# and the CUDA unit tests' Machine IR samples
for p in (_TESTS, _TESTS / "regression", _TESTS / "unit" / "targets" / "cuda"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


@pytest.fixture(scope="session")
def cuda_device() -> None:
    """Skip (with the reason) unless the CUDA target can run here."""
    try:
        from tilec.targets.cuda.backend import probe
    except ImportError as e:
        pytest.skip(f"CUDA backend not importable: {e}")
    why = probe()
    if why is not None:
        pytest.skip(f"no CUDA device: {why}")


@pytest.fixture(scope="session")
def torch_cuda(cuda_device: None) -> Any:
    """``torch`` with a CUDA device (the tests allocate device arrays with it)."""
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed (device tests allocate CUDA tensors with torch)")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch
