"""The scalar epilogue proof (``plan/proofs/scalar_epilogue.py``): a closed elementwise map
between an accumulator and its global store runs on the accumulator's registers. Positive
cases (a cast, a scale and an activation, a bias row read through a reindexed load) and the
seed's counterexamples (an extra consumer, a computed tile operand, a free variable), and the
option that turns the fact into a direct output."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import tilec as tc
import tilec.ir as ir
import tilec.plan as plan
from epilogue_kernels import plus_residual, scaled_relu
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


def test_a_computed_tile_is_refused() -> None:
    a = np.zeros((128, 64), BF16)
    b = np.zeros((64, 128), BF16)
    r = np.zeros((128, 128), np.float32)
    c = np.zeros((128, 128), np.float32)
    m = tc.compile(plus_residual, a, b, r, c, target="reference").module
    epi, why = epilogue_of(_accumulator(m))
    assert epi is None
    assert "is a tile that is not a reindexed load" in why, why
    assert not _workload(m).direct_output


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
