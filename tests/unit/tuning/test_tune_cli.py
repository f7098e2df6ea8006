"""``tilec tune``: a file's tunable kernels on their example inputs, export, import, refit."""

from __future__ import annotations

import json
import textwrap

import pytest

from tilec.cli import main
from tilec.runtime.records import list_records

KERNEL = textwrap.dedent('''
    import numpy as np
    import tilec as tc
    from tilec.demo import DemoCase

    @tc.kernel
    def twice(X, Y, BM: tc.constexpr = tc.tunable(2, 4), S: tc.constexpr = 1.0):
        M, N = X.shape
        for pm in tc.parallel(tc.cdiv(M, BM)):
            x = X.tile((pm * BM, 0), (BM, 16), fill=0.0)
            Y.tile((pm * BM, 0), (BM, 16)).store(x * 2.0 + S)

    def _inputs(rng):
        return rng.standard_normal((10, 16)).astype(np.float32), np.zeros((10, 16), np.float32)

    DEMOS = [DemoCase("twice", twice, _inputs, lambda x, y: {1: 2.0 * x + 3.0},
                      {"BM": 2, "S": 3.0})]
''')


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def test_tune_a_file_then_export_import_and_refit(tmp_path, capsys, monkeypatch):
    src = tmp_path / "twice.py"
    src.write_text(KERNEL)
    assert main(["tune", str(src), "--target", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "tuning twice on cpu" in out and "BM=2" in out and "BM=4" in out
    [rec] = list_records()
    body = json.loads(rec.read_text())
    assert body["key"]["spec"].count("1.0") == 0 and "3.0" in body["key"]["spec"]  # S is fixed
    bundle = tmp_path / "bundle.json"
    assert main(["tune", "--export", str(bundle)]) == 0
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "other"))
    assert main(["tune", "--import", str(bundle)]) == 0
    assert len(list_records()) == 1
    samples = [{"label": f"c{i}", "terms": {"math": i + 1.0, "staging": 1.0},
                "search_ms": 2.0 * i + 1.0} for i in range(4)]
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps([{"kernel": "k", "shape": [s], "dtype": "f32",
                                  "samples": samples} for s in (1, 2)]))
    capsys.readouterr()
    assert main(["tune", "--refit", str(bench)]) == 0
    out = capsys.readouterr().out
    assert "2 sample sets, 8 candidates" in out and "math" in out and "mean / max" in out


def test_tune_without_a_file_or_tunables_says_so(tmp_path):
    with pytest.raises(SystemExit, match="give a FILE"):
        main(["tune"])
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    with pytest.raises(SystemExit, match="no kernel with tc.tunable"):
        main(["tune", str(plain), "--target", "cpu"])
