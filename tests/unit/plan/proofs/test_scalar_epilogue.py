"""The scalar epilogue proof (``plan/proofs/scalar_epilogue.py``): a closed elementwise map
between an accumulator and its global store runs on the accumulator's registers. Positive
cases (a cast, a scale and an activation, a bias row read through a reindexed load, a
residual read through an owned load) and the seed's counterexamples (an extra consumer, a
neighbour read, a computed tile operand, a free variable, an effect), and the option that
turns the fact into a direct output."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
import tilec.plan as plan
from epilogue_kernels import (
    plus_residual,
    reduced_residual,
    residual_act,
    residual_kept,
    scaled_relu,
    transposed,
)
from tilec.lib import gemm_bias_act, matmul
from tilec.plan.proofs import epilogue_of

BF16 = ml_dtypes.bfloat16


@tc.kernel
def stored_twice(A, B, C, D, BM: tc.constexpr = 64, BN: tc.constexpr = 64,
                 BK: tc.constexpr = 64):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        out = acc.astype(tc.bfloat16)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(out)
        D.tile((pm * BM, pn * BN), (BM, BN)).store(out)


def _module(kernel, *extra, out=BF16, outs=1):
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    cs = [np.zeros((128, 128), out) for _ in range(outs)]
    return tc.compile(kernel, a, b, *cs, *extra, target="reference").module


def _accumulator(module: ir.Module) -> ir.Value:
    loop = next(op for op in module.walk() if op.name == "serial"
                and any(o.name == "mma" for o in op.walk(include_self=False)))
    return loop.results[0]


def _workload(module: ir.Module, **opts) -> plan.MatrixWorkload:
    # the windows are bounded: the direct output needs the bounded-store capability, which
    # the lowering's default planner options have
    (site,) = plan.extract_groups(module, plan.PlannerOptions(bounded_store=True, **opts))
    assert site.workload is not None, site.reason
    (w,) = site.workload.ops
    return w


def test_a_cast_to_the_output_type_is_a_scalar_epilogue() -> None:
    m = _module(matmul)
    epi, why = epilogue_of(_accumulator(m))
    assert epi is not None, why
    assert epi.ops == ("arith cast",) and epi.store.name == "store"
    # the fact becomes a direct output with the option (on by default), not without it
    assert _workload(m).direct_output
    assert not _workload(m, fuse_matrix_epilogues=False).direct_output


def test_a_scale_by_a_uniform_scalar_and_an_activation_are_too() -> None:
    m = _module(scaled_relu, 2.0)
    epi, why = epilogue_of(_accumulator(m))
    assert epi is not None, why
    assert epi.ops == ("arith mul", "constant", "arith max", "arith cast")
    assert _workload(m, fuse_matrix_epilogues=True).direct_output


def test_an_f32_output_needs_no_epilogue() -> None:
    m = _module(matmul, out=np.float32)
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None and "does not pass through a map" in why
    assert _workload(m).direct_output  # the plain store was always direct


def test_a_bias_row_is_a_reindexed_load() -> None:
    """``act(acc + bias[None, :])``: the bias is a ``reindex`` of a loaded tile, which the
    owner of accumulator element ``(i, j)`` loads for itself (``bias[j]``)."""
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    bias = np.zeros((128,), np.float32)
    c = np.zeros((128, 128), np.float32)
    m = tc.compile(gemm_bias_act, a, b, bias, c, target="reference", ACT="gelu").module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is not None, why
    assert "arith erf" in epi.ops and epi.ops[0] == "constant"
    assert _workload(m).direct_output


@pytest.mark.parametrize("act", ["gelu", "relu"])
@pytest.mark.parametrize("out", [np.float32, BF16], ids=["f32", "bf16"])
def test_a_bias_row_and_an_activation_with_either_output_type(act, out) -> None:
    """``lib.gemm_bias_act``'s activation is a helper's result and a 16-bit output adds the
    store's cast: capture merges the two maps (frontend/map_fusion.py), so one closed
    epilogue reaches the store and the report names it."""
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    bias = np.zeros((128,), np.float32)
    c = np.zeros((128, 128), out)
    m = tc.compile(gemm_bias_act, a, b, bias, c, target="reference", ACT=act).module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is not None, why
    assert epi.tile_operands == 1
    assert ("arith cast" in epi.ops) == (out is BF16)
    assert ("arith erf" in epi.ops) == (act == "gelu")
    w = _workload(m)
    assert w.direct_output and w.epilogue_tiles == 1
    (site,) = plan.extract_groups(m, plan.PlannerOptions(bounded_store=True))
    assert any("direct output through the scalar epilogue (" in n
               for n in site.workload.notes), site.workload.notes


def test_a_residual_of_the_output_shape_is_an_owned_load() -> None:
    """``act(acc + R)`` with ``R`` a window of the output tile's shape: the load's index
    map is the identity of the tile, so each owner of accumulator element ``(i, j)`` loads
    ``R``'s element ``(i, j)`` itself (a congruent layout). A scaled residual
    (``acc + 2 R``) is one map with the accumulator after capture's merge."""
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    r = np.zeros((128, 128), np.float32)
    for kernel in (residual_act, plus_residual):
        for out in (np.float32, BF16):
            c = np.zeros((128, 128), out)
            m = tc.compile(kernel, a, b, r, c, target="reference").module
            epi, why = epilogue_of(_accumulator(m))
            assert epi is not None, why
            assert epi.tile_operands == 1
            assert epi.map.operand(1).defining_op.name == "load"
            assert _workload(m).direct_output


