"""The CI smoke campaign: a fixed seed, a few hundred programs over the reference, the C
backend and the three simulator profiles; no mismatch and no internal error."""

from __future__ import annotations

import pytest

from tilec.targets.cpu.backend import probe
from tilec.testing.fuzz.campaign import run_campaign
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS
from tilec.testing.fuzz.paths import CPU_PATHS

SEED = 20261201
PROGRAMS = 200


@pytest.mark.skipif(probe() is not None, reason=f"no C compiler: {probe()}")
def test_smoke_campaign(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    camp = run_campaign(PROGRAMS, SEED, CPU_PATHS, dict(DEFAULT_WEIGHTS),
                        out_dir=str(tmp_path / "failures"), jobs=2, timeout=120,
                        shrink_trials=40, shrink_seconds=60, max_shrinks=3)
    print(camp.table())
    assert camp.programs == PROGRAMS
    bad = {p: (c.mismatch, sum(c.internal.values()), c.timeout) for p, c in camp.counts.items()
           if c.mismatch or c.internal or c.timeout}
    files = sorted({f.file for f in camp.failures if f.file})
    assert not bad, f"failures (mismatch, internal, timeout) per path: {bad}; shrunk: {files}"
