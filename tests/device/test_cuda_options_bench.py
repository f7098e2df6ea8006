"""``benchmarks/cuda_options.py`` on the GPU: one quick family measured end to end (both
arms compiled, checked against torch and timed by the replay), its record written with
the fields the results README requires (into a temporary folder, not the results)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("private_cache")

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_one_family_is_measured_and_recorded(torch_cuda: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import cuda_common

    monkeypatch.setattr(cuda_common, "RESULTS", tmp_path)
    spec = importlib.util.spec_from_file_location("cuda_options", BENCHMARKS / "cuda_options.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)
    spec.loader.exec_module(bench)
    assert bench.main(["--families", "coalesce_group_barriers", "--quick", "--rounds", "1",
                       "--budget-s", "120"]) == 0
    (path,) = tmp_path.glob("cuda_options-*.json")
    (rec,) = json.loads(path.read_text())
    for key in ("kernel", "shape", "dtype", "target", "device", "date", "commit", "tilec_ms",
                "peer", "peer_ms", "ratio", "option", "value", "changed", "torch_ms"):
        assert key in rec, key
    assert rec["option"] == "coalesce_group_barriers" and rec["value"] is False
    assert rec["changed"] and rec["right"] and rec["peer"] == "model pick"
    assert rec["ratio"] == pytest.approx(rec["peer_ms"] / rec["tilec_ms"])
