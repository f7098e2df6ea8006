"""Copy batching of synchronous staged copies (``PlannerOptions.max_copy_batch``,
``lower/machine_copies.py``): what each setting changes in the Machine IR (the order and
size of the loads and ring stores of one issue), the group report, and simulated runs
against the reference interpreter with NaN-poisoned outputs under several settings,
ragged edges included."""

from __future__ import annotations

from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from lowering_cases import SIMULATOR_MISSING, differential, poisoned, reference

import tilec as tc
import tilec.ir as ir
from tilec.lib import matmul, softmax
from tilec.lower import LowerOptions, lower
from tilec.lower.machine_copies import chunks
from tilec.plan import PlannerOptions

BF16 = ml_dtypes.bfloat16
WIDE = {"BM": 128, "BN": 128, "BK": 64}
"""bf16 tiles whose operands are 8 chunks of 8 registers each over 128 threads."""
MASKED = {"BM": 32, "BN": 32, "BK": 24}
"""f32 tiles of 768 elements over 128 threads: a full chunk and a partial one each."""
SETTINGS = (None, 1, 3, 16)

needs_simulator = pytest.mark.skipif(SIMULATOR_MISSING is not None,
                                     reason=SIMULATOR_MISSING or "")


def _options(batch: int | None, threads: int | None = 128, **kw) -> LowerOptions:
    o = LowerOptions(**kw)
    return replace(o, planner=replace(o.planner, max_copy_batch=batch, threads=threads))


def _args(m: int, n: int, k: int, dt, seed: int = 0) -> list[np.ndarray]:
    r = np.random.default_rng(seed)
    return [r.standard_normal((m, k)).astype(dt), r.standard_normal((k, n)).astype(dt),
            np.zeros((m, n), np.float32)]


def _lowered(tiles, dt, target, options, shape=(200, 200, 150)):
    module = tc.compile(matmul, *_args(*shape, dt), target="reference", **tiles).module
    return lower(module, target, options)


def _root(v: ir.Value) -> ir.Value:
    while v.defining_op is not None and v.defining_op.name == "view":
        v = v.defining_op.operand(0)
    return v


def _first_issue(machine: ir.Module) -> list[str]:
    """The prologue's first issue: ``L<array>:<registers>`` per load of a kernel argument,
    ``S<array>:<registers>`` per ring store (named by the array the stored load read)."""
    fn = next(iter(machine))
    first = next(op for op in fn.walk() if op.name == "if" and any(
        o.name == "store" for o in op.walk(include_self=False)))
    out = []
    for op in first.walk(include_self=False):
        if op.name == "load" and _root(op.operand(0)).type.space == "global":
            out.append(f"L{_root(op.operand(0)).name_hint}:{op.result.type.shape[0]}")
        elif op.name == "store":
            ld = op.operand(1).defining_op
            assert ld is not None and ld.name == "load"  # a store writes a loaded chunk
            out.append(f"S{_root(ld.operand(0)).name_hint}:{op.operand(1).type.shape[0]}")
    return out


def _expected(sizes: dict[str, tuple[int, int]], batch: int | None) -> list[str]:
    """The sequence ``batch`` gives copies of (chunks, registers per chunk), in order."""
    if batch is None:
        return [f"{k}{a}:{n * w}" for a, (n, w) in sizes.items() for k in "LS"]
    seq = [(a, w) for a, (n, w) in sizes.items() for _ in range(n)]
    out = []
    for i in range(0, len(seq), batch):
        group = seq[i:i + batch]
        out += [f"L{a}:{w}" for a, w in group] + [f"S{a}:{w}" for a, w in group]
    return out


# --------------------------------------------------------------- what each setting changes


def test_the_option_is_checked() -> None:
    assert PlannerOptions().max_copy_batch is None
    for bad in (0, 17, True, 2.0):
        with pytest.raises(ValueError, match="max_copy_batch"):
            PlannerOptions(max_copy_batch=bad)


@pytest.mark.parametrize("batch", [None, *range(1, 17)])
def test_each_setting_orders_the_chunks_of_an_issue(batch) -> None:
    # every operand is copied synchronously (no cp.async): 8 chunks of A then 8 of B
    res = _lowered(WIDE, BF16, "cuda:sm_80", _options(batch, async_copies=False))
    assert res.machine is not None
    got = _first_issue(res.machine)
    assert got == _expected({"A": (8, 8), "B": (8, 8)}, batch)
    realized = 8 if batch is None else batch
    assert res.resources[0]["copy_batch"] == {"requested": batch, "realized": realized}


def test_the_default_is_the_earlier_sequence() -> None:
    # each copy's whole share, then the next copy: one load and one store per operand
    res = _lowered(WIDE, BF16, "cuda:sm_80", _options(None, async_copies=False))
    assert res.machine is not None
    assert _first_issue(res.machine) == ["LA:64", "SA:64", "LB:64", "SB:64"]


