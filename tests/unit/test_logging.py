"""Logging: every compile stage is logged with its time through the ``tilec`` logger, and
``TILEC_LOG`` switches a standard-error handler on (once, whatever it is set to)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import numpy as np

import tilec
from tilec.runtime.log import configure_from_env, logger


@tilec.kernel
def logged_scale(X, Y):
    for p in tilec.parallel(X.shape[0] // 8):
        Y.tile((p * 8,), (8,)).store(X.tile((p * 8,), (8,)).load() * 3.0)


def test_each_stage_is_logged_with_its_time(caplog, tmp_path, monkeypatch):
    import tilec.targets.cpu.compiler as cc

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cc, "_loaded", {})  # this process has built nothing yet
    x = np.ones(40, np.float32)
    y = np.zeros(40, np.float32)
    with caplog.at_level(logging.DEBUG, logger="tilec"):
        tilec.compile(logged_scale, x, y, target="cpu")(x, y)  # a kernel only this test has
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("tilec")]
    for stage in ("capture", "plan for cpu", "emit for cpu", "build for cpu"):
        assert any(m.startswith(f"@logged_scale {stage}") and m.endswith(" ms")
                   for m in lines), stage
    assert any(m.startswith("C cache miss") for m in lines)
    assert float(y[0]) == 3.0


def test_tilec_log_sets_one_handler_and_rejects_other_values(capsys):
    before = list(logger.handlers), logger.level
    try:
        h1 = configure_from_env("info")
        h2 = configure_from_env("DEBUG")
        assert h1 is not None and h2 is not None and h1 not in logger.handlers
        assert [h for h in logger.handlers if h.get_name() == "tilec-env"] == [h2]
        assert logger.level == logging.DEBUG
        assert configure_from_env("loud") is None
        assert "TILEC_LOG='loud' is not a level" in capsys.readouterr().err
        assert not [h for h in logger.handlers if h.get_name() == "tilec-env"]
    finally:
        logger.handlers[:] = before[0]
        logger.setLevel(before[1])


def test_tilec_log_in_a_new_process(tmp_path):
    code = ("import numpy as np, tilec\n"
            "x = np.ones(16, np.float32)\n"
            "@tilec.kernel\n"
            "def twice(X, Y):\n"
            "    for p in tilec.parallel(2):\n"
            "        Y.tile((p * 8,), (8,)).store(X.tile((p * 8,), (8,)).load() * 2.0)\n"
            "tilec.compile(twice, x, x.copy(), target='reference')(x, x.copy())\n")
    path = tmp_path / "k.py"
    path.write_text(code)
    env = {**os.environ, "TILEC_LOG": "info", "TILEC_CACHE_DIR": str(tmp_path)}
    err = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                         timeout=300, check=True).stderr
    assert "tilec INFO @twice capture:" in err and "tilec INFO @twice build for reference" in err
    quiet = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           timeout=300, check=True,
                           env={k: v for k, v in env.items() if k != "TILEC_LOG"}).stderr
    assert "tilec INFO" not in quiet
