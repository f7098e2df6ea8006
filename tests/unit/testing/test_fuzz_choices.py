"""The choice stream: a replayed stream gives the same program; replays are clamped and end in
zeros; weighted draws map 0 to the first live option."""

from __future__ import annotations

from tilec.testing.fuzz import ChoiceStream, generate
from tilec.testing.fuzz.choices import Overrun


def test_replay_gives_the_same_program() -> None:
    for seed in range(12):
        s = ChoiceStream(seed)
        first = generate(s)
        again = generate(ChoiceStream.replay(s.record))
        assert again.source() == first.source()
        assert again.data_seed == first.data_seed and again.specials == first.specials


def test_replay_clamps_and_pads_with_zeros() -> None:
    s = ChoiceStream.replay([7, 2])
    assert s.draw(3) == 2      # 7 clamped into [0, 3)
    assert s.draw(5) == 2
    assert s.draw(4) == 0      # past the end
    assert s.record == [2, 2, 0]


def test_weighted_zero_is_the_first_live_option() -> None:
    s = ChoiceStream.replay([0, 3, 4])
    assert s.weighted([("never", 0), ("a", 2), ("b", 3)]) == "a"
    assert s.weighted([("a", 2), ("b", 3)]) == "b"
    assert s.weighted([("a", 2), ("b", 3)]) == "b"


def test_spans_cover_statements() -> None:
    s = ChoiceStream(3)
    generate(s)
    assert any(sp.label == "output" for sp in s.spans)
    assert all(0 <= sp.start < sp.end <= len(s.record) for sp in s.spans)


def test_overrun_bounds_the_stream() -> None:
    s = ChoiceStream(0)
    try:
        for _ in range(30000):
            s.draw(2)
    except Overrun:
        return
    raise AssertionError("no Overrun")


def test_programs_do_not_depend_on_which_family_module_was_imported_first() -> None:
    """Choices index the registered producers and statements, so their order is canonical:
    a process that imports a family module directly first generates the same programs."""
    import subprocess
    import sys

    code = ("import tilec.testing.fuzz.gen_reduce, tilec.testing.fuzz.gen_matrix\n"
            "from tilec.testing.fuzz.campaign import program_seed\n"
            "from tilec.testing.fuzz.choices import ChoiceStream\n"
            "from tilec.testing.fuzz.generator import generate\n"
            "print(generate(ChoiceStream(program_seed(7, 3))).source())\n")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    from tilec.testing.fuzz.campaign import program_seed
    from tilec.testing.fuzz.choices import ChoiceStream
    from tilec.testing.fuzz.generator import generate

    assert other == generate(ChoiceStream(program_seed(7, 3))).source() + "\n"


def test_a_dead_workers_program_is_regenerated_from_its_seed() -> None:
    """The failure file of a worker that died holds the choices of the program it ran."""
    from tilec.testing.fuzz.campaign import _regenerated, program_seed
    from tilec.testing.fuzz.choices import ChoiceStream
    from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
    from tilec.testing.fuzz.repro import replay_program

    choices = _regenerated(program_seed(11, 5), dict(DEFAULT_WEIGHTS))
    assert choices
    want = generate(ChoiceStream(program_seed(11, 5)), dict(DEFAULT_WEIGHTS)).source()
    assert replay_program(choices, dict(DEFAULT_WEIGHTS)).source() == want
