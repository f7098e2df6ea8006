"""The shrinker: a fake wrong path that fails whenever a program holds a ``tc.mma`` with
N == 4 shrinks a large failing program to a minimal one holding just that."""

from __future__ import annotations

from tilec.testing.fuzz import ChoiceStream, generate
from tilec.testing.fuzz.gen_matrix import Mma
from tilec.testing.fuzz.program import Program
from tilec.testing.fuzz.repro import write_repro
from tilec.testing.fuzz.shrink import shrink, spans_of

WEIGHTS = {"windows": 2, "elementwise": 3, "reduce": 2, "loops": 2, "matrix": 6, "parallel": 1,
           "memory": 1}


def _mmas(prog: Program) -> list[Mma]:
    return [n for n in prog.nodes() if isinstance(n, Mma)]


def fake_path_fails(prog: Program) -> bool:
    """A path with a planted bug: wrong whenever an mma has N == 4."""
    return any(m.shape[1] == 4 for m in _mmas(prog))


def _lines(prog: Program) -> int:
    return len(prog.source().strip().splitlines())


def test_shrinks_to_a_minimal_mma_with_n_4(tmp_path) -> None:
    found = None
    for seed in range(400):
        s = ChoiceStream(seed)
        prog = generate(s, WEIGHTS)
        if fake_path_fails(prog) and _lines(prog) >= 14:
            found = (list(s.record), prog)
            break
    assert found is not None, "no program with an N == 4 mma among 400 seeds"
    choices, big = found

    def fails(c: list[int]) -> bool:
        return fake_path_fails(generate(ChoiceStream.replay(c), WEIGHTS))

    r = shrink(choices, fails, spans_of(lambda s: generate(s, WEIGHTS)), max_trials=2000,
               max_seconds=120)
    small = generate(ChoiceStream.replay(r.choices), WEIGHTS)
    assert fake_path_fails(small)
    assert len(r.choices) < len(choices)
    mmas = _mmas(small)
    assert len(mmas) == 1 and mmas[0].shape[1] == 4
    # the grid loop's body: the mma (at most an accumulator, its K loop and the mma), the
    # store of its accumulator a K loop always makes, and the program's own output store
    body = small.source().split("tc.parallel(")[1].strip().splitlines()[1:]
    assert len(body) <= 5, small.source()
    assert _lines(small) < _lines(big)
    path = write_repro(str(tmp_path), "fake", small.source(), r.choices, "reference", WEIGHTS,
                       "mismatch", "planted", "an mma with N == 4")
    text = open(path).read()
    assert "tc.mma" in text or "tc.dot" in text or "@" in text
    assert "CHOICES = " in text and "__main__" in text
