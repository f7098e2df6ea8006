"""The command line: a tiny campaign writes its JSON records and prints the summary table."""

from __future__ import annotations

import json

from tilec.testing.fuzz.__main__ import main


def test_tiny_run_writes_json(tmp_path, capsys) -> None:
    out = tmp_path / "fuzz.json"
    rc = main(["--n", "4", "--seed", "3", "--paths", "reference", "--features",
               "windows,elementwise", "--jobs", "1", "--quiet", "--out",
               str(tmp_path / "failures"), "--json", str(out)])
    text = capsys.readouterr().out
    assert "path" in text and "reference" in text and "4 programs" in text
    recs = json.loads(out.read_text())
    assert isinstance(recs, list) and len(recs) == 1
    r = recs[0]
    assert r["kernel"] == "fuzz" and r["target"] == "reference" and r["programs"] == 4
    assert r["ok"] + r["mismatch"] + r["rejected"] + r["internal"] + r["timeout"] == 4
    assert rc == (0 if r["mismatch"] + r["internal"] + r["timeout"] == 0 else 1)
    for key in ("date", "commit", "device", "seed", "command"):
        assert key in r
