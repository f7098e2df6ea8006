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
