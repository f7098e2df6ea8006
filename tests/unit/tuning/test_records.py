"""Tuning records: round trip, export/import, and every kind of bad record is ignored with a
warning that names the file and the problem."""

from __future__ import annotations

import json

import pytest

from tilec.runtime.records import (
    SCHEMA,
    RecordKey,
    RecordWarning,
    export_records,
    import_records,
    list_records,
    load_record,
    record_path,
    store_record,
)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _key(**kw):
    base = dict(kernel="matmul", ir_sha256="ab" * 32, spec="(...)", shapes="((4096, 4096),)",
                target="cuda", device="NVIDIA H200; sm_90; driver 13.0", version="0.1.0",
                cost_basis="cuda_mma_v2")
    return RecordKey(**{**base, **kw})


BODY = {"selected": {"config": {"BM": 128, "BN": 256, "BK": 64}, "variant": {"threads": 256}},
        "candidates": [{"config": {"BM": 64}, "validation": "mismatch: C: 3 of 9 elements"}],
        "rejections": [{"stage": "capture", "reason": "static_assert failed"}]}


def test_a_record_round_trips():
    path = store_record(_key(), BODY)
    assert path == record_path(_key()) and path.name.startswith("matmul-")
    got = load_record(_key())
    assert got["schema"] == SCHEMA and got["key"] == _key().to_json()
    assert got["selected"] == BODY["selected"] and got["candidates"] == BODY["candidates"]
    assert got["rejections"] == BODY["rejections"]
    assert load_record(_key(shapes="((1024, 1024),)")) is None  # another key, another file


def test_the_key_digest_is_stable_and_depends_on_every_field():
    k = _key()
    assert k.digest == _key().digest
    for field in k.to_json():
        assert _key(**{field: "other"}).digest != k.digest


@pytest.mark.parametrize("text, problem", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    (json.dumps({"schema": SCHEMA + 1, "key": {}, "selected": {"config": {}}}), "schema"),
    (json.dumps({"schema": SCHEMA, "key": {}}), "no key or no selection"),
])
def test_a_corrupt_record_is_ignored_with_a_warning(text, problem):
    path = record_path(_key())
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.warns(RecordWarning, match=problem) as w:
        assert load_record(_key()) is None
    assert str(path) in str(w[0].message)


def test_a_record_of_another_key_in_the_file_is_ignored():
    path = store_record(_key(), BODY)
    body = json.loads(path.read_text())
    body["key"]["device"] = "NVIDIA A100; sm_80; driver 12.4"
    path.write_text(json.dumps(body))
    with pytest.warns(RecordWarning, match="another key .*device"):
        assert load_record(_key()) is None


def test_store_refuses_a_body_without_a_selection():
    with pytest.raises(ValueError, match="no key or no selection"):
        store_record(_key(), {"candidates": []})


def test_export_and_import_round_trip(tmp_path, monkeypatch):
    store_record(_key(), BODY)
    store_record(_key(shapes="((16, 4096),)"), BODY)
    (list_records()[0].parent / "junk.json").write_text("{")
    bundle = tmp_path / "bundle.json"
    with pytest.warns(RecordWarning, match="not exported"):
        assert export_records(bundle) == 2
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert load_record(_key()) is None
    assert import_records(bundle) == 2
    assert load_record(_key())["selected"] == BODY["selected"]
    assert load_record(_key(shapes="((16, 4096),)")) is not None