def test_a_computed_tile_is_refused() -> None:
    """A tile computed by other tile operations has a layout of its own: a reduction's
    result broadcast along the rows, a scaled residual that a second store also reads."""
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    c = np.zeros((128, 128), np.float32)
    m = tc.compile(reduced_residual, a, b, np.zeros((128, 16), np.float32), c,
                   target="reference").module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None
    assert "is a tile that is not a reindexed or owned load" in why, why
    assert "does not read a loaded tile" in why, why
    assert not _workload(m).direct_output
    r = np.zeros((128, 128), np.float32)
    m = tc.compile(residual_kept, a, b, r, c, c, target="reference").module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None
    assert "is a tile that is not a reindexed or owned load (it is a 'map')" in why, why
    assert not _workload(m).direct_output


def test_a_neighbour_read_is_refused() -> None:
    """``acc.T``: element ``(i, j)`` of the stored tile is the accumulator's ``(j, i)``,
    which another thread owns."""
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    m = tc.compile(transposed, a, b, np.zeros((128, 128), BF16), target="reference").module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None and "does not pass through a map" in why, why
    assert not _workload(m).direct_output


def test_an_effect_is_refused() -> None:
    from tilec.lower.cloning import clone_module

    m, _ = clone_module(_module(scaled_relu, 2.0))
    acc = _accumulator(m)
    (use,) = acc.uses
    body = use.owner.regions[0].entry
    call = ir.Operation("call", [], [], {"callee": "elsewhere"})
    body.insert_op(call, body.terminator)  # no operand, no result: only its effect
    epi, why = epilogue_of(acc)
    assert epi is None and "'call'" in why and "is not a pure scalar op" in why, why


def test_a_second_consumer_is_refused() -> None:
    m = _module(stored_twice, outs=2)
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None and "2 uses, not one store" in why
    assert not _workload(m, fuse_matrix_epilogues=True).direct_output


def test_a_free_variable_is_refused() -> None:
    from tilec.lower.cloning import clone_module

    # a copy: the compiled module is the kernel's cached capture, which later tests reuse
    m, _ = clone_module(_module(scaled_relu, 2.0))
    acc = _accumulator(m)
    (use,) = acc.uses
    mp = use.owner
    mul = next(op for op in mp.regions[0].entry.operations if op.attr("fn") == "mul")
    mul.set_operand(1, mp.operand(1))  # the map's outer operand, read from inside it
    epi, why = epilogue_of(acc)
    assert epi is None and "free variable" in why


def test_the_report_names_the_fused_epilogue() -> None:
    m = _module(matmul)
    (site,) = plan.extract_groups(m, plan.PlannerOptions(bounded_store=True,
                                                          fuse_matrix_epilogues=True))
    assert any("direct output through the scalar epilogue (arith cast)" in n
               for n in site.workload.notes), site.workload.notes
    (site,) = plan.extract_groups(m, plan.PlannerOptions(bounded_store=True,
                                                          fuse_matrix_epilogues=False))
    assert any("fused only with PlannerOptions.fuse_matrix_epilogues" in n
               for n in site.workload.notes), site.workload.notes
