"""Issue: on cpu, a snapshot taken in stage 0 of ``tc.pipeline`` returned the final value.

``old = acc`` in the first stage makes that stage yield one value (the carried
array) as two stage arguments. The C emitter handed both arguments the carried
array as *owned* storage, and each had a single use, so the ``mma`` of the next
stage accumulated into that array in place and ``old`` read the new sum. A stage
argument now owns its array only when no other argument of the same stage names
it. The neighbours swept here: three stages, several carried values updated by
``map``, a second name for a loaded tile, and the same snapshot in ``serial`` and
under an ``if``; every result is checked against numpy and the reference
interpreter (and against the SIMT simulators, where the kernel lowers).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilec as tc
from tilec.targets.cpu.backend import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no C compiler: {probe()}")

SIMULATED = ["cuda:sm_90", "cuda:sm_80", "metal:m1"]


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


def _run(kernel, target: str, inputs: tuple, outputs: tuple) -> tuple:
    """Run ``kernel`` on ``target`` with NaN-poisoned copies of ``outputs``; returns them."""
    outs = tuple(np.full(o.shape, np.nan, o.dtype) for o in outputs)
    args = (*inputs, *outs)
    if target == "reference":
        tc.interpret(kernel, *args)
    elif target == "cpu":
        tc.compile(kernel, *args, target="cpu")(*args)
    else:
        tc.simulate(kernel, *args, target=target)
    return outs


def _check(kernel, inputs: tuple, want: tuple, targets: list[str]) -> None:
    ref = _run(kernel, "reference", inputs, want)
    for got, w in zip(ref, want):
        np.testing.assert_array_equal(got, w, err_msg="reference")
    for target in targets:
        for got, w in zip(_run(kernel, target, inputs, want), want):
            np.testing.assert_array_equal(got, w, err_msg=target)


@tc.kernel
def issue_snapshot(A, B, S, C):
    for _p in tc.parallel(1):
        acc = tc.zeros((1, 1), tc.float32)
        for _k in tc.pipeline(1, stages=2):
            old = acc
            a = A.tile((0, 0), (1, 1)).load()
            b = B.tile((0, 0), (1, 1)).load()
            tc.stage("compute")
            acc = tc.mma(a, b, acc)
            S.tile((0, 0), (1, 1)).store(old)
        C.tile((0, 0), (1, 1)).store(acc)


def test_the_issue_case() -> None:
    a = np.array([[2.0]], np.float32)
    b = np.array([[3.0]], np.float32)
    _check(issue_snapshot, (a, b), (np.zeros((1, 1), np.float32), a @ b), ["cpu", *SIMULATED])


@tc.kernel
def three_stage_snapshot(A, B, S, C, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = tc.zeros((2, 2), tc.float32)
        for k in tc.pipeline(K, stages=3):
            old = acc
            a = A.tile((0, k * 2), (2, 2)).load()
            b = B.tile((k * 2, 0), (2, 2)).load()
            tc.stage("compute")
            acc = tc.mma(a, b, acc)
            tc.stage("store")
            S.tile((k * 2, 0), (2, 2)).store(old)
        C.tile((0, 0), (2, 2)).store(acc)


def _blocks() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (2, 6)).astype(np.float32)
    b = rng.integers(-3, 4, (6, 2)).astype(np.float32)
    partial = [np.zeros((2, 2), np.float32)]
    for k in range(3):
        partial.append(partial[-1] + a[:, 2 * k:2 * k + 2] @ b[2 * k:2 * k + 2])
    return a, b, partial


def test_snapshot_read_two_stages_later() -> None:
    a, b, partial = _blocks()
    _check(three_stage_snapshot, (a, b), (np.concatenate(partial[:3]), partial[3]),
           ["cpu", *SIMULATED])


@tc.kernel
def map_snapshots(A, S, C, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = tc.zeros((2, 2), tc.float32)
        cnt = tc.ones((2, 2), tc.float32)
        for k in tc.pipeline(K, stages=2):
            old = acc
            old_cnt = cnt
            a = A.tile((0, k * 2), (2, 2)).load()
            tc.stage("compute")
            acc = acc + a
            cnt = cnt * 2.0
            S.tile((k * 2, 0), (2, 2)).store(old * 100.0 + old_cnt)
        C.tile((0, 0), (2, 2)).store(acc * 100.0 + cnt)


def test_snapshots_of_several_carried_values() -> None:
    a, _, _ = _blocks()
    accs = [np.zeros((2, 2), np.float32)]
    for k in range(3):
        accs.append(accs[-1] + a[:, 2 * k:2 * k + 2])
    rows = [accs[k] * 100 + 2.0 ** k for k in range(3)]
    _check(map_snapshots, (a,), (np.concatenate(rows), accs[3] * 100 + 8.0),
           ["cpu", *SIMULATED])


@tc.kernel
def loaded_alias(A, C, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = tc.zeros((2, 2), tc.float32)
        for k in tc.pipeline(K, stages=2):
            a = A.tile((0, k * 2), (2, 2)).load()
            first = a
            tc.stage("compute")
            a = a * 3.0
            acc = acc + a + first
        C.tile((0, 0), (2, 2)).store(acc)


def test_second_name_for_a_stage_value() -> None:
    a, _, _ = _blocks()
    want = 4 * (a[:, 0:2] + a[:, 2:4] + a[:, 4:6])
    _check(loaded_alias, (a,), (want,), ["cpu", *SIMULATED])


@tc.kernel
def serial_snapshot(A, B, S, C, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = tc.zeros((2, 2), tc.float32)
        for k in tc.serial(K):
            old = acc
            a = A.tile((0, k * 2), (2, 2))
            b = B.tile((k * 2, 0), (2, 2))
            acc = tc.mma(a, b, acc)
            S.tile((k * 2, 0), (2, 2)).store(old)
        C.tile((0, 0), (2, 2)).store(acc)


@tc.kernel
def guarded_snapshot(A, B, S, C, K: tc.constexpr = 3):
    for _p in tc.parallel(1):
        acc = tc.zeros((2, 2), tc.float32)
        for k in tc.pipeline(K, stages=2):
            old = acc
            a = A.tile((0, k * 2), (2, 2)).load()
            b = B.tile((k * 2, 0), (2, 2)).load()
            tc.stage("compute")
            if k >= 0:
                acc = tc.mma(a, b, acc)
            S.tile((k * 2, 0), (2, 2)).store(old)
        C.tile((0, 0), (2, 2)).store(acc)


@pytest.mark.parametrize("kernel", [serial_snapshot, guarded_snapshot],
                         ids=["serial", "if"])
def test_snapshot_in_other_regions(kernel) -> None:
    a, b, partial = _blocks()
    _check(kernel, (a, b), (np.concatenate(partial[:3]), partial[3]), ["cpu", *SIMULATED])


@tc.kernel
def ancestor_snapshot(A, S, C):
    for _p in tc.parallel(1):
        acc = tc.zeros((4, 2), tc.float32)
        old = acc
        for i in tc.parallel(2, level="group"):
            acc[i * 2:(i + 1) * 2, 0:2] = A.tile((0, i * 2), (2, 2))
        S.tile((0, 0), (4, 2)).store(old + 1.0)
        C.tile((0, 0), (4, 2)).store(acc)


def test_snapshot_before_an_ancestor_update() -> None:
    a, _, _ = _blocks()
    want = np.concatenate([a[:, 0:2], a[:, 2:4]])
    _check(ancestor_snapshot, (a,), (np.ones((4, 2), np.float32), want), ["cpu", *SIMULATED])
