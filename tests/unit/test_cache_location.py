"""Where the cache lives: ``TILEC_CACHE_DIR``, else the platform's per-user cache folder
(XDG on Linux and the BSDs, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on
Windows), one rule that the compilers and ``tilec cache`` both read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilec.cli import main
from tilec.support import cache_root, user_cache_dir


@pytest.fixture
def platform(monkeypatch, tmp_path):
    """Set ``sys.platform``, a fresh home and no cache variables; returns the home."""
    home = tmp_path / "home"
    for var in ("TILEC_CACHE_DIR", "XDG_CACHE_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))

    def set_platform(name: str) -> Path:
        monkeypatch.setattr(sys, "platform", name)
        return home

    return set_platform


@pytest.mark.parametrize("name", ["linux", "freebsd13", "openbsd7", "cygwin"])
def test_posix_systems_use_xdg_cache_home_else_dot_cache(platform, monkeypatch, tmp_path,
                                                         name):
    home = platform(name)
    assert cache_root() == home / ".cache" / "tilec"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "tilec"


def test_a_relative_or_empty_xdg_cache_home_is_ignored(platform, monkeypatch):
    home = platform("linux")
    for value in ("relative/cache", ""):
        monkeypatch.setenv("XDG_CACHE_HOME", value)
        assert cache_root() == home / ".cache" / "tilec"


def test_macos_uses_library_caches(platform, monkeypatch, tmp_path):
    home = platform("darwin")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # not a macOS convention
    assert cache_root() == home / "Library" / "Caches" / "tilec"


def test_windows_uses_local_app_data(platform, monkeypatch, tmp_path):
    home = platform("win32")
    assert cache_root() == home / "AppData" / "Local" / "tilec" / "Cache"
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "Local" / "tilec" / "Cache"


@pytest.mark.parametrize("name", ["linux", "darwin", "win32"])
def test_tilec_cache_dir_overrides_every_platform(platform, monkeypatch, tmp_path, name):
    home = platform(name)
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
    monkeypatch.setenv("TILEC_CACHE_DIR", "~/elsewhere")
    assert cache_root() == home / "elsewhere"


def test_the_rule_takes_explicit_platform_environment_and_home():
    assert user_cache_dir("darwin", {}, "/u") == Path("/u/Library/Caches/tilec")
    assert user_cache_dir("linux", {"XDG_CACHE_HOME": "/x"}, "/u") == Path("/x/tilec")
    assert user_cache_dir("win32", {"LOCALAPPDATA": "/l"}, "/u") == Path("/l/tilec/Cache")


def test_the_compilers_and_the_cache_command_read_one_rule():
    import tilec.runtime.cache as runtime_cache
    import tilec.targets.compile_cache as compile_cache
    import tilec.targets.cpu.compiler as cc

    assert runtime_cache.cache_root is compile_cache.cache_root is cache_root
    assert cc.cache_dir() == cache_root() / "c"


@pytest.mark.parametrize("name, where", [
    ("linux", ("xdg", "tilec")),
    ("darwin", ("home", "Library", "Caches", "tilec")),
    ("win32", ("Local", "tilec", "Cache")),
])
def test_cache_info_prints_the_resolved_root(platform, monkeypatch, tmp_path, capsys, name,
                                             where):
    platform(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"cache: {tmp_path.joinpath(*where)} (empty)" in out
