"""Fixtures every test directory may use.

* ``private_cache``: modules that compile many kernels mark themselves with
  ``pytestmark = pytest.mark.usefixtures("private_cache")`` to compile into a cache
  directory of their own instead of the user's ``~/.cache/tilec``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()
