"""Shared fixtures of the Metal backend's unit tests (no Apple GPU needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parents[3]
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                   ) -> None:
    """Each test session compiles into its own cache directory."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "tilec-cache"))
