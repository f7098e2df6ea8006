"""Rendering: every generated program is DSL source that captures (or, for the one documented
form capture refuses, is rejected with a located message)."""

from __future__ import annotations

import pytest

import tilec as tc
from tilec.testing.fuzz import FAMILIES, ChoiceStream, generate
from tilec.testing.fuzz.program import load_kernel


@pytest.mark.parametrize("family", FAMILIES)
def test_every_program_captures(tmp_path, family: str) -> None:
    weights = {f: (8 if f == family else 1) for f in FAMILIES}
    for seed in range(15):
        prog = generate(ChoiceStream(1000 + seed), weights)
        src = prog.source()
        assert src.startswith("import tilec as tc\n")
        kernel, path = load_kernel(src, str(tmp_path))
        args = prog.make_args()
        try:
            tc.compile(kernel, *args, target="reference")
        except tc.TileSyntaxError as e:
            # dsl.md documents tc.serial(lo, hi, step=...), which capture refuses (a finding of
            # the fuzzer); every other program must capture.
            assert "unexpected keyword argument 'step'" in e.message, src
            assert e.filename == path and e.lineno > 0
            assert "step=" in src


def test_program_features_are_tagged() -> None:
    prog = generate(ChoiceStream(5), {f: 1 for f in FAMILIES})
    assert "window" in prog.features() or prog.params