def test_partial_chunks_are_copied_alone_after_the_batches() -> None:
    res = _lowered(MASKED, np.float32, "metal:m1", _options(4), shape=(70, 60, 50))
    assert res.machine is not None
    lay = next(ly for ly in (op.attr("layout") for op in res.scheduled.walk()
                             if op.name == "load" and op.attr("layout") is not None)
               if ly.shape == (32, 24))
    assert [full for _, _, full in chunks(lay)] == [True, False]
    assert _first_issue(res.machine) == ["LA:4", "LB:4", "SA:4", "SB:4",
                                         "LA:4", "SA:4", "LB:4", "SB:4"]
    assert res.resources[0]["copy_batch"] == {"requested": 4, "realized": 2}


def test_the_alignment_fallback_batches_within_its_copy() -> None:
    # K = 150 rows of bf16 are not 16-byte aligned: the cp.async guard's else branch
    # copies each operand synchronously, alone (its own guarded branch)
    res = _lowered(WIDE, BF16, "cuda:sm_80", _options(3))
    assert res.machine is not None
    branches = [op for op in next(iter(res.machine)).walk() if op.name == "if"
                and op.attr("guard") == "16-byte aligned rows and column origin (cp.async)"]
    assert branches
    other = branches[0].regions[1].entry.operations
    kinds = "".join("L" if op.name == "load" else "S" for op in other
                    if op.name in ("load", "store"))
    assert kinds == "LLLSSS" "LLLSSS" "LLSS"
    assert res.resources[0]["copy_batch"] == {"requested": 3, "realized": 3}


def test_the_report_says_when_nothing_was_batched() -> None:
    x = np.random.default_rng(1).standard_normal((64, 100)).astype(np.float32)
    module = tc.compile(softmax, x, np.zeros_like(x), target="reference").module
    assert "copy_batch" not in lower(module, "metal:m1").resources[0]
    got = lower(module, "metal:m1", _options(8, threads=None)).resources[0]
    assert got["copy_batch"] == {"requested": 8, "realized": 0}


# ----------------------------------------------------------------------- differential


@needs_simulator
@pytest.mark.parametrize("batch", SETTINGS)
@pytest.mark.parametrize("target,shape,tiles,dt,kw", [
    ("metal:m1", (70, 60, 50), MASKED, np.float32, {}),
    ("metal:m1", (33, 47, 29), {"BM": 32, "BN": 32, "BK": 32}, np.float32, {}),
    ("cuda:sm_80", (100, 72, 40), {"BM": 64, "BN": 64, "BK": 32}, BF16,
     {"async_copies": False}),
    ("cuda:sm_80", (100, 70, 50), {"BM": 64, "BN": 64, "BK": 32}, BF16, {}),
    ("cuda:sm_90", (130, 70, 72), {"BM": 64, "BN": 64, "BK": 64}, BF16, {}),
], ids=["metal_masked", "metal_ragged", "sm80_sync", "sm80_fallback", "sm90_fallback"])
def test_batched_copies_match_the_reference(target, shape, tiles, dt, kw, batch) -> None:
    args = _args(*shape, dt, seed=sum(shape))
    res = differential(matmul, args, [2], target, tiles, options=_options(batch, None, **kw),
                       rtol=1e-2, atol=1e-2)
    assert res.resources[0]["copy_batch"]["requested"] == batch


def _want(args: list[np.ndarray]) -> np.ndarray:
    """The reference interpreter's product of ``MASKED`` tiles (output poisoned first)."""
    want = poisoned(args, [2])
    ref = tc.compile(matmul, *args, target="reference", **MASKED)
    reference(ref.module, ref.fn_name, want)
    return want[2]


@needs_simulator
@pytest.mark.parametrize("batch", [2, 16])
def test_a_variant_reaches_the_simulated_target(batch) -> None:
    args = _args(70, 60, 50, np.float32, seed=3)
    want = _want(args)
    got = poisoned(args, [2])
    kern = tc.compile(matmul, *got, target="simt:metal:m1", variant={"max_copy_batch": batch},
                      **MASKED)
    kern(*got)
    np.testing.assert_allclose(got[2], want, rtol=1e-4, atol=1e-4)


def test_the_cpu_target_has_no_staged_copies() -> None:
    # cpu lowers no group to Machine IR (its pipeline is plan, emit, build): the variant is
    # accepted and the C it runs is the same, with the reference's results
    args = _args(70, 60, 50, np.float32, seed=5)
    want = _want(args)
    sources = set()
    for batch in (None, 1, 8):
        got = poisoned(args, [2])
        variant = {} if batch is None else {"max_copy_batch": batch}
        kern = tc.compile(matmul, *got, target="cpu", variant=variant, **MASKED)
        kern(*got)
        np.testing.assert_allclose(got[2], want, rtol=1e-4, atol=1e-4)
        sources.add(kern.executable().source)
    assert len(sources) == 1
