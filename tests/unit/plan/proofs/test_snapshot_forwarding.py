"""The snapshot forwarding proof (``plan/proofs/snapshot_forwarding.py``): a loaded tile may
be read from its source window instead of a compiler-owned copy. Positive cases (lib.matmul,
a transposed B operand, a chain of relabelings) and the seed's counterexamples (an
intervening aliasing store, a mutable input, manual ``tc.memory``, an escape, an escape
that the fixed point carries back along a chain), and the plan report's facts."""

from __future__ import annotations

import numpy as np

import tilec as tc
import tilec.ir as ir
import tilec.plan as plan
from tilec.lib import linear, matmul
from tilec.plan.proofs import snapshot_forwarding

F32 = np.float32


@tc.kernel
def intervening(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            A.tile((pm * BM, k * BK), (BM, BK)).store(tc.zeros((BM, BK), tc.float32))
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def mutable_input(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 32,
                  BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)
        B.tile((0, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def through_memory(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 32,
                   BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        s = tc.memory((BM, BK), tc.float32)
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            s.tile((0, 0), (BM, BK)).store(A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load())
            a = s.tile((0, 0), (BM, BK)).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def escapes(A, B, C, D, BM: tc.constexpr = 16, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        a = A.tile((pm * BM, 0), (BM, BK), fill=0.0).load()
        b = B.tile((0, pn * BN), (BK, BN), fill=0.0).load()
        acc = tc.mma(a, b, acc)
        D.tile((pm * BM, 0), (BM, BK)).store(a)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def transposed_escape(A, W, C, D, BM: tc.constexpr = 16, BN: tc.constexpr = 32,
                      BK: tc.constexpr = 16):
    M, K = A.shape
    N = W.shape[0]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        a = A.tile((pm * BM, 0), (BM, BK), fill=0.0).load()
        w = W.tile((pn * BN, 0), (BN, BK), fill=0.0).load()
        acc = tc.mma(a, w.T, acc)
        D.tile((pn * BN, 0), (BN, BK)).store(w)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def relabeled_twice(A, B, C, BM: tc.constexpr = 16, BN: tc.constexpr = 32,
                    BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0).load()
            acc = tc.mma(a, b.T.T, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


def _module(kernel, a_shape=(32, 64), b_shape=(64, 64), c_shape=(32, 64), *extra):
    args = [np.zeros(a_shape, F32), np.zeros(b_shape, F32), np.zeros(c_shape, F32),
            *(np.zeros(s, F32) for s in extra)]
    return tc.compile(kernel, *args, target="reference").module


def _mma(module: ir.Module) -> ir.Operation:
    return next(op for op in module.walk() if op.name == "mma")


def _facts(module: ir.Module):
    fn = next(iter(module))
    return snapshot_forwarding(fn), _mma(module)


def _workload(module: ir.Module, **opts) -> plan.MatrixWorkload:
    (site,) = plan.extract_groups(module, plan.PlannerOptions(**opts))
    assert site.workload is not None, site.reason
    (w,) = site.workload.ops
    return w


# ------------------------------------------------------------------------------- positive


def test_matmul_operands_are_read_only_snapshots() -> None:
    fw, mma = _facts(_module(matmul))
    for k in range(2):
        f = fw.operand(mma, k)
        assert f is not None and f.proved and not f.transposed
        assert [r.split(":")[0] for r in f.reasons] == [
            "effect", "noalias", "bounds", "dominance", "nonescape"]
    assert "fill 0.0" in fw.operand(mma, 0).reasons[2]


def test_a_transposed_b_is_forwarded_through_its_relabeling() -> None:
    fw, mma = _facts(_module(linear, (32, 64), (64, 64), (32, 64)))
    f = fw.operand(mma, 1)
    assert f is not None and f.proved and f.transposed
    assert f.load.name == "load" and f.value.defining_op.name == "reindex"


def test_a_chain_of_relabelings_reaches_the_fixed_point() -> None:
    fw, mma = _facts(_module(relabeled_twice))
    f = fw.operand(mma, 1)
    assert f is not None and f.proved and not f.transposed  # two transposes
    assert fw.rounds == 1  # nothing to drop: the first round is the fixed point


# ------------------------------------------------------------------------ counterexamples


def test_an_intervening_aliasing_store_refuses_the_snapshot() -> None:
    fw, mma = _facts(_module(intervening))
    assert fw.why_not(mma, 0).startswith("an intervening store to A at ")
    assert "may change the snapshot" in fw.why_not(mma, 0)
    assert fw.proved(mma, 1)  # B is another parameter (the runtime refuses overlaps)


def test_a_mutable_input_is_refused() -> None:
    fw, mma = _facts(_module(mutable_input))
    why = fw.why_not(mma, 1)
    assert why.startswith("B is written by the kernel at ") and "mutable input" in why
    assert fw.proved(mma, 0)


def test_manual_memory_is_never_forwarded() -> None:
    fw, mma = _facts(_module(through_memory))
    why = fw.why_not(mma, 0)
    assert "reads manual memory (tc.memory at " in why and "never forwarded" in why
    assert fw.proved(mma, 1)


def test_an_escaping_snapshot_keeps_its_copy() -> None:
    fw, mma = _facts(_module(escapes, (32, 16), (16, 64), (32, 64), (32, 16)))
    why = fw.why_not(mma, 0)
    assert why.startswith("the snapshot escapes: it is used by 'store' at ")
    assert fw.proved(mma, 1)


def test_an_escape_is_carried_back_along_the_chain() -> None:
    # the load of W escapes (stored), so its transpose, the B operand, loses its source
    fw, mma = _facts(_module(transposed_escape, (32, 16), (64, 16), (32, 64), (64, 16)))
    why = fw.why_not(mma, 1)
    assert why.startswith("its source at ") and "is not forwarded" in why
    assert "escapes" in why
    assert fw.rounds == 3  # the load, then its transpose, then nothing is dropped
    assert fw.proved(mma, 0)


def test_no_snapshot_gives_no_fact() -> None:
    module = _module(matmul)
    mma = _mma(module)
    fw = snapshot_forwarding(next(iter(module)))
    assert fw.why_not(mma, 2).startswith("it is not a loaded tile")


# ------------------------------------------------------------------------- the report


def test_the_facts_are_in_the_plan_report() -> None:
    w = _workload(_module(intervening))
    assert w.forwarding[0].startswith("an intervening store")
    assert w.forwarding[1] == ""
    j = w.to_json()["forwarding"]
    assert j["A"]["proved"] is False and j["B"] == {"proved": True, "reason": ""}
    mp = plan.plan_module(_module(intervening), "cuda:sm_80")
    text = mp.render()
    assert "snapshot forwarding: A refused: an intervening store to A" in text
    assert "B proved (effect, noalias, bounds, dominance, nonescape)" in text


def test_the_option_makes_the_fact_take_effect() -> None:
    module = _module(matmul)
    assert not _workload(module).inputs_forwardable  # the fact alone changes nothing
    assert _workload(module, forward_snapshots=True).inputs_forwardable
    assert not _workload(_module(intervening), forward_snapshots=True).inputs_forwardable
