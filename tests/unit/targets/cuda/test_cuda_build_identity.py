"""The warm-start key names NVRTC without loading it (compiler.nvrtc_identity): by the
nvidia-cuda-nvrtc wheels on sys.path, else by the loaded library's version."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilec.targets.cuda import compiler


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch):
    compiler.nvrtc_identity.cache_clear()
    monkeypatch.setattr(compiler, "driver_version", lambda: 13000)
    yield
    compiler.nvrtc_identity.cache_clear()


def _site(tmp_path: Path, *dists: str) -> str:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    for d in dists:
        (site / d).mkdir()
    return str(site)


def test_a_wheel_names_nvrtc_without_loading_it(fresh, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def loaded() -> str:
        raise AssertionError("NVRTC was loaded")

    monkeypatch.setattr(compiler, "nvrtc_version", loaded)
    monkeypatch.setattr(sys, "path", [_site(tmp_path, "nvidia_cuda_nvrtc-13.0.88.dist-info",
                                            "numpy-2.1.0.dist-info")])
    assert compiler.nvrtc_identity() == "wheel:nvidia_cuda_nvrtc-13.0.88.dist-info"
    one = compiler.build_identity("sm_90a")
    # another NVRTC wheel is another identity, so a warm record built by the first misses
    (Path(sys.path[0]) / "nvidia_cuda_nvrtc-13.0.88.dist-info").rmdir()
    (Path(sys.path[0]) / "nvidia_cuda_nvrtc-13.1.20.dist-info").mkdir()
    compiler.nvrtc_identity.cache_clear()
    assert compiler.build_identity("sm_90a") != one
    assert compiler.build_identity("sm_80") != compiler.build_identity("sm_90a")


def test_without_a_wheel_the_library_says_its_version(fresh, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiler, "nvrtc_version", lambda: "12.8")
    monkeypatch.setattr(sys, "path", [_site(tmp_path), str(tmp_path / "missing")])
    assert compiler.nvrtc_identity() == "library:12.8"
