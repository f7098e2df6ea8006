"""Shared fixtures of the C backend tests: a private compile cache per test session."""

from __future__ import annotations

import pytest

from tilec.targets.cpu.backend import probe


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Compile into a cache directory of this session, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip (with the reason) every test here when no C compiler works on this machine."""
    reason = probe()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"no C compiler: {reason}")
    for item in items:
        if "targets/cpu" in str(item.fspath):
            item.add_marker(skip)
