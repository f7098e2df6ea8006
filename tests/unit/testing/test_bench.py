"""``tilec.testing.do_bench`` and ``tilec bench``.

``do_bench`` runs on a fake clock whose time only the benchmarked function advances, so
the median, the repetition count, the exclusion of the warm-up and of the flush are exact
claims; one test checks the real clock against a sleep. ``tilec bench`` runs end to end on
``examples/matmul.py`` (JSON, Markdown and the roofline PNG), on a file that declares
``PEERS`` and ``WORK``, and refuses user mistakes with one line and a nonzero status.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tilec.cli import main
from tilec.testing import BenchResult, bench, do_bench

pytestmark = pytest.mark.usefixtures("private_cache")

REPO = Path(__file__).resolve().parents[3]
MATMUL = REPO / "examples" / "matmul.py"


class FakeClock:
    """``perf_counter_ns`` that moves only when a scripted function says so."""

    def __init__(self) -> None:
        self.ns = 0

    def __call__(self) -> int:
        return self.ns

    def advance(self, ms: float) -> None:
        self.ns += round(ms * 1e6)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(bench, "_now_ns", fake)
    return fake


def scripted(clock: FakeClock, durations: list[float]):
    """A function whose n-th call takes ``durations[n]`` ms of the fake clock."""
    left = iter(durations)
    calls: list[float] = []

    def fn() -> None:
        d = next(left)
        calls.append(d)
        clock.advance(d)

    return fn, calls


def test_the_warm_up_is_excluded_and_the_median_reported(clock):
    # One 40 ms warm-up call covers warmup_ms=25; the estimate 40 ms asks for 100/40 -> 2
    # repetitions, raised to min_reps=5.
    fn, calls = scripted(clock, [40, 5, 1, 4, 2, 3])
    r = do_bench(fn, flush_l2=False)
    assert r.reps == 5 and len(calls) == 6
    assert r.samples == (5.0, 1.0, 4.0, 2.0, 3.0)
    assert (r.median_ms, r.min_ms, r.max_ms) == (3.0, 1.0, 5.0)
    assert float(r) == 3.0 and r.device == "cpu"


def test_the_repetitions_follow_rep_ms_from_the_estimate(clock):
    # Warm-up: a 100 ms first call, then 2 ms calls until 200 ms have passed (50 of them).
    # The estimate leaves the first call out: 2 ms, so 100 ms of repetitions is 50 calls.
    fn, calls = scripted(clock, [100] + [2] * 50 + [1] * 50)
    r = do_bench(fn, warmup_ms=200, rep_ms=100, flush_l2=False)
    assert r.reps == 50 and len(calls) == 101
    assert set(r.samples) == {1.0}


def test_max_reps_caps_the_warm_up_and_the_repetitions(clock):
    fn, calls = scripted(clock, [100] + [2] * 9 + [1] * 10)
    r = do_bench(fn, warmup_ms=200, rep_ms=100, flush_l2=False, max_reps=10)
    assert r.reps == 10 and len(calls) == 20


def test_the_flush_runs_before_each_repetition_outside_the_timed_region(clock, monkeypatch):
    flushes = []

    def slow_flush(buf) -> None:
        flushes.append(buf.nbytes)
        clock.advance(1000)  # would show in every sample if it were timed

    monkeypatch.setattr(bench, "CPU_FLUSH_BYTES", 1 << 20)
    monkeypatch.setattr(bench, "_flush_cpu", slow_flush)
    fn, _ = scripted(clock, [30] + [2] * 5)
    r = do_bench(fn, flush_l2=True)
    assert r.samples == (2.0,) * 5
    assert flushes == [1 << 20] * 5  # none during the warm-up


def test_the_real_clock_measures_a_sleep_in_milliseconds():
    r = do_bench(lambda: time.sleep(0.002), warmup_ms=2, rep_ms=20, flush_l2=False)
    assert 5 <= r.reps <= 10
    assert r.min_ms >= 2.0 and r.median_ms < 50.0
    assert r.median_ms == statistics.median(r.samples)


def test_arguments_are_passed_and_pick_the_device():
    seen = []
    r = do_bench(lambda x: seen.append(x), args=(7,), warmup_ms=0, min_reps=3, max_reps=3,
                 flush_l2=False)
    assert r.reps == 3 and seen == [7] * 4

    class GpuArray:
        __cuda_array_interface__ = {"shape": (1,), "typestr": "<f4", "data": (0, False)}

    class TorchLikeBf16:
        @property
        def __cuda_array_interface__(self):
            raise TypeError("bfloat16 has no typestr")

        class device:
            type = "cuda"

    assert bench._device_of([1, GpuArray()]) == "cuda"
    assert bench._device_of([TorchLikeBf16()]) == "cuda"
    assert bench._device_of([1.0, "x"]) == "cpu"


def test_cuda_without_torch_or_cupy_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(RuntimeError, match="torch or cupy; neither is importable"):
        do_bench(lambda: None, device="cuda")


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="device is 'cpu' or 'cuda'"):
        do_bench(lambda: None, device="gpu")
    with pytest.raises(ValueError, match="min_reps <= max_reps"):
        do_bench(lambda: None, min_reps=5, max_reps=2)
    with pytest.raises(ValueError, match="reps == len"):
        BenchResult(1.0, 1.0, 1.0, 2, (1.0,), "cpu")


def test_importing_tilec_testing_stays_cheap_and_tc_testing_reaches_do_bench():
    code = ("import sys, tilec as tc, tilec.testing\n"
            "assert 'tilec.testing.bench' not in sys.modules\n"
            "assert tc.testing.do_bench.__module__ == 'tilec.testing.bench'\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


# ------------------------------------------------------------------------ tilec bench


@pytest.fixture
def small_roofs(monkeypatch):
    """Roofs measured on small arrays (the real ones take seconds)."""
    from tilec.testing import roofline

    monkeypatch.setattr(roofline, "MATMUL_N", 256)
    monkeypatch.setattr(roofline, "COPY_BYTES", {"cpu": 8 << 20})


def test_bench_an_example_writes_json_markdown_and_a_roofline(tmp_path, capsys, small_roofs):
    pytest.importorskip("matplotlib", reason="the roofline needs matplotlib (tilec[bench])")
    js, md, png = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.png"
    rc = main(["bench", str(MATMUL), "--target", "cpu", "--peer", "numpy", "--json", str(js),
               "--md", str(md), "--plot", str(png), "--warmup-ms", "5", "--rep-ms", "5"])
    assert rc == 0
    out, err = capsys.readouterr()
    assert "timing examples.matmul (1/1)..." in err
    (rec,) = json.loads(js.read_text())
    for key in ("kernel", "shape", "dtype", "target", "device", "date", "commit", "tilec_ms",
                "peer", "peer_ms", "ratio"):
        assert key in rec
    assert rec["kernel"] == "examples.matmul" and rec["target"] == "cpu"
    assert rec["shape"] == [[100, 70], [70, 90], [100, 90]] and rec["dtype"] == "f32"
    assert rec["peer"] == "numpy" and "expected function reference()" in rec["peer_what"]
    assert rec["tilec_ms"] > 0 and rec["peer_ms"] > 0
    assert rec["ratio"] == pytest.approx(rec["peer_ms"] / rec["tilec_ms"])
    assert rec["flops"] == 2 * 100 * 70 * 90 and rec["work_from"] == "default"
    assert rec["bytes"] == 4 * (100 * 70 + 70 * 90 + 100 * 90)
    assert rec["commit"] is None or isinstance(rec["commit"], str)
    assert rec["roof_copy_gbs"] > 0 and rec["roof_matmul_gflops"] > 0
    table = md.read_text()
    assert table.startswith("| kernel | shape |") and "| examples.matmul | 100x70" in table
    assert f"| {rec['ratio']:.2f} |" in table
    assert table in out  # the table is printed too
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000


PEER_FILE = textwrap.dedent('''
    import numpy as np
    import tilec as tc


    @tc.kernel
    def scale(X, Y):
        for i in tc.parallel(X.shape[0] // 8):
            Y.tile((i * 8,), (8,)).store(X.tile((i * 8,), (8,)).load() * 2.0)


    @tc.kernel
    def shift(X, Y):
        for i in tc.parallel(X.shape[0] // 8):
            Y.tile((i * 8,), (8,)).store(X.tile((i * 8,), (8,)).load() + 1.0)


    def make_inputs(rng):
        return [rng.standard_normal(64).astype(np.float32), np.zeros(64, np.float32)]


    PEERS = {"numpy": {"scale": lambda x, y: np.multiply(x, 2.0, out=y)}}
    WORK = {"scale": lambda x, y: (x.size, x.nbytes + y.nbytes)}
''')


def test_peers_and_work_come_from_the_file(tmp_path, capsys):
    path = tmp_path / "peers.py"
    path.write_text(PEER_FILE)
    js = tmp_path / "r.json"
    assert main(["bench", str(path), "--target", "cpu", "--peer", "numpy", "--json", str(js),
                 "--warmup-ms", "1", "--rep-ms", "2", "--no-flush"]) == 0
    err = capsys.readouterr().err
    assert "no numpy peer for shift: timing tilec only" in err
    by_name = {r["kernel"]: r for r in json.loads(js.read_text())}
    scale, shift = by_name["scale"], by_name["shift"]
    assert scale["peer_what"] == "PEERS['numpy']['scale']" and scale["peer_ms"] > 0
    assert (scale["flops"], scale["bytes"], scale["work_from"]) == (64, 512, "WORK")
    assert scale["timing"]["flush_l2"] is False
    assert shift["peer"] is None and shift["peer_ms"] is None and shift["ratio"] is None
    assert shift["flops"] is None and shift["bytes"] == 512  # not a matmul: flops unknown

    assert main(["bench", str(path), "--target", "cpu", "--kernel", "shift", "--warmup-ms",
                 "1", "--rep-ms", "1"]) == 0
    out, err = capsys.readouterr()
    assert "no --peer: timing tilec only" in err and "| shift |" in out and "scale" not in out


def test_plot_without_matplotlib_names_the_extra(monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else find_spec(name, *a))
    with pytest.raises(SystemExit, match=r"pip install 'tilec\[bench\]'"):
        main(["bench", str(MATMUL), "--plot", "x.png"])


@pytest.mark.parametrize("argv,message", [
    (["bench", "no/such/file.py"], "tilec: no such file: no/such/file.py"),
    (["bench", str(MATMUL), "--peer", "nosuch"], "tilec bench: unknown peer 'nosuch'"),
])
def test_user_mistakes_are_one_line_and_a_nonzero_status(argv, message):
    out = subprocess.run([sys.executable, "-m", "tilec.cli", *argv], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), out.stderr
