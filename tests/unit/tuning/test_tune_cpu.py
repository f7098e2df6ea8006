"""Measured selection end to end on the cpu target: the search, validation that rejects a
wrong or failing candidate and keeps it with its reason, the six-order replay, the record
and a second process that uses it without searching."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from tilec.frontend.jit import Compiled
from tilec.runtime.records import load_record
from tilec.tuning import make_inputs, replay_orders, validation_extent, written_only

SRC = Path(tc.__file__).resolve().parents[1]


@tc.kernel
def rowscale(X, Y, BM: tc.constexpr = tc.tunable(4, 8, 16), BN: tc.constexpr = tc.tunable(32, 128)):
    M, N = X.shape
    assert N <= BN, "a row must fit in one tile"
    for pm in tc.parallel(tc.cdiv(M, BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0.0)
        Y.tile((pm * BM, 0), (BM, BN)).store(x * 2.0 + 1.0)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


def _args(m=64, n=100):
    rng = np.random.default_rng(1)
    return rng.standard_normal((m, n)).astype(np.float32), np.zeros((m, n), np.float32)


def test_the_replay_runs_every_order_and_each_finalist_equally_often():
    orders = replay_orders(3)
    assert sorted(orders) == sorted(itertools.permutations(range(3)))
    for pos in range(3):
        assert sorted(o[pos] for o in orders) == [0, 0, 1, 1, 2, 2]
    assert replay_orders(1) == [(0,)] and len(replay_orders(2)) == 2
    with pytest.raises(ValueError):
        replay_orders(4)


def test_validation_inputs_shrink_extents_and_poison_write_only_outputs():
    x, y = _args(4096, 100)
    c = tc.compile(rowscale, x, y, target="reference", BM=4, BN=128)
    fn = c.module.lookup(c.fn_name)
    assert written_only(fn) == {1}
    host = make_inputs(fn, c.specs, [x, y], np.random.default_rng(0))
    assert host[0].shape == (validation_extent(4096), 100) == (300 + 4096 % 29, 100)
    assert np.isfinite(host[0]).all() and np.isnan(host[1]).all()


def test_a_search_validates_times_replays_and_stores_every_candidate(monkeypatch):
    real_run = Compiled.run

    def broken(self, args):  # a miscompile of one configuration, as a test hook
        real_run(self, args)
        if self.target == "cpu" and self.constexprs.get("BM") == 8:
            args[1][...] += 1.0

    monkeypatch.setattr(Compiled, "run", broken)
    x, y = _args()
    r = tc.tune(rowscale, x, y, target="cpu", jobs=1, batches=3, replay_rounds=1,
                batch_ms=2.0, progress=False)
    by_label = {c.label: c for c in r.candidates}
    assert len(by_label) == 6  # 3 x 2 configurations; cpu does not price them: all kept
    # BN=32 < N: the kernel's assert fails at the call; BM=8: the outputs are wrong.
    for bm in (4, 8, 16):
        assert by_label[f"BM={bm} BN=32"].validation.startswith("error: KernelAssertionError")
    assert by_label["BM=8 BN=128"].validation.startswith("mismatch: Y:")
    stages = {(tuple(j.config.values()), j.stage) for j in r.rejections}
    assert ((8, 128), "validate") in stages and ((4, 32), "run") in stages
    valid = [c for c in r.candidates if c.ok]
    assert {c.label for c in valid} == {"BM=4 BN=128", "BM=16 BN=128"}
    for c in valid:  # two finalists: both orders once
        assert c.search_ms > 0 and c.host_ms > 0 and len(c.replay_batches) == 2
    assert r.selected in valid and r.selected.replay_ms == min(c.replay_ms for c in valid)
    record = json.loads(r.record.read_text())
    assert record["selected"]["label"] == r.selected.label
    assert len(record["candidates"]) == 6 and len(record["rejections"]) == 4
    assert any(c["validation"].startswith("mismatch") for c in record["candidates"])
    assert record["protocol"]["device_timer"] == "host clock"
    # The next call in this process resolves from the record.
    sel = tc.compile(rowscale, x, y, target="cpu").selection
    assert sel.source == "record" and sel.values == r.selected.config


def test_parallel_builds_and_a_second_process_uses_the_record_without_searching(tmp_path):
    x, y = _args()
    r = tc.tune(rowscale, x, y, target="cpu", jobs=2, batches=2, replay_rounds=1,
                batch_ms=1.0, progress=False, BN=128)
    assert all(c.compile_s is not None for c in r.candidates)
    assert r.selected is not None and r.selected.config["BN"] == 128
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import numpy as np, tilec as tc
        from test_tune_cpu import rowscale, _args
        x, y = _args()
        rowscale(x, y)
        c = tc.compile(rowscale, x, y, target="cpu")
        built = sum(1 for v in rowscale._compiled.values()
                    if v._compilation is not None or v.warm)
        print(c.selection.source, c.constexprs["BM"], c.constexprs["BN"], built,
              len(rowscale._compiled), float(np.abs(y - (2 * x + 1)).max()))
    """)
    env = {**os.environ, "PYTHONPATH": str(SRC), "TILEC_TARGET": "cpu"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    source, bm, bn, built, compiled, err = out.stdout.split()
    assert source == "record" and int(bm) == r.selected.config["BM"] and int(bn) == 128
    assert built == "1" and compiled == "1" and float(err) == 0.0


def test_a_record_whose_choice_left_the_space_is_ignored_with_a_warning():
    x, y = _args()
    r = tc.tune(rowscale, x, y, target="cpu", jobs=1, batches=1, replay_rounds=1,
                batch_ms=1.0, progress=False, BN=128, BM=4)
    body = json.loads(r.record.read_text())
    body["selected"]["config"]["BM"] = 5
    r.record.write_text(json.dumps(body))
    rowscale.forget_resolutions()
    with pytest.warns(tc.RecordWarning, match="BM=5 is not one of"):
        sel = tc.compile(rowscale, x, y, target="cpu").selection
    assert sel.source == "default"
    assert load_record  # the loader itself accepted the file: the check is the space's


def test_a_kernel_without_tunables_is_refused():
    @tc.kernel
    def plain(X, Y):
        Y.tile((0, 0), (4, 4)).store(X.tile((0, 0), (4, 4)))

    x, y = _args(4, 4)
    with pytest.raises(tc.ArgumentError, match="no tc.tunable parameters"):
        tc.tune(plain, x, y, target="cpu", progress=False)


def test_the_cpu_refines_the_best_configurations_with_register_micro_tiles():
    from tilec.lib.matmul import matmul

    rng = np.random.default_rng(2)
    a = rng.standard_normal((96, 80)).astype(np.float32)
    b = rng.standard_normal((80, 72)).astype(np.float32)
    c = np.zeros((96, 72), np.float32)
    r = tc.tune(matmul, a, b, c, target="cpu", jobs=1, batches=2, replay_rounds=1,
                batch_ms=1.0, progress=False, refine=1, BM=32, BK=32)
    plain = [x for x in r.candidates if not x.variant]
    tiles = [x for x in r.candidates if x.variant]
    assert len(plain) == 4 and len(tiles) >= 3  # BN in 4 values; one refined configuration
    assert all(set(x.variant) == {"register_block_rows", "register_block_vectors"}
               for x in tiles)
    assert all(x.ok and x.search_ms for x in r.candidates), r.table()
    best_plain = min(plain, key=lambda x: x.search_ms)
    assert {x.config["BN"] for x in tiles} == {best_plain.config["BN"]}
    # The record keeps the variant, and the next call compiles with it.
    matmul.forget_resolutions()
    got = tc.compile(matmul, a, b, c, target="cpu", BM=32, BK=32)
    assert got.selection.source == "record" and got.variant == r.selected.variant
    if got.variant:
        (tile,) = got.plan.realization.micro_tiles.values()
        assert tile.rows == got.variant["register_block_rows"]
    got(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
