"""The cpu realization plan (``targets/cpu/plan.py``): what it decides from the profile's
facts, that the C emitter prints what it says, and that other plans stay correct.

Every changed plan is differential-tested: outputs poisoned with NaN, run on the cpu,
compared with the reference interpreter.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import tilec as tc
from tilec.driver import compile_module
from tilec.exec import get_profile
from tilec.lib.matmul import matmul
from tilec.lib.reductions import row_sum
from tilec.targets.clike import UnsupportedError
from tilec.targets.cpu.backend import CBackend
from tilec.targets.cpu.plan import plan_cpu


def _gemm(dtype: type, m: int = 70, n: int = 50, k: int = 24, **cx: int) -> tuple:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, dtype)
    comp = tc.compile(matmul, a, b, c, target="reference", **cx)
    return comp, [a, b, c]


def _run(comp: object, args: list[np.ndarray], plan: object = None) -> list[np.ndarray]:
    """Outputs on the cpu with ``plan`` (None: the default one) and on the reference."""
    m, fn = comp.module, comp.fn_name  # type: ignore[attr-defined]
    be = CBackend()
    src = be.emit(m, fn, plan)
    got = [x.copy() for x in args]
    be.build(m, fn, src)(*got)
    want = [x.copy() for x in args]
    comp(*want)  # type: ignore[operator]
    return [got[-1], want[-1]]


def test_the_plan_reads_the_profile_facts() -> None:
    comp, _ = _gemm(np.float32, BM=64, BN=64, BK=32)
    plan = plan_cpu(comp.module, comp.fn_name)
    facts = {f.name: f.value for f in get_profile("cpu").facts}
    (programs,) = plan.programs.values()
    assert programs.threaded and programs.threshold == facts["parallel_work"]
    assert programs.chunks_per_thread == facts["omp_chunks_per_thread"]
    assert programs.work > 64 * 64 * 32  # the product dominates one program's work
    (tile,) = plan.micro_tiles.values()
    assert (tile.flavour, tile.rows, tile.vectors, tile.lanes) == (
        "f32", facts["register_block_rows"], facts["register_block_vectors"],
        facts["vector_lanes_f32"])
    assert tile.fused  # lib.matmul accumulates unordered_tree
    assert plan.stack_budget == facts["stack_budget"] and not plan.thread_local
    text = plan.render()
    assert "OpenMP over programs" in text and "6 x 16 f32 register blocks" in text


@tc.kernel
def _gemm_in_place(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 16, K: tc.constexpr = 8):
    for pm, pn in tc.parallel(tc.cdiv(A.shape[0], BM), tc.cdiv(B.shape[1], BN)):
        a = A.tile((pm * BM, 0), (BM, K), fill=0).load()
        b = B.tile((0, pn * BN), (K, BN), fill=0).load()
        c = C.tile((pm * BM, pn * BN), (BM, BN), fill=0).load()
        C.tile((pm * BM, pn * BN), (BM, BN)).store(tc.mma(a, b, c))


@pytest.mark.parametrize("dtype, flavour, lanes", [(np.float64, "f64", 4), (np.float32, "f32", 8)])
def test_f64_and_f32_products_get_their_vectors(dtype: type, flavour: str, lanes: int) -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((40, 8)) * 4).astype(dtype)
    b = (rng.standard_normal((8, 36)) * 4).astype(dtype)
    c = (rng.standard_normal((40, 36)) * 4).astype(dtype)
    comp = tc.compile(_gemm_in_place, a, b, c, target="reference")
    (tile,) = plan_cpu(comp.module, comp.fn_name).micro_tiles.values()
    assert (tile.flavour, tile.lanes) == (flavour, lanes)
    got, want = _run(comp, [a, b, c])
    tol = 1e-12 if dtype is np.float64 else 1e-5  # fused multiply-add (unordered_tree)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_the_scalar_loop_is_printed_when_the_plan_says_so() -> None:
    """``flavour = None``: the reference's loop (what a product without a vector kernel
    gets), which for a strict product is bit-identical to the reference."""
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((40, 8), (8, 36), (40, 36)))
    comp = tc.compile(_gemm_in_place, a, b, c, target="reference")
    plan = plan_cpu(comp.module, comp.fn_name)
    (k,) = plan.micro_tiles
    plan.micro_tiles[k] = dataclasses.replace(plan.micro_tiles[k], flavour=None)
    src = CBackend().emit(comp.module, comp.fn_name, plan).text
    assert "tc_mk_" not in src and "acc[j] = " in src
    got, want = _run(comp, [a, b, c], plan)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@tc.kernel
def _sums(X, out, rows, BM: tc.constexpr = 8, BN: tc.constexpr = 64):
    for pm in tc.parallel(tc.cdiv(X.shape[0], BM)):
        x = X.tile((pm * BM, 0), (BM, BN), fill=0).load()
        out.tile((pm * BM,), (BM,)).store(tc.sum(x, axis=1))  # over the trailing axis
        rows.tile((0,), (BN,)).store(tc.sum(x, axis=0))       # over a leading axis


def test_reductions_fold_into_lane_partials_by_state_width() -> None:
    for dtype, lanes in ((np.float32, 16), (np.float64, 8)):
        x = np.ones((8, 64), dtype)
        out, rows = np.full((8,), np.nan, dtype), np.full((64,), np.nan, dtype)
        comp = tc.compile(_sums, x, out, rows, target="reference")
        trailing, leading = plan_cpu(comp.module, comp.fn_name).reductions.values()
        assert (trailing.kind, trailing.lanes) == ("lanes", lanes), trailing
        assert (leading.kind, leading.lanes) == ("general", 0), leading


@pytest.mark.parametrize("rows, vectors, lanes", [(4, 1, 8), (3, 2, 8), (1, 1, 8), (8, 2, 8),
                                                   (6, 4, 16), (8, 3, 16), (1, 1, 16)])
def test_other_register_blocks_print_and_stay_exact(rows: int, vectors: int, lanes: int
                                                    ) -> None:
    """The emitter prints the plan's block, and every block gives the reference's values
    (within the unordered_tree bound: fused steps here, in another grouping there), with
    256- and 512-bit vectors (the latter build without AVX-512 too, as vector extensions)."""
    comp, args = _gemm(np.float32, BM=64, BN=64, BK=32)
    plan = plan_cpu(comp.module, comp.fn_name)
    (k,) = plan.micro_tiles
    plan.micro_tiles[k] = dataclasses.replace(plan.micro_tiles[k], rows=rows, vectors=vectors,
                                              lanes=lanes)
    src = CBackend().emit(comp.module, comp.fn_name, plan).text
    suffix = "f32" if lanes == 8 else "f32x16"
    assert f"tc_mk_{suffix}_fma_{rows}x{vectors}_ra(" in src  # f32 A: its rows as they are
    assert ("tc_v16f" in src) == (lanes == 16)
    got, want = _run(comp, args, plan)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_is_read_in_place_unless_its_elements_need_converting(dtype: str) -> None:
    """The micro-kernels read A's rows where they are when A has the accumulator's type;
    16-bit A is converted while packed into row panels. Both give the reference's values
    with row remainders (40 rows in blocks of 6) and columns narrower than a vector
    (BN = 52 with 16- or 8-lane vectors)."""
    import ml_dtypes

    rng = np.random.default_rng(5)
    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else getattr(np, dtype)
    a = rng.standard_normal((70, 40)).astype(dt)
    b = rng.standard_normal((40, 90)).astype(dt)
    c = np.full((70, 90), np.nan, np.float32)
    comp = tc.compile(matmul, a, b, c, target="reference", BM=40, BN=52, BK=32)
    src = CBackend().emit(comp.module, comp.fn_name).text
    kernels = set(re.findall(r"void (tc_mk_\w+)\(", src))
    assert len(kernels) >= 2, kernels                      # full rows and the remainder
    assert all(k.endswith("_ra") for k in kernels) == (dtype != "bfloat16"), kernels
    a_pack = re.search(r"\[i0 \* 32 \+ kk \* \d+ \+ ii\] = ", src)  # A into row panels
    assert (a_pack is None) == (dtype != "bfloat16")
    assert "acc = acc + " in src                             # columns narrower than a vector
    got, want = _run(comp, [a, b, c])
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_programs_run_serially_or_threaded_as_planned() -> None:
    comp, args = _gemm(np.float32, 300, 200, 40, BM=32, BN=32, BK=16)
    plan = plan_cpu(comp.module, comp.fn_name)
    (k,) = plan.programs
    threaded = CBackend().emit(comp.module, comp.fn_name, plan).text
    assert "#pragma omp parallel for" in threaded
    plan.programs[k] = dataclasses.replace(plan.programs[k], threaded=False, reason="test")
    plain = CBackend().emit(comp.module, comp.fn_name, plan).text
    assert "#pragma omp parallel for" not in plain
    got, want = _run(comp, args, plan)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    plan.programs[k] = dataclasses.replace(plan.programs[k], threaded=True, threshold=123,
                                           chunks_per_thread=3)
    text = CBackend().emit(comp.module, comp.fn_name, plan).text
    assert ">= 123)" in text and "(3 * TC_THREADS())" in text


def test_fewer_lane_partials_are_printed_and_agree() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((37, 300)).astype(np.float32)
    out = np.full((37,), np.nan, np.float32)
    comp = tc.compile(row_sum, x, out, target="reference")
    plan = plan_cpu(comp.module, comp.fn_name)
    (k,) = plan.reductions
    plan.reductions[k] = dataclasses.replace(plan.reductions[k], lanes=4)
    assert "[4];" in CBackend().emit(comp.module, comp.fn_name, plan).text
    got, want = _run(comp, [x, out], plan)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_a_plan_the_printer_cannot_print_is_refused_with_the_reason() -> None:
    comp, _ = _gemm(np.float32, BM=64, BN=64, BK=32)
    plan = plan_cpu(comp.module, comp.fn_name)
    (k,) = plan.micro_tiles
    plan.micro_tiles[k] = dataclasses.replace(plan.micro_tiles[k], lanes=12)
    with pytest.raises(UnsupportedError, match="12-lane f32 vectors; the C printer's have 8 "
                                               "or 16"):
        CBackend().emit(comp.module, comp.fn_name, plan)


def test_the_driver_plans_and_the_emitter_prints_that_plan() -> None:
    comp, _ = _gemm(np.float32, BM=64, BN=64, BK=32)
    c = compile_module(comp.module, comp.fn_name, "cpu", until="emit")
    realization = c.plan.realization
    assert realization is not None and realization.micro_tiles
    assert c.plan.to_json()["realization"]["micro_tiles"][0]["rows"] == 6
    assert "cpu realization of @matmul" in c.plan.render()
    assert c.source.text == CBackend().emit(comp.module, comp.fn_name, realization).text


@pytest.mark.parametrize("bits, lanes, vectors", [(256, 8, 2), (512, 16, 4)])
def test_the_backend_plans_for_the_compilers_vector_width(monkeypatch, bits, lanes, vectors):
    import tilec.targets.cpu.backend as backend

    real = backend.toolchain()
    monkeypatch.setattr(backend, "toolchain",
                        lambda: dataclasses.replace(real, vector_bits=bits))
    comp, _ = _gemm(np.float32, BM=64, BN=64, BK=32)
    (tile,) = CBackend().realization_plan(comp.module, comp.fn_name).micro_tiles.values()
    assert (tile.lanes, tile.rows, tile.vectors) == (lanes, 6, vectors)
    variants = CBackend().tuning_variants(comp.module, comp.fn_name)
    assert variants and all(v["register_block_rows"] * v["register_block_vectors"]
                            <= (26 if bits == 512 else 12) for v in variants)


def test_a_compilation_overrides_the_micro_tile_and_stays_exact():
    comp, args = _gemm(np.float32, BM=64, BN=64, BK=32)
    got = [x.copy() for x in args]
    c = tc.compile(matmul, *got, target="cpu", variant={"register_block_rows": 4,
                                                        "register_block_vectors": 3},
                   BM=64, BN=64, BK=32)
    (tile,) = c.plan.realization.micro_tiles.values()
    assert (tile.rows, tile.vectors) == (4, 3)
    assert "_fma_4x3_ra(" in c.source
    c(*got)
    want = [x.copy() for x in args]
    comp(*want)
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-5, atol=1e-5)
    with pytest.raises(tc.UserError, match="no tunable fact warps"):
        CBackend().realization_plan(comp.module, comp.fn_name, {"warps": 2})
    # A kernel without a vector mma has no micro-tile variants to try.
    x = np.zeros((8, 32), np.float32)
    rs = tc.compile(row_sum, x, np.zeros(8, np.float32), target="reference")
    assert CBackend().tuning_variants(rs.module, rs.fn_name) == []
