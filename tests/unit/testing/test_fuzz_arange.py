"""The ``arange`` (coordinate tiles) and ``steps`` (runtime loop steps) fuzz families: off by
default, so default streams do not change; named, their programs hold the new forms and
every path agrees with the model."""

from __future__ import annotations

import re

from tilec.testing.fuzz.__main__ import _weights
from tilec.testing.fuzz.campaign import program_seed
from tilec.testing.fuzz.choices import ChoiceStream
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
from tilec.testing.fuzz.runner import run_program

PATHS = ["reference", "cpu", "simt:cuda:sm_90", "simt:metal:m1"]
RUNTIME_STEP = re.compile(r"tc\.serial\(\d+, \d+, (step=)?s\d+\)")


def _agrees(outcome, path: str) -> bool:
    """ok, or the metal:m1 profile's refusal of f64 (it has none; the target refuses alike)."""
    return outcome.kind == "ok" or (path == "simt:metal:m1" and outcome.kind == "rejected"
                                    and "-bit floating point" in outcome.reason)


def _sources(features: str, n: int, seed: int = 11) -> list:
    w = _weights(features)
    return [generate(ChoiceStream(program_seed(seed, i)), w) for i in range(n)]


def test_the_families_are_off_by_default() -> None:
    assert DEFAULT_WEIGHTS["arange"] == 0 and DEFAULT_WEIGHTS["steps"] == 0
    for i in range(40):
        src = generate(ChoiceStream(program_seed(3, i)), dict(DEFAULT_WEIGHTS)).source()
        assert "tc.arange" not in src and not RUNTIME_STEP.search(src)


def test_arange_programs_agree_on_every_path(tmp_path) -> None:
    progs = _sources("arange=3,elementwise", 12)
    assert sum("tc.arange(" in p.source() for p in progs) >= 6
    assert any(re.search(r"tc\.arange\(s\d+ \+", p.source()) for p in progs)  # runtime start
    for prog in progs:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])


def test_runtime_steps_agree_on_every_path(tmp_path) -> None:
    progs = [p for p in _sources("loops=3,steps=3,windows", 40) if RUNTIME_STEP.search(p.source())]
    assert len(progs) >= 3
    for prog in progs[:4]:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])
