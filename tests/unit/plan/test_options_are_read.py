"""Every planner and lowering option is read by the code it is meant to change: an option
that nothing reads changes nothing, which is a defect (wire it or remove it)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import tilec
from tilec.lower.options import LowerOptions
from tilec.plan import PlannerOptions

SRC = Path(tilec.__file__).resolve().parent
DEFINED_IN = {PlannerOptions: SRC / "plan" / "options.py",
              LowerOptions: SRC / "lower" / "options.py"}


def _readers(name: str, exclude: Path) -> list[Path]:
    pat = re.compile(rf"\.{name}\b|[\"']{name}[\"']")
    return [p for p in SRC.rglob("*.py") if p != exclude and pat.search(p.read_text())]


def test_every_option_is_read_outside_its_definition() -> None:
    unread = [f"{cls.__name__}.{f.name}" for cls, path in DEFINED_IN.items()
              for f in dataclasses.fields(cls) if not _readers(f.name, path)]
    assert not unread, f"options nothing reads (they change nothing): {unread}"


def test_the_check_finds_an_unread_option() -> None:
    assert not _readers("no_such_option", DEFINED_IN[PlannerOptions])
    assert _readers("fuse_matrix_epilogues", DEFINED_IN[PlannerOptions])
