"""TF32 products in clusters whose groups multicast their shared operand: the consumers'
generic loads of a multicast version are ordered before the peer producer's refill.

CPU fuzz campaign seed 20261221 (``--features matrix=4,gemm=4,bias_epilogue=2``, programs
366 and 543 on ``simt:cuda:sm_90+ws+cluster+persistent:4``): the simulator reported a race
between a consumer thread's load of its A fragment (the TF32 instruction takes A from
registers, ``lower/machine_matrix._fragments_from``) and the tensor copy by which the other
group's producer refilled that version. The protocol orders them: the loads feed the
warpgroup's instruction, whose retirement orders its issuing threads before the first
thread's wait, and that thread's release on the peer's barrier precedes the refill. The
simulator carried that transitive order for arrivals of the group's own threads but not for
a peer's (``simt_mbarrier.Mbarriers._arrive``); it now carries both."""

from __future__ import annotations

import numpy as np

import tilec as tc
from tilec.targets import numerics as nx


@tc.kernel
def bias_relu_tf32(X0, X1, X2, Y0):
    for p0, p1 in tc.parallel(tc.cdiv(Y0.shape[0], 128), tc.cdiv(Y0.shape[1], 64)):
        acc = tc.full((128, 64), 0.5, tc.float32)
        for k in tc.serial(tc.cdiv(X0.shape[1], 64)):
            acc = tc.mma(X0.tile((p0 * 128, 0), (128, 64), fill=0.0),
                         X1.tile((k * 64, p1 * 64), (64, 64), fill=0.0), acc,
                         precision="tf32")
        Y0.tile((p0 * 128, p1 * 64), (128, 64)).store(
            tc.maximum(acc + X2.tile((p1 * 64,), (64,), fill=0.0)[None, :], 0.0))


def test_multicast_tf32_operand_is_released_before_the_peer_refills_it() -> None:
    rng = np.random.default_rng(366)
    x0 = rng.standard_normal((256, 192)).astype(np.float32)
    x1 = rng.standard_normal((192, 256)).astype(np.float32)
    x2 = rng.standard_normal(256).astype(np.float32)
    # the swapped product's shared operand is X0's tile, which the hardware (and the
    # simulator) reads truncated to TF32; truncated beforehand, the results are bit-identical
    # (tests/regression/test_tf32_wgmma.py)
    x0 = nx.tf32_truncate(x0)
    ref = np.full((256, 256), np.nan, np.float32)
    tc.interpret(bias_relu_tf32, x0, x1, x2, ref)
    got = np.full((256, 256), np.nan, np.float32)
    variant = {"warp_specialized": True, "cluster": 2, "persistent": 4}
    compiled = tc.compile(bias_relu_tf32, x0, x1, x2, got, target="simt:cuda:sm_90",
                          variant=variant)
    text = str(compiled.after("schedule"))
    assert "multicast" in text or "cluster" in text, text[:2000]
    tc.simulate(bias_relu_tf32, x0, x1, x2, got, target="cuda:sm_90", variant=variant)
    np.testing.assert_array_equal(got, ref)
