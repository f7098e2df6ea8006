"""Small kernels, one per DSL construct, whose printed IR is kept as a golden file.

``GOLDENS`` maps a golden name to ``(kernel, example args, constexprs)``;
``tests/filecheck/frontend/<name>.tir`` holds the expected ``compiled.ir``.
"""

from __future__ import annotations

import numpy as np

import tilec as tc

F32 = tc.array((None, None), tc.float32)
V32 = tc.array((None,), tc.float32)


@tc.kernel
def matmul(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def mma_policies(A, B, C):
    for _p in tc.parallel(1):
        a = A.tile((0, 0), (16, 8), fill=0.0)
        b = B.tile((0, 0), (8, 16), fill=0.0)
        c = tc.mma(a, b, tc.zeros((16, 16)), precision="tf32")
        c = tc.mma(a, b, c, order="strict_fold")
        C.tile((0, 0), (16, 16)).store(c + a @ b)


@tc.kernel
def elementwise(X, Y, alpha):
    for p in tc.parallel(tc.cdiv(X.shape[0], 8)):
        x = X.tile((p * 8,), (8,), fill=0.0)
        y = tc.exp(x * alpha - 1.0) + tc.sigmoid(x) * tc.rsqrt(tc.abs(x) + 1.0)
        z = tc.where(x > 0.0, y, tc.maximum(x, -2.0))
        Y.tile((p * 8,), (8,)).store(z.to(tc.float16))


@tc.kernel
def views(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8), fill=0.0)
        row = tc.sum(x, axis=1)
        t = x.T
        r = x.reshape(8, 4)
        s = x[1:3, ::2]
        Y.tile((0, 0), (8, 4)).store(t + r + row[None, :])
        Y.tile((0, 0), (2, 4)).store(s - tc.broadcast(row[0:2], (4, 2)).T)


@tc.kernel
def reductions(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8), fill=0.0)
        a = tc.sum(x, axis=1)
        b = tc.max(x, axis=-1)
        c = tc.min(x, axis=(0, 1))
        d = tc.sum(x, 1, policy="strict_fold")
        e = tc.reduce(x, 1, 1.0, lambda s, v: s * v)
        f = tc.reduce(x, 1, 0.0, lambda s, v: s * 0.5 + v, policy="strict_fold")
        Y.tile((0,), (4,)).store(a + b + c + d + e + f)


@tc.kernel
def reduction_loop(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8), fill=0.0)
        total = 0.0
        sq = 0.0
        big = float("-inf")
        for e in tc.reduction(x, axis=1):
            total = total + e
            sq = sq + e * e
            big = tc.maximum(big, e)
        Y.tile((0,), (4,)).store(total + sq + big)


@tc.kernel
def if_else(X, Y, n):
    for _p in tc.parallel(1):
        x = X.tile((0,), (8,), fill=0.0)
        scale = 1.0
        if n > 4:
            x = x * 2.0
            scale = 0.5
        else:
            scale = 3.0
        if n == 0:
            Y.tile((0,), (8,)).store(x)
        Y.tile((8,), (8,)).store(x * scale)


@tc.kernel
def break_continue(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((8,))
        for i in range(n):
            if i == 5:
                break
            if i % 2 == 1:
                continue
            acc = acc + X.tile((i * 8,), (8,), fill=0.0)
        Y.tile((0,), (8,)).store(acc)


@tc.kernel
def pipeline(A, B, C, BM: tc.constexpr = 16, BK: tc.constexpr = 8):
    M, K = A.shape
    for pm in tc.parallel(tc.cdiv(M, BM), threads=128):
        acc = tc.zeros((BM, BM))
        for k in tc.pipeline(tc.cdiv(K, BK), stages=3, window=2):
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0).load()
            b = B.tile((k * BK, 0), (BK, BM), fill=0.0).load()
            tc.stage("convert")
            bt = b * 1.0
            tc.stage("compute")
            acc = tc.mma(a, bt, acc)
        C.tile((pm * BM, 0), (BM, BM)).store(acc)


@tc.kernel
def ancestor_update(X, Y):
    for p in tc.parallel(tc.cdiv(X.shape[0], 16)):
        acc = tc.zeros((16, 8))
        old = acc
        for i in tc.parallel(2, level="group"):
            frag = X.tile((p * 16 + i * 8, 0), (8, 4), fill=0.0)
            acc[i * 8:(i + 1) * 8, 0:4] = frag * 2.0
        Y.tile((p * 16, 0), (16, 8)).store(acc + old)


@tc.kernel
def update_call(X, Y):
    for _p in tc.parallel(1):
        acc = X.tile((0, 0), (8, 8), fill=0.0)
        for i in tc.parallel(4, level="group"):
            acc = tc.update(acc, (i * 2, 0), tc.ones((2, 8)))
        Y.tile((0, 0), (8, 8)).store(acc)


@tc.kernel
def memory_atomic(X, Y, S):
    for p in tc.parallel(tc.cdiv(X.shape[0], 8)):
        buf = tc.memory((8,), tc.float32)
        buf.store(X.tile((p * 8,), (8,), fill=0.0))
        x = buf.tile((0,), (8,)).load()
        Y.tile((p * 8,), (8,)).atomic_add(x)
        tc.atomic_max(S.tile((0,), (1,)), tc.max(x, axis=0, keepdims=True))


