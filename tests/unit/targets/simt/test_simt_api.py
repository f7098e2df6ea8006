"""Entry points: simulate_module, tc.simulate, the backend factory, errors."""

from __future__ import annotations

import numpy as np
import pytest
from simtir import machine, poisoned

import tilec
from machine_samples import MACHINE_SAMPLES, SAMPLE_CASES
from tilec.frontend.jit import simulate
from tilec.targets.reference.errors import KINDS, SimulationError
from tilec.targets.reference.simt import (
    SimtBackend,
    make_backend,
    simulate_module,
)


@tilec.kernel
def add(A, B, C, BLOCK: tilec.constexpr = 512):
    """``C = A + B`` (Candidate TileIR; the lowering makes the Machine form)."""
    n = A.shape[0]
    for p in tilec.parallel(tilec.cdiv(n, BLOCK)):
        a = A.tile((p * BLOCK,), (BLOCK,), fill=0.0)
        b = B.tile((p * BLOCK,), (BLOCK,), fill=0.0)
        C.tile((p * BLOCK,), (BLOCK,)).store(a + b)


def add_args(n: int = 1000) -> list[np.ndarray]:
    return SAMPLE_CASES["add"].make_inputs(np.random.default_rng(0), n=n)


def test_simulate_runs_the_simt_pipeline() -> None:
    a, b, c = add_args()
    c[:] = np.nan
    simulate(add, [a, b, c], "cuda:sm_80", {"BLOCK": 512})
    np.testing.assert_array_equal(c, a + b)
    compiled = tilec.compile(add, a, b, c, target="simt:cuda:sm_80", BLOCK=512)
    assert list(compiled.stages) == ["capture", "plan", "schedule", "machine", "allocate",
                                     "build"]
    machine_fn = compiled.stages["machine"].value.lookup("add")
    assert machine_fn.attributes["form"] == "machine"
    assert machine_fn.attributes["target"] == "cuda:sm_80"
    assert compiled.executable().module is compiled.stages["machine"].value


def test_backend_factory_runs_machine_modules() -> None:
    backend = make_backend("simt:cuda:sm_80")
    assert isinstance(backend, SimtBackend)
    assert (backend.name, backend.profile) == ("simt:cuda:sm_80", "cuda:sm_80")
    assert make_backend("simt").profile == "cuda:sm_90"
    exe = backend.compile(MACHINE_SAMPLES["add"](), "add")
    assert 'level = "lane"' in exe.source
    a, b, c = add_args(700)
    exe(a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_backend_refuses_candidate_modules_and_names_the_driver() -> None:
    candidate = tilec.compile(add, *add_args()).module
    with pytest.raises(SimulationError, match=r"not Machine TileIR; lower it with "
                                              r"tilec.driver.compile_module"):
        make_backend().compile(candidate, "add")


def test_candidate_ir_is_not_simulated() -> None:
    m = machine('%x = constant() {value = 1} : index', form="scheduled")
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "unsupported" and "lower_to_machine" in str(info.value)
    with pytest.raises(KeyError):
        simulate_module(m, "nope", [poisoned(128)])


def test_unsupported_operations_are_named() -> None:
    m = machine("""
        %sh2 = memory() : mem<4xf32, shared>
    """)
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    e = info.value
    assert e.kind == "unsupported" and e.ops[0].name == "memory"
    assert str(e.ops[0].loc) in str(e)


def test_threads_attribute_must_match_the_lane_extent() -> None:
    m = machine("")
    grid = next(op for op in m.walk() if op.attr("level") == "grid")
    grid.attributes["threads"] = 64
    with pytest.raises(SimulationError) as info:
        simulate_module(m, "k", [poisoned(128)])
    assert info.value.kind == "unsupported" and "threads = 64" in str(info.value)


def test_simulation_error_fields() -> None:
    m = machine('%x = constant() {value = 1} : index')
    op = next(o for o in m.walk() if o.name == "constant")
    e = SimulationError("something", "race", [op])
    assert e.kind == "race" and e.ops == (op,) and e.locations == (op.loc,)
    assert str(e).startswith("race: something") and str(op.loc) in str(e)
    assert set(KINDS) == {"race", "out_of_range", "divergence", "unsupported", "hang"}
    with pytest.raises(ValueError):
        SimulationError("x", "bogus")


def test_verify_option_checks_machine_form() -> None:
    m = machine("")
    for op in m.walk():
        if op.name == "parallel":
            op.attributes.pop("threads", None)
    simulate_module(m, "k", [poisoned(128)], verify=True)
