"""The Scheduled and Machine verifier forms: lowered kernels verify; broken ones are named."""

from __future__ import annotations

import numpy as np
import pytest
from lowering_cases import CASES, TARGETS

import tilec as tc
import tilec.ir as ir
from tilec.ir import dist_layout as L
from tilec.lower import LoweringError, lower, lower_to_machine, lower_to_scheduled


def _module(case):
    args = list(case.make_inputs(np.random.default_rng(0)))
    return tc.compile(case.kernel, *args, target="reference", **case.constexprs).module


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_kernel_verifies_in_both_forms(case, target):
    module = _module(case)
    before = str(module)
    res = lower(module, target)
    assert str(module) == before, "lowering mutated its input"
    ir.verify(res.scheduled, "scheduled")
    ir.verify(res.machine, "machine")
    # both forms print and read back
    for m in (res.scheduled, res.machine):
        again = ir.parse(str(m))
        assert ir.structurally_equal(m, again), ir.explain_difference(m, again)


def _softmax():
    return _module(next(c for c in CASES if c.name == "lib.softmax"))


def _first(m: ir.Module, name: str) -> ir.Operation:
    return next(op for op in m.walk() if op.name == name)


def test_candidate_form_rejects_scheduling_attributes():
    s = lower_to_scheduled(_softmax(), "cuda:sm_90")
    with pytest.raises(ir.VerificationError, match="unknown attribute"):
        ir.verify(s, "candidate")


def test_a_layout_that_misses_elements_is_invariant_7():
    s = lower_to_scheduled(_softmax(), "cuda:sm_90")
    load = _first(s, "load")
    good = load.attr("layout")
    bad = L.DistLayout("derived", good.shape, good.threads, (1,),
                       ir.IndexMap(2, [ir.const(0), ir.d(0)]))
    load.attributes["layout"] = bad
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(s, "scheduled")
    assert e.value.invariant == "7"


def test_group_work_needs_a_binding():
    s = lower_to_scheduled(_softmax(), "cuda:sm_90")
    del _first(s, "reduce").attributes["exec"]
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(s, "scheduled")
    assert e.value.invariant == "2"


def test_matrix_participants_are_whole_subgroups():
    case = next(c for c in CASES if c.name == "lib.matmul")
    s = lower_to_scheduled(_module(case), "cuda:sm_90")
    mma = _first(s, "mma")
    mma.attributes["gm"] = mma.attr("gm") + 1
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(s, "scheduled")
    assert e.value.invariant == "6"


def _bf16_machine() -> ir.Module:
    import ml_dtypes

    from tilec.lib import matmul

    a = np.zeros((32, 32), ml_dtypes.bfloat16)
    c = np.zeros((32, 32), np.float32)
    m = tc.compile(matmul, a, a, c, target="reference", BM=32, BN=32, BK=32).module
    return lower_to_machine(m, "cuda:sm_90")


def test_atom_layouts_must_match_the_catalog():
    m = _bf16_machine()
    call = next(op for op in m.walk() if op.name == "atom.call"
                and op.attr("catalog_id").startswith("mma."))
    call.attributes["a_layout"] = call.attr("b_layout")
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(m, "machine")
    assert e.value.invariant == "16"


def test_unknown_atoms_are_rejected():
    m = _bf16_machine()
    call = next(op for op in m.walk() if op.name == "atom.call")
    call.attributes["catalog_id"] = "mma.m99"
    with pytest.raises(ir.VerificationError, match="not in the atom catalog"):
        ir.verify(m, "machine")


def test_machine_structure_needs_the_lane_nest_size():
    m = lower_to_machine(_softmax(), "cuda:sm_90")
    grid = next(op for op in m.walk() if op.name == "parallel")
    grid.attributes["threads"] = grid.attr("threads") * 2
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(m, "machine")
    assert e.value.invariant == "machine"


def test_unsupported_constructs_are_named():
    @tc.kernel
    def scratch_in_global(X, Y):
        for p in tc.parallel(2):
            m = tc.memory((8,), tc.float32, space="global")
            m.store(X.tile((p * 8,), (8,)).load())
            Y.tile((p * 8,), (8,)).store(m.load())

    x = np.zeros(16, np.float32)
    m = tc.compile(scratch_in_global, x, x, target="reference").module
    with pytest.raises(LoweringError, match="space 'global'"):
        lower_to_machine(m, "cuda:sm_90")


def test_a_symbolic_tile_is_refused_at_its_operation():
    m = ir.parse("""module {
  func @k(%x: mem<nx8xf32, global>, %n: index) -> () {kernel = true, shape_symbols = ["n"]} {
    %c1 = constant() {value = 1} : index
    parallel(%c1) {rank = 1} ({
    ^bb0(%p: index):
      %t = load(%x) : tile<nx8xf32> loc("k.py":6:7)
      yield()
    })
    return()
  }
}""")
    with pytest.raises(LoweringError, match=r"k.py:6:8: error: 'load' makes tile<nx8xf32>, "
                                            r"whose extents are not all constants"):
        lower_to_machine(m, "cuda:sm_90")


def test_a_row_reduction_produces_its_own_layout():
    s = lower_to_scheduled(_softmax(), "cuda:sm_90")
    red = _first(s, "reduce")
    lay = red.attr("layout")
    red.attributes["layout"] = L.row_reduced(lay.shape, lay.threads, lay.param("team") // 2)
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(s, "scheduled")
    assert e.value.invariant == "6"


def test_shared_memory_beyond_the_target_is_rejected():
    from tilec.lib import matmul

    a = np.zeros((256, 256), np.float32)
    m = tc.compile(matmul, a, a, a, target="reference", BM=128, BN=128, BK=64).module
    with pytest.raises(LoweringError, match="bytes of shared memory"):
        lower_to_machine(m, "metal:m1")


def test_a_producer_in_another_layout_needs_a_repartition_record():
    s = lower_to_scheduled(_module(next(c for c in CASES if c.name == "lib.einsum_outer")),
                           "cuda:sm_90")
    rx = _first(s, "reindex")
    lay = rx.attr("layout")
    rx.attributes["layout"] = L.rows(lay.shape, lay.threads, 8, 4)
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(s, "scheduled")
    assert e.value.invariant == "13"


def test_ring_buffer_views_select_one_version():
    m = _bf16_machine()
    ring = next(op for op in m.walk() if op.name == "memory" and op.attr("versions") == 2)
    view = next(u.owner for u in ring.result.uses)
    old = view.attr("map")
    view.attributes["map"] = ir.IndexMap(2, [ir.d(0).floordiv(16), ir.d(0), ir.d(1)],
                                         old.n_symbols)
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(m, "machine")
    assert e.value.invariant == "15"


def test_async_copies_need_a_specialization_guard():
    import ml_dtypes

    from tilec.lib import matmul

    a = np.zeros((64, 64), ml_dtypes.bfloat16)
    c = np.zeros((64, 64), np.float32)
    mod = tc.compile(matmul, a, a, c, target="reference", BM=32, BN=32, BK=32).module
    m = lower_to_machine(mod, "cuda:sm_90")
    guard = next(op for op in m.walk() if op.name == "if" and op.attr("guard"))
    del guard.attributes["guard"]
    with pytest.raises(ir.VerificationError) as e:
        ir.verify(m, "machine")
    assert e.value.invariant == "17"
