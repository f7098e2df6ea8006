"""Progress on the terminal (``tilec.support.terminal``): shown for simulation, long
``tc.static_range`` unrolling, large compiles and tuning when ``TILEC_PROGRESS=1`` or a
person watches standard error; otherwise nothing is printed and nothing is done."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest
from rich.console import Console

import tilec as tc
import tilec.support.terminal as progress_module
from tilec.frontend.regions import UNROLL_PROGRESS
from tilec.support import OFF, progress, progress_enabled, to_console

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@tc.kernel
def shifted(X, Y, B: tc.constexpr = 4):
    for p in tc.parallel(tc.cdiv(X.shape[0], B)):
        Y.tile((p * B,), (B,)).store(X.tile((p * B,), (B,)) + 1.0)


@tc.kernel
def unrolled(X, Y, N: tc.constexpr = 4):
    for p in tc.parallel(1):
        acc = X.tile((p * 4,), (4,))
        for i in tc.static_range(N):
            acc = acc + float(i % 2)
        Y.tile((p * 4,), (4,)).store(acc)


@tc.kernel
def tuned(X, Y, BM: tc.constexpr = tc.tunable(4, 8)):
    for pm in tc.parallel(tc.cdiv(X.shape[0], BM)):
        x = X.tile((pm * BM, 0), (BM, 8), fill=0.0)
        Y.tile((pm * BM, 0), (BM, 8)).store(x * 2.0)


@pytest.fixture
def terminal(monkeypatch):
    """``TILEC_PROGRESS=1`` and a fake terminal; returns a function giving its text so far
    (control codes removed)."""
    monkeypatch.setenv("TILEC_PROGRESS", "1")
    buf = io.StringIO()
    with to_console(Console(file=buf, force_terminal=True, width=120)):
        yield lambda: _ANSI.sub("", buf.getvalue())


@pytest.fixture
def unwatched(monkeypatch):
    """A function that makes the test's process look unwatched: no ``TILEC_PROGRESS``, not
    CI, no ``PYTEST_CURRENT_TEST`` (pytest sets it again for each phase, so the test calls
    this itself), standard error a file; returns that file."""

    def unwatch() -> io.StringIO:
        for var in ("TILEC_PROGRESS", "CI", "PYTEST_CURRENT_TEST", "TERM"):
            monkeypatch.delenv(var, raising=False)
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        return sys.stderr

    return unwatch


def test_simulate_shows_its_groups(terminal):
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    tc.simulate(shifted, x, y)
    assert "simulating @shifted: groups" in terminal() and "4/4" in terminal()
    np.testing.assert_array_equal(y, x + 1.0)


def test_a_long_static_range_shows_its_unrolling(terminal):
    x = np.zeros(4, np.float32)
    tc.compile(unrolled, x, x, target="reference", N=UNROLL_PROGRESS + 1)
    n = UNROLL_PROGRESS + 1
    assert "unrolling tc.static_range at test_progress.py:" in terminal()
    assert f"{n}/{n}" in terminal()


def test_a_short_static_range_shows_nothing(terminal):
    x = np.zeros(4, np.float32)
    tc.compile(unrolled, x, x, target="reference", N=UNROLL_PROGRESS - 1)
    assert "unrolling" not in terminal()


def test_a_large_module_shows_its_compile_stages(terminal, monkeypatch):
    import tilec.driver as driver

    monkeypatch.setattr(driver, "LARGE_MODULE", 1)
    x = np.zeros(8, np.float32)
    c = tc.compile(shifted, x, x, target="simt")
    c.after("allocate")
    text = terminal()
    assert "compiling @shifted for simt" in text and "allocate" in text and "4/4" in text


def test_tuning_counts_its_candidates_unless_quiet(terminal, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    x = np.ones((16, 8), np.float32)
    y = np.zeros_like(x)
    opts = dict(target="reference", jobs=1, batches=1, replay_rounds=1, batch_ms=1.0,
                store=False)
    tc.tune(tuned, x, y, progress=False, **opts)
    assert "tune" not in terminal()
    tc.tune(tuned, x, y, progress=lambda s: None, **opts)
    for step in ("building", "validating", "measuring"):
        assert re.search(rf"tune tuned: {step} .* 2/2", terminal()), step


def test_nothing_is_shown_when_stderr_is_not_a_terminal(unwatched, capfd, monkeypatch):
    import rich.progress

    def refuse(*a, **k):
        raise AssertionError("a display was made")

    monkeypatch.setattr(rich.progress, "Progress", refuse)
    stderr = unwatched()
    assert not progress_enabled()
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    tc.simulate(shifted, x, y)
    tc.compile(unrolled, x[:4], x[:4], target="reference", N=UNROLL_PROGRESS + 2)
    assert stderr.getvalue() == "" and capfd.readouterr() == ("", "")


def test_the_switch(unwatched, monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    unwatched()
    assert not progress_enabled()
    monkeypatch.setattr(sys, "stderr", Tty())
    assert progress_enabled()
    for var, value in (("CI", "true"), ("PYTEST_CURRENT_TEST", "t"), ("TERM", "dumb"),
                       ("TILEC_PROGRESS", "0"), ("TILEC_PROGRESS", "off")):
        monkeypatch.setenv(var, value)
        assert not progress_enabled(), var
        monkeypatch.delenv(var)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TILEC_PROGRESS", "1")
    assert progress_enabled()


def test_disabled_progress_is_one_function_that_does_nothing(monkeypatch):
    monkeypatch.setenv("TILEC_PROGRESS", "0")
    row = progress("anything", total=10)
    assert row is OFF
    nothing = progress_module._nothing
    assert row.advance.__func__ is nothing and row.describe.__func__ is nothing
    assert nothing.__code__.co_code == (lambda: None).__code__.co_code  # no work in the body
    with row as same:
        assert same is OFF
    monkeypatch.setenv("TILEC_PROGRESS", "1")
    assert progress("short", total=5, minimum=6) is OFF  # below the row's minimum


def test_nested_rows_share_one_display(terminal):
    with progress("outer", total=2) as outer:
        with progress("inner", total=3) as inner:
            assert progress_module._depth == 2
            inner.advance(3)
        outer.advance(2)
    assert progress_module._display is None and progress_module._depth == 0
    assert "outer" in terminal() and "2/2" in terminal()
