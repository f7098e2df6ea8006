"""Every library and example kernel captures, verifies, round-trips, and matches numpy.

The kernels come from the ``DEMOS`` lists of ``tilec.lib`` and ``examples/``.
Runs use the reference interpreter and are skipped (with the reason) when it
is not importable.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.demo import DemoCase, max_error
from tilec.lib import DEMOS as LIB_DEMOS

try:
    import tilec.targets.reference.backend  # noqa: F401

    HAVE_REFERENCE = True
except ImportError:  # pragma: no cover - depends on the checkout
    HAVE_REFERENCE = False

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"tilec_example_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EXAMPLE_MODULES = {p.stem: _load(p) for p in EXAMPLE_FILES}
CASES: list[DemoCase] = [*LIB_DEMOS, *(c for m in EXAMPLE_MODULES.values() for c in m.DEMOS)]
IDS = [c.name for c in CASES]

# The Candidate inventory: library kernels are compositions of these, nothing else.
CANDIDATE_OPS = {"parallel", "serial", "pipeline", "if", "yield", "return", "reduce", "map",
                 "arith", "constant", "reindex", "mma", "view", "load", "store", "atomic",
                 "memory", "check", "iota", "load_scalar", "gather", "scatter"}


def _inputs(case: DemoCase) -> list:
    return list(case.make_inputs(np.random.default_rng(0)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_captures_verifies_and_round_trips(case):
    c = tc.compile(case.kernel, *_inputs(case), target="reference", **case.constexprs)
    ir.verify(c.module)
    again = ir.parse(c.ir)
    assert ir.structurally_equal(c.module, again), ir.explain_difference(c.module, again)
    assert {op.name for op in c.module.walk()} <= CANDIDATE_OPS


@pytest.mark.skipif(not HAVE_REFERENCE, reason="the reference backend is not importable")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_numpy_on_the_reference(case):
    args = _inputs(case)
    expected = case.expected(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    for i in expected:
        args[i] = np.full_like(args[i], np.nan)
    tc.interpret(case.kernel, *args, **case.constexprs)
    for i, want in expected.items():
        assert max_error(args[i], want) <= case.rtol


@pytest.mark.parametrize("name", sorted(EXAMPLE_MODULES))
def test_examples_have_the_demo_structure(name):
    mod = EXAMPLE_MODULES[name]
    assert isinstance(getattr(mod, name, None), tc.Kernel) or any(
        isinstance(v, tc.Kernel) for v in vars(mod).values())
    args = mod.make_inputs(np.random.default_rng(0))
    out = mod.reference(*args)
    assert isinstance(out, dict) and all(isinstance(k, int) for k in out)
    assert mod.DEMOS and mod.DEMOS[0].make_inputs is mod.make_inputs


def test_policies_are_resolved_as_written():
    from tilec.lib import row_mean_strict, softmax

    spec = tc.array((None, None), tc.float32)
    vec = tc.array((None,), tc.float32)
    sm = tc.compile(softmax, spec, spec, target="reference")
    policies = {op.attr("policy") for op in sm.module.walk() if op.name == "reduce"}
    assert policies == {ir.ReductionPolicy("unordered_tree", False)}
    strict = tc.compile(row_mean_strict, spec, vec, target="reference")
    policies = {op.attr("policy") for op in strict.module.walk() if op.name == "reduce"}
    assert policies == {ir.STRICT_FOLD}


def test_gemm_epilogue_variants_capture():
    from tilec.lib import gemm_bias_act

    spec = tc.array((None, None), tc.float32)
    vec = tc.array((None,), tc.float32)
    texts = {act: tc.compile(gemm_bias_act, spec, spec, vec, spec, target="reference",
                             ACT=act).ir for act in ("none", "relu", "gelu", "silu", "tanh")}
    assert '"erf"' in texts["gelu"] and '"sigmoid"' in texts["silu"]
    assert '"max"' in texts["relu"] and '"tanh"' in texts["tanh"]
    with pytest.raises(tc.TileSyntaxError, match="ACT is one of"):
        tc.compile(gemm_bias_act, spec, spec, vec, spec, target="reference", ACT="swish")
