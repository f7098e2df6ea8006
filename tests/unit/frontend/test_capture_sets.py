"""The capture set algebra (seed 001, "Capture algorithm") and the cases the seed lists.

Three layers: the data-flow facts of ``scopes.FunctionSets`` on small ASTs;
the structure capture builds from them (which locals become block arguments,
loop results, ``if`` results, parallel inits, reduction states); and, where
the reference interpreter is importable, running the kernels against plain
Python/numpy for zero, one and many iterations, snapshots, conditional
assignment, early exit, nested pipelines and partial ancestor updates.
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.frontend.scopes import (
    FunctionSets,
    ancestor_update,
    loop_carried,
    reduction_state,
    region_result,
)

try:
    import tilec.targets.reference.backend  # noqa: F401

    HAVE_REFERENCE = True
except ImportError:  # pragma: no cover - depends on the checkout
    HAVE_REFERENCE = False

needs_reference = pytest.mark.skipif(not HAVE_REFERENCE,
                                     reason="the reference backend is not importable")

V = tc.array((None,), tc.float32)
M2 = tc.array((None, None), tc.float32)


def _sets(src: str) -> tuple[FunctionSets, ast.FunctionDef]:
    fn = ast.parse(textwrap.dedent(src)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return FunctionSets(fn), fn


def _loop(fn: ast.FunctionDef, index: int = 0) -> ast.For:
    return [n for n in ast.walk(fn) if isinstance(n, ast.For)][index]


# ------------------------------------------------------------------- data-flow facts


def test_written_is_ordered_and_sees_partial_targets_and_loop_targets():
    sets, fn = _sets("""
        def f(a):
            x = 1
            acc[0:2] = a
            for j in range(3):
                y, x = a, a
            z += 1
    """)
    assert sets.written(fn.body) == ["x", "acc", "j", "y", "z"]


def test_read_before_def_is_definite_assignment_not_textual_order():
    sets, fn = _sets("""
        def f(c, a):
            if c:
                x = a
            else:
                x = 2
            y = x
            if c:
                z = 1
            w = z
            t = t + 1
    """)
    rbd = sets.read_before_def(fn.body)
    assert "x" not in rbd            # assigned on both paths before the read
    assert "z" in rbd                # assigned on one path only
    assert "t" in rbd                # read before its own assignment
    assert rbd["z"].lineno == 10     # the first offending read is recorded


def test_read_before_def_treats_exits_as_unreachable_rest():
    sets, fn = _sets("""
        def f(c, n):
            for i in range(n):
                if c:
                    x = 1
                else:
                    break
                y = x
    """)
    loop = _loop(fn)
    rbd = sets.read_before_def(loop.body, defined=["i"])
    assert "x" not in rbd            # the else path left the loop
    assert sets.written(loop.body) == ["x", sets.exit_flags(loop)[0], "y"]


def test_liveness_follows_loop_back_edges_and_exits():
    sets, fn = _sets("""
        def f(n, a):
            s = 0
            d = 0
            for i in range(n):
                t = s
                s = t + a
                d = a
            use(s)
    """)
    loop = _loop(fn)
    assert "s" in sets.live_after(loop)
    assert "d" not in sets.live_after(loop)
    # inside the body, s is live after "s = t + a": the next iteration reads it
    assert "s" in sets.live_after(loop.body[1])
    assert "t" not in sets.live_after(loop.body[1])


def test_set_algebra_functions():
    written = ["a", "b", "c", "d"]
    assert loop_carried({"d", "a", "z"}, written) == ["a", "d"]
    assert region_result(written, {"c", "b"}) == ["b", "c"]
    assert ancestor_update(written, ["d", "c", "q"]) == ["c", "d"]
    assert reduction_state(written, {"a"}) == ["a"]


# ------------------------------------------------------------- captured structure


def _ops(c: tc.Compiled, name: str) -> list[ir.Operation]:
    return [op for op in c.module.walk() if op.name == name]


@tc.kernel
def identity_kernel(X, Y, n):
    for _p in tc.parallel(1):
        a = X.tile((0,), (4,), fill=0.0).load()
        same = a
        for _i in range(n):
            old = a
            a = a + 1.0
            same = same * 2.0
            b = old
        Y.tile((0,), (4,)).store(a + b + same)


def test_old_alias_keeps_the_identity_at_that_point_and_shared_inits_stay_separate():
    with pytest.raises(tc.TileSyntaxError) as e:  # b may be unassigned after zero iterations
        tc.compile(identity_kernel, V, V, tc.int32)
    assert "loop may run zero times" in e.value.message
    assert e.value.lineno == identity_kernel.fn.__code__.co_firstlineno + 10


@tc.kernel
def identity_kernel2(X, Y, n):
    for _p in tc.parallel(1):
        a = X.tile((0,), (4,), fill=0.0).load()
        same = a
        b = a
        for _i in range(n):
            old = a
            a = a + 1.0
            same = same * 2.0
            b = old
        Y.tile((0,), (4,)).store(a + b + same)


def test_old_alias_yields_the_body_argument_not_the_initial_value():
    c = tc.compile(identity_kernel2, V, V, tc.int32)
    (loop,) = _ops(c, "serial")
    body = loop.regions[0].entry
    iv, a_in, same_in, b_in = body.args
    # a, same and b share one initial value but each is its own block argument
    assert loop.operand(3) is loop.operand(4) is loop.operand(5)
    y = body.terminator
    assert y.operand(2) is a_in       # b = old = a's definition at that point, not %initial
    assert y.operand(0) is not a_in and y.operand(1) is not same_in


@tc.kernel
def locals_only(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        total = 0.0
        for i in range(n):
            t = X.tile((i * 4,), (4,), fill=0.0).load()
            acc = acc + t
            total = total + 1.0
        Y.tile((0,), (4,)).store(acc)


def test_only_read_before_def_or_live_after_locals_are_carried():
    c = tc.compile(locals_only, V, V, tc.int32)
    (loop,) = _ops(c, "serial")
    names = [a.name_hint for a in loop.regions[0].entry.args[1:]]
    # t is defined before every read in the body and dead after: not carried;
    # total is a recurrence dead after the loop: still carried (seed: loop_carried)
    assert names == ["acc", "total"]


@tc.kernel
def result_only(X, Y, n):
    for _p in tc.parallel(1):
        last = tc.zeros((4,))
        for i in range(n):
            last = X.tile((i * 4,), (4,), fill=0.0).load()
        Y.tile((0,), (4,)).store(last)


def test_region_result_is_carried_even_without_a_read_inside():
    c = tc.compile(result_only, V, V, tc.int32)
    (loop,) = _ops(c, "serial")
    assert [a.name_hint for a in loop.regions[0].entry.args[1:]] == ["last"]
    assert len(loop.results) == 1


@tc.kernel
def cond_assign(X, Y, n):
    for _p in tc.parallel(1):
        if n > 0:
            y = X.tile((0,), (4,), fill=0.0).load()
            z = 1.0
        else:
            z = 2.0
        Y.tile((0,), (4,)).store(z + 0.0 * tc.zeros((4,)))
        Y.tile((4,), (4,)).store(y)


def test_conditional_assignment_is_an_error_at_the_use():
    with pytest.raises(tc.TileSyntaxError) as e:
        tc.compile(cond_assign, V, V, tc.int32)
    assert "y is not definitely assigned" in e.value.message
    assert "only on the then path" in e.value.message
    assert e.value.lineno == cond_assign.fn.__code__.co_firstlineno + 9


@tc.kernel
def cond_merge(X, Y, n):
    for _p in tc.parallel(1):
        z = 0.0
        if n > 0:
            z = 1.0
        Y.tile((0,), (4,)).store(tc.full((4,), z))


def test_if_results_are_the_written_and_live_locals():
    c = tc.compile(cond_merge, V, V, tc.int32)
    (op,) = _ops(c, "if")
    assert len(op.results) == 1 and op.results[0].type is ir.f32


@tc.kernel
def early_exit(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        for i in range(n):
            if i >= 3:
                break
            if i == 1:
                continue
            acc = acc + X.tile((i * 4,), (4,), fill=0.0).load()
        Y.tile((0,), (4,)).store(acc)


def test_early_exit_carries_a_broken_flag_and_guards_the_rest():
    c = tc.compile(early_exit, V, V, tc.int32)
    (loop,) = _ops(c, "serial")
    args = loop.regions[0].entry.args
    assert [a.type for a in args[1:]] == [ir.TileType((4,), ir.f32), ir.i1]
    first = loop.regions[0].entry.operations.first
    assert first.name == "arith" and first.attr("fn") == "not"   # guard on "not broken"
    assert len(_ops(c, "if")) >= 3


@tc.kernel
def ancestor(X, Y):
    for _p in tc.parallel(1):
        acc = X.tile((0, 0), (8, 6), fill=0.0).load()
        old = acc
        for i in tc.parallel(2, level="group"):
            acc[i * 4:(i + 1) * 4, 1:3] = acc[i * 4:(i + 1) * 4, 1:3] * 10.0
        Y.tile((0, 0), (8, 6)).store(acc)
        Y.tile((8, 0), (8, 6)).store(old)


def test_ancestor_update_is_an_init_with_an_entry_snapshot_and_one_located_patch():
    c = tc.compile(ancestor, M2, M2)
    outer, inner = _ops(c, "parallel")
    assert len(inner.operands) == 2 and len(inner.results) == 1
    block = inner.regions[0].entry
    assert block.args[1].type is ir.TileType((8, 6), ir.f32)   # the entry snapshot
    y = block.terminator
    assert y.attr("updates") == (2,)
    assert y.operand(0).type is ir.TileType((4, 2), ir.f32)    # the patch
    stores = _ops(c, "store")
    assert stores[0].operand(1) is inner.result                # acc after the nest
    assert stores[1].operand(1) is inner.operand(1)            # old snapshot unchanged


@tc.kernel
def red_loop(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (2, 5), fill=0.0).load()
        s = 0.0
        m = float("-inf")
        scratch = 0.0
        for e in tc.reduction(x, axis=1):
            t = e * 2.0
            s = s + t
            m = tc.maximum(m, e)
        Y.tile((0,), (2,)).store(s + m + scratch)


def test_reduction_state_is_written_inside_and_declared_outside():
    c = tc.compile(red_loop, M2, V)
    (op,) = _ops(c, "reduce")
    assert [r.name_hint for r in op.results] == ["s", "m"]        # not t, not scratch
    assert op.attr("combiner") == ("add", "max")                  # e * 2.0 is a lift
    assert op.attr("policy") is ir.ReductionPolicy("unordered_tree", False)


# ----------------------------------------------------------------- running them


def _run(kernel, *args, **cx):
    tc.interpret(kernel, *args, **cx)
    return args


@needs_reference
@pytest.mark.parametrize("n", [0, 1, 5])
def test_zero_one_many_iterations_with_scalar_and_tile_snapshots(n):
    from golden_kernels import snapshots

    x = np.arange(4, dtype=np.float32)
    y = np.full(4, np.nan, np.float32)
    _run(snapshots, x, y, n)
    np.testing.assert_allclose(y, (x + n) + x + n + 0.0)


@needs_reference
@pytest.mark.parametrize("n", [0, 1, 2, 3, 7])
def test_early_exit_matches_python(n):
    x = np.random.default_rng(1).standard_normal(32).astype(np.float32)
    y = np.full(4, np.nan, np.float32)
    _run(early_exit, x, y, n)
    want = np.zeros(4)
    for i in range(n):
        if i >= 3:
            break
        if i == 1:
            continue
        want = want + x[i * 4:i * 4 + 4]
    np.testing.assert_allclose(y, want, rtol=1e-6)


@needs_reference
@pytest.mark.parametrize("n", [0, 3])
def test_old_alias_runs_as_python(n):
    x = np.arange(4, dtype=np.float32)
    y = np.full(4, np.nan, np.float32)
    _run(identity_kernel2, x, y, n)
    a, same, b = x.copy(), x.copy(), x.copy()
    for _ in range(n):
        old = a
        a = a + 1
        same = same * 2
        b = old
    np.testing.assert_allclose(y, a + b + same)


@needs_reference
@pytest.mark.parametrize("n", [0, 4])
def test_conditional_merge_runs(n):
    y = np.full(4, np.nan, np.float32)
    _run(cond_merge, np.zeros(4, np.float32), y, n)
    assert (y == (1.0 if n > 0 else 0.0)).all()


@needs_reference
def test_nested_pipelines_run():
    from golden_kernels import nested_pipelines

    a = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    y = np.full(4, np.nan, np.float32)
    _run(nested_pipelines, a, y)
    want = np.zeros(4)
    for i in range(3):
        inner = a[i].astype(np.float64)
        for _ in range(2):
            inner = (inner + 1) * 2
        want = want + inner
    np.testing.assert_allclose(y, want, rtol=1e-6)


@needs_reference
def test_ancestor_partial_update_keeps_untouched_coordinates_and_old_snapshot():
    x = np.random.default_rng(3).standard_normal((8, 6)).astype(np.float32)
    y = np.full((16, 6), np.nan, np.float32)
    _run(ancestor, x, y)
    want = x.copy()
    want[:, 1:3] *= 10
    np.testing.assert_allclose(y[:8], want, rtol=1e-6)
    np.testing.assert_array_equal(y[8:], x)


@needs_reference
def test_reduction_loop_runs():
    x = np.random.default_rng(4).standard_normal((2, 5)).astype(np.float32)
    y = np.full(2, np.nan, np.float32)
    _run(red_loop, x, y)
    np.testing.assert_allclose(y, (2 * x).sum(1) + x.max(1), rtol=1e-5)


@tc.kernel
def strict_custom(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (3, 6), fill=0.0)
        h = tc.reduce(x, 1, 0.0, lambda s, v: s * 0.5 + v, policy="strict_fold")
        Y.tile((0,), (3,)).store(h)


@needs_reference
def test_strict_fold_custom_update_runs_in_source_order():
    x = np.random.default_rng(5).standard_normal((3, 6)).astype(np.float32)
    y = np.full(3, np.nan, np.float32)
    _run(strict_custom, x, y)
    want = np.zeros(3, np.float32)
    for j in range(6):
        want = want * np.float32(0.5) + x[:, j]
    np.testing.assert_array_equal(y, want)


@needs_reference
def test_pipelined_matmul_runs():
    from golden_kernels import pipeline

    rng = np.random.default_rng(6)
    a = rng.standard_normal((20, 19)).astype(np.float32)
    b = rng.standard_normal((19, 16)).astype(np.float32)
    c = np.full((20, 16), np.nan, np.float32)
    _run(pipeline, a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@needs_reference
def test_seed_partial_update_sketch_runs():
    from golden_kernels import seed_partial_update

    rng = np.random.default_rng(8)
    a = rng.standard_normal((16, 10)).astype(np.float32)
    b = rng.standard_normal((10, 8)).astype(np.float32)
    c = np.full((16, 8), np.nan, np.float32)
    _run(seed_partial_update, a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
