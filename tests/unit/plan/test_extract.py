"""The thin IR extraction: groups, executions, recurrence / direct-output / physical-K facts."""

from __future__ import annotations

import tilec.ir as ir
import tilec.plan as plan


def _workload(module: ir.Module, **opts) -> plan.MatrixWorkload:
    (site,) = plan.extract_groups(module, plan.PlannerOptions(**opts))
    assert site.workload is not None, site.reason
    (w,) = site.workload.ops
    return w


def test_matmul_facts(matmul_module) -> None:
    module = matmul_module(m=128, n=256, k=96, bm=32, bn=64, bk=32)
    (site,) = plan.extract_groups(module)
    g = site.workload
    assert g.programs == (128 // 32) * (256 // 64)
    (w,) = g.ops
    assert (w.m, w.n, w.k, w.executions, w.recurrence) == (32, 64, 32, 3, 3)
    assert w.direct_output and not w.overwrite
    assert w.domains == plan.ScalarDomains(32 * 64 * 3, 32 * 64, 32 * 64)
    # the A and B loads remain common scalar work: (32*32 + 32*64) per iteration
    assert g.common_elements == (32 * 32 + 32 * 64) * 3


def test_second_use_of_the_result_defeats_direct_output(matmul_module) -> None:
    w = _workload(matmul_module(extra_use=True))
    assert w.recurrence is not None and not w.direct_output
    assert w.domains.sink == 0


def test_overwrite_needs_positive_zero_and_one_iteration(matmul_module) -> None:
    assert _workload(matmul_module(k=32, bk=32)).overwrite
    assert not _workload(matmul_module(k=32, bk=32, init=-0.0)).overwrite
    assert not _workload(matmul_module(k=32, bk=32, init=1.0)).overwrite
    assert not _workload(matmul_module(k=64, bk=32)).overwrite


def test_physical_k_needs_bounded_views_and_the_capability(matmul_module) -> None:
    bounded = matmul_module(m=32, n=64, k=48, bm=32, bn=64, bk=16, bounded=True, source_k=45)
    assert not _workload(bounded).physical_k_proved
    w = _workload(bounded, bounded_k_views=True)
    assert w.physical_k == plan.AffineExtent(45, (-16,), (3,), 16) and w.mean_k == 15
    plain = matmul_module(m=32, n=64, k=48, bm=32, bn=64, bk=16)
    assert not _workload(plain, bounded_k_views=True).physical_k_proved


def test_disabled_cooperative_mapping_and_bf16(matmul_module) -> None:
    (site,) = plan.extract_groups(matmul_module(),
                                  plan.PlannerOptions(map_gpu_cooperative_programs=False))
    assert site.workload is None and "disabled" in site.reason
    w = _workload(matmul_module(dtype=ir.bf16))
    assert w.dtype == "bf16" and w.acc_dtype == "f32"
    mp = plan.plan_module(matmul_module(dtype=ir.bf16), "cuda:sm_90")
    assert mp.groups[0].selected.choices[0].candidate.atom.id == "mma.m16n8k16.bf16"


def test_bounded_destination_proved_in_range_keeps_direct_output(matmul_module) -> None:
    # the 4x2 grid of 32x64 tiles covers the 128x128 output exactly: the guard is vacuous
    assert _workload(matmul_module(bounded_store=True)).direct_output
    # a ragged 100-row output overhangs: needs the bounded-store capability
    ragged = matmul_module(m=100, bounded_store=True)
    assert not _workload(ragged).direct_output
    assert _workload(ragged, bounded_store=True).direct_output


def test_physical_k_through_a_scaled_tile_counter(matmul_module) -> None:
    module = matmul_module(m=32, n=64, k=48, bm=32, bn=64, bk=16, bounded=True, source_k=45,
                           scaled_iv=True)
    w = _workload(module, bounded_k_views=True)
    assert w.physical_k == plan.AffineExtent(45, (-16,), (3,), 16) and w.mean_k == 15


def test_shape_generic_module_with_bound_shapes(matmul_module) -> None:
    import numpy as np

    module = matmul_module(symbolic=True, bounded=True, bounded_store=True)
    ir.verify(module)
    (site,) = plan.extract_groups(module)
    (w,) = site.workload.ops
    assert site.workload.programs is None and not w.executions_known
    fn = next(iter(module))
    arrays = [np.zeros((128, 256)), np.zeros((256, 128)), np.zeros((128, 128))]
    shapes = plan.shapes_from_arrays(fn, arrays)
    assert shapes == {"M": 128, "K": 256, "N": 128}
    (bound,) = plan.extract_groups(module, shapes=shapes)
    (wb,) = bound.workload.ops
    assert bound.workload.programs == 4 * 2 and wb.executions == 256 // 32
    assert wb.recurrence == 8 and wb.direct_output  # the 128x128 store is proved in range
    mp = plan.plan_module(module, "cuda:sm_90", shapes={"matmul": shapes})
    assert mp.groups[0].workload.programs == 8 and mp.groups[0].selected is not None
    # ragged bindings: the bounded store overhangs and needs the capability
    (ragged,) = plan.extract_groups(module, shapes={"M": 100, "K": 256, "N": 128})
    assert not ragged.workload.ops[0].direct_output
    w45 = _workload(matmul_module(symbolic=True, bounded=True, m=32, n=64, k=48, bm=32, bn=64,
                                  bk=16), bounded_k_views=True)
    assert not w45.physical_k_proved
    (s45,) = plan.extract_groups(
        matmul_module(symbolic=True, bounded=True, m=32, n=64, k=48, bm=32, bn=64, bk=16),
        plan.PlannerOptions(bounded_k_views=True), {"M": 32, "K": 45, "N": 64})
    assert s45.workload.ops[0].mean_k == 15
