"""The ``shared`` fuzz family (a value read by several stores, ``gen_shared``): off by
default and drawing nothing then, so default streams do not change; named, its programs
hand the planner pure values with several consumers, which every ``shared_ssa`` mode
realizes as the model says, with subgroup barriers weakened where proved."""

from __future__ import annotations

from tilec.testing.fuzz.__main__ import _weights
from tilec.testing.fuzz.campaign import program_seed
from tilec.testing.fuzz.choices import ChoiceStream
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
from tilec.testing.fuzz.program import load_kernel
from tilec.testing.fuzz.runner import run_program

PATHS = ["reference", "cpu+ssa:recompute", "simt:cuda:sm_90+ssa:materialize+subgroups",
         "simt:metal:m1+ssa:expensive_only+subgroups+threads:32"]


def test_the_family_is_off_by_default_and_draws_nothing() -> None:
    assert DEFAULT_WEIGHTS["shared"] == 0
    without = {k: v for k, v in DEFAULT_WEIGHTS.items() if k != "shared"}
    for i in range(30):
        assert generate(ChoiceStream(program_seed(3, i)), dict(DEFAULT_WEIGHTS)).source() == \
            generate(ChoiceStream(program_seed(3, i)), dict(without)).source()


def test_its_values_have_several_consumers(tmp_path) -> None:
    w = _weights("shared=4,elementwise,windows")
    several = 0
    for i in range(12):
        prog = generate(ChoiceStream(program_seed(5, i)), w)
        kernel, _ = load_kernel(prog.source(), str(tmp_path))
        plan = kernel.compile(*prog.make_args(), target="simt:cuda:sm_90",
                              variant={"shared_ssa": "recompute"}).compilation("plan").plan
        several += any(v.choice == "recompute" for v in plan.shared_values)
    assert several >= 4  # about half the programs draw the statement


def test_shared_programs_agree_on_every_path(tmp_path) -> None:
    w = _weights("shared=4,elementwise,windows")
    for i in range(8):
        prog = generate(ChoiceStream(program_seed(9, i)), w)
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            out = res.outcomes[path]
            assert out.kind == "ok" or (out.kind == "rejected"
                                        and "-bit floating point" in out.reason), \
                (prog.source(), path, out)