@tc.kernel
def static_and_func(X, Y, N: tc.constexpr = 3, MODE: tc.constexpr = "square"):
    for _p in tc.parallel(1):
        x = X.tile((0,), (4,), fill=0.0)
        acc = tc.zeros((4,))
        for j in tc.static_range(N):
            acc = acc + x * float(j)
        if MODE == "square":
            acc = square(acc)
        Y.tile((0,), (4,)).store(acc)


@tc.func
def square(t):
    return t * t


@tc.kernel
def einsum(A, B, C):
    for _p in tc.parallel(1):
        a = A.tile((0, 0), (4, 3), fill=0.0)
        b = B.tile((0, 0), (3, 5), fill=0.0)
        C.tile((0, 0), (4, 5)).store(tc.einsum("ik,kj->ij", a, b))


@tc.kernel
def static_shapes(A, B):
    M, N = A.shape
    for p in tc.parallel(M // 4):
        B.tile((p * 4, 0), (4, N)).store(A.tile((p * 4, 0), (4, N)))


@tc.kernel
def snapshots(X, Y, n):
    for _p in tc.parallel(1):
        t = X.tile((0,), (4,), fill=0.0)
        s = 0.0
        t0 = t
        s0 = s
        for _i in range(n):
            old = t
            t = t + 1.0
            s = s + 1.0
            keep = old  # noqa: F841  (a snapshot taken inside the loop)
        Y.tile((0,), (4,)).store(t + t0 + s + s0)


@tc.kernel
def nested_pipelines(A, Y):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        for i in tc.pipeline(3):
            row = A.tile((i, 0), (1, 4), fill=0.0).reshape(4)
            tc.stage()
            inner = row
            for _j in tc.pipeline(2):
                inner = inner + 1.0
                tc.stage()
                inner = inner * 2.0
            acc = acc + inner
        Y.tile((0,), (4,)).store(acc)


@tc.kernel
def seed_partial_update(A, B, C, BK: tc.constexpr = 4):
    """The seed's sketch: each sub-instance pipelines an mma into its own slice of acc."""
    K = A.shape[1]
    for _p in tc.parallel(1):
        acc = tc.zeros((16, 8))
        for i in tc.parallel(2, level="group"):
            frag = acc[i * 8:(i + 1) * 8, :]
            for k in tc.pipeline(tc.cdiv(K, BK), stages=2):
                a = A.tile((i * 8, k * BK), (8, BK), fill=0.0).load()
                b = B.tile((k * BK, 0), (BK, 8), fill=0.0).load()
                tc.stage()
                frag = tc.mma(a, b, frag)
            acc[i * 8:(i + 1) * 8, :] = frag
        C.tile((0, 0), (16, 8)).store(acc)


_X = np.zeros((16, 16), np.float32)

@tc.kernel
def runtime_assert(X, Y, n, BM: tc.constexpr = 8):
    M = X.shape[0]
    assert Y.shape[0] == M, "Y must have X's length"
    assert BM % 8 == 0
    for p in tc.parallel(tc.cdiv(M, BM)):
        assert 0 < p * BM + n <= M
        for k in tc.serial(2):
            assert k < n
            Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0))


@tc.kernel
def memory_exchange(X, Y):
    for p in tc.parallel(tc.cdiv(X.shape[0], 8)):
        old = X.tile((p * 8,), (8,), fill=-1.0).atomic_xchg(2.0)
        tc.atomic_cas(Y.tile((0,), (8,)), old, p)


GOLDENS = {
    "matmul": (matmul, (F32, F32, F32), {}),
    "runtime_assert": (runtime_assert, (V32, V32, tc.int32), {}),
    "mma_policies": (mma_policies, (F32, F32, F32), {}),
    "elementwise": (elementwise, (V32, tc.array((None,), tc.float16), tc.float32), {}),
    "views": (views, (F32, F32), {}),
    "reductions": (reductions, (F32, V32), {}),
    "reduction_loop": (reduction_loop, (F32, V32), {}),
    "if_else": (if_else, (V32, V32, tc.int32), {}),
    "break_continue": (break_continue, (V32, V32, tc.int32), {}),
    "pipeline": (pipeline, (F32, F32, F32), {}),
    "ancestor_update": (ancestor_update, (F32, F32), {}),
    "update_call": (update_call, (F32, F32), {}),
    "memory_atomic": (memory_atomic, (V32, V32, V32), {}),
    "memory_exchange": (memory_exchange, (V32, V32), {}),
    "static_and_func": (static_and_func, (V32, V32), {"N": 3}),
    "einsum": (einsum, (F32, F32, F32), {}),
    "static_shapes": (static_shapes, (tc.array((8, 16), tc.float32),
                                      tc.array((8, 16), tc.float32)), {}),
    "snapshots": (snapshots, (V32, V32, tc.int32), {}),
    "nested_pipelines": (nested_pipelines, (F32, V32), {}),
    "seed_partial_update": (seed_partial_update, (F32, F32, F32), {}),
}
