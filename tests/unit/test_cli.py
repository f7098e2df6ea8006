"""The ``tilec`` command on a user's files: the script's folder is importable, a file with
only ``make_inputs`` works, targets are listed once each and validated with one line, and
the cache can be shown and cleared without losing tuning records."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tilec.cli import build_parser, main

USER = textwrap.dedent('''
    import numpy as np
    import tilec as tc
    from helper import SCALE


    @tc.kernel
    def scale(X, Y):
        for i in tc.parallel(X.shape[0] // 8):
            Y.tile((i * 8,), (8,)).store(X.tile((i * 8,), (8,)).load() * SCALE)


    def make_inputs(rng):
        return [rng.standard_normal(64).astype(np.float32), np.zeros(64, np.float32)]


    if __name__ == "__main__":
        import sys
        x, y = make_inputs(np.random.default_rng(0))
        tc.compile(scale, x, y, target="reference")(x, y)
        print("ran", sys.argv[1:], bool(np.allclose(y, SCALE * x)))
''')


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """A kernel file with a sibling module and ``make_inputs`` but no ``DEMOS``."""
    (tmp_path / "helper.py").write_text("SCALE = 2.0\n")
    path = tmp_path / "user.py"
    path.write_text(USER)
    yield path
    sys.modules.pop("helper", None)


def test_run_imports_the_scripts_siblings_and_restores_path_and_argv(user_file, capsys):
    path, argv = list(sys.path), list(sys.argv)
    assert main(["run", str(user_file), "a", "b"]) == 0
    assert "ran ['a', 'b'] True" in capsys.readouterr().out
    assert sys.path == path and sys.argv == argv


def test_ir_and_plan_read_make_inputs(user_file, capsys):
    assert main(["ir", str(user_file)]) == 0
    out = capsys.readouterr().out
    assert "scale after capture" in out and "func @scale" in out
    assert main(["plan", str(user_file), "--target", "cpu"]) == 0
    assert "plan for cpu" in capsys.readouterr().out


def test_a_file_without_inputs_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "bare.py"
    path.write_text("import tilec as tc\n")
    with pytest.raises(SystemExit, match="declares no kernels with example inputs"):
        main(["ir", str(path)])


@pytest.mark.parametrize("target,profile", [("simt", "cuda:sm_90"),
                                            ("simt:cuda:sm_80", "cuda:sm_80"),
                                            ("reference", "cpu")])
def test_plan_accepts_every_runtime_target_name(user_file, capsys, target, profile):
    assert main(["plan", str(user_file), "--target", target]) == 0
    assert f"plan for {profile}" in capsys.readouterr().out


def test_plan_defaults_to_the_default_target(user_file, capsys, monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", "cuda:sm_80")
    assert main(["plan", str(user_file)]) == 0
    assert "plan for cuda:sm_80" in capsys.readouterr().out
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    assert main(["plan", str(user_file)]) == 0
    assert "plan for cpu" in capsys.readouterr().out


def test_an_unknown_target_is_one_line_naming_the_known_ones(user_file, capsys):
    assert main(["plan", str(user_file), "--target", "bogus"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'bogus'" in err and "cuda:sm_90" in err
    assert "tirx" not in err  # no alias for a target that does not exist


def test_target_help_lists_the_names():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = sub.choices["plan"].format_help()
    assert "cuda:sm_90" in text and "simt" in text and "metal:m1" in text


def test_targets_lists_each_target_once_and_each_reason_once(capsys, monkeypatch):
    import tilec.runtime as rt

    long = "no usable CUDA driver: DynamicLibNotFoundError: a long explanation"
    fake = [(info, None if info.name in ("cpu", "reference", "simt") else long)
            for info, _ in rt.available_targets()]
    monkeypatch.setattr(rt, "available_targets", lambda: fake)
    assert main(["targets"]) == 0
    out = capsys.readouterr().out
    for info, _ in fake:
        assert sum(line.split("│")[1].strip() == info.name
                   for line in out.splitlines() if line.startswith("│")) == 1, info.name
    assert out.count("a long explanation") == 1
    assert out.count("no usable CUDA driver [1]") == sum(r is not None for _, r in fake)


def test_cache_info_and_clear_keep_tuning_records(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["cache"]) == 0
    assert "(empty)" in capsys.readouterr().out
    (tmp_path / "cache" / "c").mkdir(parents=True)
    (tmp_path / "cache" / "c" / "k.so").write_bytes(b"x" * 2048)
    (tmp_path / "cache" / "tune").mkdir()
    (tmp_path / "cache" / "tune" / "r.json").write_text("[]")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "2.0 KiB" in out and "tuning records" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 file(s)" in capsys.readouterr().out
    assert not (tmp_path / "cache" / "c").exists()
    assert (tmp_path / "cache" / "tune" / "r.json").exists()
    assert main(["cache", "clear", "--records"]) == 0
    assert not (tmp_path / "cache" / "tune").exists()


def test_records_live_under_the_cache_root(tmp_path, monkeypatch):
    from tilec.runtime.cache import cache_root
    from tilec.runtime.records import records_dir

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    assert cache_root() == tmp_path and records_dir() == tmp_path / "tune"
