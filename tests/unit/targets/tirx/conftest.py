"""The ``tirx:llvm`` bridge tests need Apache TVM (the ``[tvm]`` extra): without it every
test here skips, with the reason in pytest's summary (-ra)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip (with the reason) every test here that needs TVM when it does not import."""
    from tilec.targets.tirx.backend import probe

    reason = probe()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"tirx:llvm unavailable: {reason}")
    for item in items:
        if "targets/tirx" in str(item.fspath) and "without_tvm" not in item.name:
            item.add_marker(skip)
