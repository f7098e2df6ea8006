"""``atomic_xchg`` / ``atomic_cas`` on the GPU: the order-independent facts of the reference.

The GPU side of ``tests/regression/test_atomic_exchange.py``: many instances claim the same
slots, exchange into the same elements and push onto one list head concurrently, so the
checks look only at what every order gives (one winner per slot, every value kept once,
one chain); the single-instance kernels are compared with the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_atomic_exchange import bits, broadcast, cas_at, claim, edge, halve_if, push, swap_in

import tilec as tc
from paths import poisoned, to_device, to_host

pytestmark = pytest.mark.usefixtures("torch_cuda")

TARGETS = ["cuda:sm_90", "cuda:sm_80"]
MANY = 256
"""Instances that meet on the same elements."""


def _run(torch_cuda: Any, target: str, kernel: Any, args: list[Any], outs: list[int],
         **constexprs: Any) -> list[np.ndarray]:
    """Run ``kernel`` on copies of ``args`` on the device (in-out arrays keep their contents;
    pure outputs start as the tests' sentinels) and return arguments ``outs``."""
    dev = [to_device(torch_cuda, a) if isinstance(a, np.ndarray) else a for a in args]
    tc.compile(kernel, *dev, target=target, **constexprs)(*dev)
    return [to_host(torch_cuda, dev[k]) for k in outs]


@pytest.mark.parametrize("target", TARGETS)
def test_claim_has_one_winner_per_slot(torch_cuda: Any, target: str) -> None:
    slots, old = _run(torch_cuda, target, claim,
                      [np.full(8, -1, np.int32), poisoned(MANY, 8, dtype=np.int32)], [0, 1])
    for s in range(8):
        winners = np.flatnonzero(old[:, s] == -1)
        assert winners.tolist() == [slots[s]], (s, slots[s])
        assert (np.delete(old[:, s], winners) == slots[s]).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("npdt", [np.int32, np.float32, np.int64, np.float64, np.uint32],
                         ids=lambda d: np.dtype(d).name)
def test_exchange_keeps_every_value_once(torch_cuda: Any, target: str, npdt: Any) -> None:
    init = (np.arange(8) * 3 - 5).astype(npdt)
    x, old = _run(torch_cuda, target, swap_in, [init.copy(), poisoned(MANY, 8, dtype=npdt)], [0, 1])
    for s in range(8):
        put = [100 * (p + 1) + s for p in range(MANY)]
        assert sorted([*old[:, s].tolist(), x[s]]) == sorted([init[s], *put]), s


@pytest.mark.parametrize("target", TARGETS)
def test_push_links_one_chain(torch_cuda: Any, target: str) -> None:
    head, nxt = _run(torch_cuda, target, push,
                     [np.full(1, -1, np.int32), poisoned(MANY, dtype=np.int32)], [0, 1])
    seen, at = [], int(head[0])
    while at != -1 and len(seen) <= MANY:
        seen.append(at)
        at = int(nxt[at])
    assert sorted(seen) == list(range(MANY))


@pytest.mark.parametrize("target", TARGETS)
def test_single_instance_kernels_match_the_reference(torch_cuda: Any, target: str) -> None:
    nan = np.array(0x7FC00123, np.uint32).view(np.float32)
    cases = [
        (edge, [np.array([0, 1, 7, 3, 4, 5, 6, 7, 8, 5], np.int32),
                poisoned(8, dtype=np.int32), poisoned(8, dtype=np.int32), 4], [0, 1, 2]),
        (broadcast, [np.random.default_rng(3).integers(0, 3, (4, 8)).astype(np.float32),
                     np.random.default_rng(4).integers(0, 3, (1, 8)).astype(np.float32),
                     poisoned(4, 8)], [0, 2]),
        (bits, [np.array([-0.0, 0.0, nan, 2.0], np.float32),
                np.array([0.0, -0.0, nan, 2.0], np.float32), poisoned(4)], [0, 2]),
        (halve_if, [np.array([0xFFFFFFFF, 0x80000000, 7, 0x80000001], np.uint32),
                    np.array([0xFFFFFFFF, 0, 7, 0x80000001], np.uint32),
                    poisoned(4, dtype=np.uint32)], [0, 2]),
        # several instances, each on its own elements: one result in every order
        (cas_at, [np.array([0, 1, 2, 3, 40, 5, 6, 7, 8, 90, 10, 11, 12, 13], np.int32),
                  np.array([8, 12, 2 ** 32 - 2, 1_000_000, 3], np.uint32),
                  poisoned(5, 4, dtype=np.int32)], [0, 2]),
    ]
    for kernel, args, outs in cases:
        ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        tc.interpret(kernel, *ref)
        got = _run(torch_cuda, target, kernel, args, outs)
        for g, k in zip(got, outs):
            np.testing.assert_array_equal(g.view(np.uint8), ref[k].view(np.uint8))
