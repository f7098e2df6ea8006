"""The ``exchange`` fuzz family (``atomic_xchg``/``atomic_cas`` into the instance's own
block): off by default and drawing nothing then, so default streams do not change; named,
its programs hold exchanges and every path agrees with the model."""

from __future__ import annotations

from tilec.testing.fuzz.__main__ import _weights
from tilec.testing.fuzz.campaign import program_seed
from tilec.testing.fuzz.choices import ChoiceStream
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
from tilec.testing.fuzz.runner import run_program

PATHS = ["reference", "cpu", "simt:cuda:sm_90", "simt:metal:m1"]


def _agrees(outcome, path: str) -> bool:
    """ok, or a refusal another statement of the program earns on its own (metal:m1 has no
    f64 and no atomic add/max/min; cpu and CUDA no 16-bit atomics)."""
    if outcome.kind == "ok":
        return True
    return outcome.kind == "rejected" and any(
        why in outcome.reason for why in ("-bit floating point", "atomic add", "atomic max",
                                          "atomic min"))


def test_the_family_is_off_by_default_and_draws_nothing() -> None:
    assert DEFAULT_WEIGHTS["exchange"] == 0
    without = {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "exchange"}
    for i in range(30):
        src = generate(ChoiceStream(program_seed(3, i)), dict(DEFAULT_WEIGHTS)).source()
        assert "atomic_xchg" not in src and "atomic_cas" not in src
        assert src == generate(ChoiceStream(program_seed(3, i)), dict(without)).source()


def test_exchange_programs_agree_on_every_path(tmp_path) -> None:
    w = _weights("exchange=4,elementwise,windows")
    progs = [generate(ChoiceStream(program_seed(7, i)), w) for i in range(14)]
    srcs = [p.source() for p in progs]
    assert sum(".atomic_xchg(" in s for s in srcs) >= 3
    assert sum(".atomic_cas(" in s for s in srcs) >= 3
    for prog in progs:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])


def test_unsigned_exchanges_agree_on_every_path(tmp_path) -> None:
    """With the ``unsigned`` feature some exchanges are into ``u32`` arrays (CUDA's and
    Metal's exchanges take them as ``i32``); every path agrees with the model."""
    from tilec.testing.fuzz.gen_exchange import Exchange

    w = _weights("exchange=4,unsigned=2,elementwise,windows")
    progs = [generate(ChoiceStream(program_seed(11, i)), w) for i in range(40)]
    chosen = [p for p in progs
              if any(isinstance(s, Exchange) and s.dt.name == "u32" for s in p.body)][:5]
    assert len(chosen) >= 3
    for prog in chosen:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])
