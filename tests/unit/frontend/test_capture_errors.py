"""Unsupported or wrong programs: a located ``TileSyntaxError``, no compiler frames.

Each case marks the offending line with ``# err`` and names the text the
error must point at; the test checks the message, the line, the column, the
file name, the caret snippet, and that the traceback holds no frame of the
capture machinery (only the public entry point the user called).
"""

from __future__ import annotations

import inspect
import traceback
from pathlib import Path

import numpy as np
import pytest

import tilec as tc

V = tc.array((None,), tc.float32)
M2 = tc.array((None, None), tc.float32)
H2 = tc.array((None, None), tc.float16)
TABLE = [1, 2, 3]


@tc.kernel
def unknown_builtin(X, Y):
    for p in tc.parallel(1):
        Y.tile((p,), (4,)).store(tc.expo(X.tile((0,), (4,))))  # err


@tc.kernel
def python_object(X, Y):
    for p in tc.parallel(1):
        Y.tile((p,), (4,)).store(X.tile((0,), (4,)) * TABLE[0])  # err


@tc.kernel
def use_before_assignment(X, Y):
    for p in tc.parallel(1):
        y = z + X.tile((p,), (4,))  # err  # noqa: F821
        z = 1.0  # noqa: F841
        Y.tile((0,), (4,)).store(y)


@tc.kernel
def conditional_definition(X, Y, n):
    for p in tc.parallel(1):
        if n > 2:
            t = X.tile((p,), (4,)).load()
        Y.tile((0,), (4,)).store(t)  # err


@tc.kernel
def mma_shapes(A, B, C):
    for _p in tc.parallel(1):
        a = A.tile((0, 0), (16, 8))
        b = B.tile((0, 0), (4, 16))
        C.tile((0, 0), (16, 16)).store(tc.mma(a, b, tc.zeros((16, 16))))  # err


@tc.kernel
def mma_dtype(A, B, C):
    for _p in tc.parallel(1):
        a = A.tile((0, 0), (16, 16))
        b = B.tile((0, 0), (16, 16))
        acc = tc.zeros((16, 16), tc.float16)
        C.tile((0, 0), (16, 16)).store(tc.mma(a, b, acc))  # err


@tc.kernel
def stage_in_if(A, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        for k in tc.pipeline(n, stages=2):
            a = A.tile((k * 4,), (4,)).load()
            if n > 3:
                tc.stage()  # err
            acc = acc + a
        Y.tile((0,), (4,)).store(acc)


@tc.kernel
def tree_without_merge(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0, 0), (4, 8))
        h = tc.reduce(x, 1, 0.0, lambda s, v: s * 0.5 + v)  # err
        Y.tile((0,), (4,)).store(h)


@tc.kernel
def while_loop(X, Y, n):
    for _p in tc.parallel(1):
        i = 0
        while i < n:  # err
            i = i + 1


@tc.kernel
def tile_condition(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0,), (4,))
        if x > 0.0:  # err
            Y.tile((0,), (4,)).store(x)


@tc.kernel
def bad_broadcast(X, Y):
    for _p in tc.parallel(1):
        a = X.tile((0, 0), (4, 8))
        b = X.tile((0, 0), (3, 1)).reshape(3)
        Y.tile((0, 0), (4, 8)).store(a + b)  # err


@tc.kernel
def reassign_ancestor(X, Y):
    for _p in tc.parallel(1):
        acc = tc.zeros((8, 8))
        for _i in tc.parallel(2, level="group"):
            acc = acc * 2.0  # err
        Y.tile((0, 0), (8, 8)).store(acc)


@tc.kernel
def outside_parallel(X, Y):
    x = X.tile((0,), (4,))  # a view: accepted before a nest (regression/test_views_before_...)
    Y.tile((0,), (4,)).store(x)  # err


@tc.kernel
def break_in_pipeline(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        for k in tc.pipeline(n):
            if k > 2:
                break  # err
            acc = acc + X.tile((k * 4,), (4,))
        Y.tile((0,), (4,)).store(acc)


@tc.kernel
def runtime_tile_shape(X, Y, n):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(tc.zeros((n,)))  # err


@tc.kernel
def int_true_division(X, Y):
    for p in tc.parallel(4):
        h = p / 2  # err
        Y.tile((h,), (4,)).store(X.tile((0,), (4,)))


@tc.kernel
def carried_type_change(X, Y, n):
    for _p in tc.parallel(1):
        s = 0
        for _i in range(n):  # err
            s = X.tile((0,), (4,)).load()
        Y.tile((0,), (4,)).store(s)


@tc.kernel
def numpy_call(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(np.exp(X.tile((0,), (4,))))  # err


@tc.kernel
def return_value(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (4,)))
    return X  # err


@tc.kernel
def bad_policy(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(tc.sum(X.tile((0, 0), (4, 4)), 1, policy="fast"))  # err


@tc.kernel
def mixed_tiles(X, H, Y):
    for _p in tc.parallel(1):
        Y.tile((0, 0), (4, 4)).store(X.tile((0, 0), (4, 4)) + H.tile((0, 0), (4, 4)))  # err


@tc.kernel
def store_shape(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (8,)))  # err


@tc.kernel
def parallel_as_value(X, Y):
    r = tc.parallel(4)  # err
    for _p in r:
        pass


@tc.kernel
def stage_count(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((4,))
        for k in tc.pipeline(n, stages=3):  # err
            a = X.tile((k * 4,), (4,)).load()
            tc.stage()
            acc = acc + a
        Y.tile((0,), (4,)).store(acc)


@tc.kernel
def loop_var_after_loop(X, Y, n):
    for _p in tc.parallel(1):
        for i in range(n):
            Y.tile((i * 4,), (4,)).store(X.tile((0,), (4,)))
        Y.tile((i,), (4,)).store(X.tile((0,), (4,)))  # err


@tc.kernel
def update_in_loop(X, Y, n):
    for _p in tc.parallel(1):
        acc = tc.zeros((8,))
        for i in tc.parallel(2, level="group"):
            for _k in range(n):
                acc[i * 4:(i + 1) * 4] = tc.ones((4,))  # err
        Y.tile((0,), (8,)).store(acc)


@tc.kernel
def slice_size_unknown(X, Y, n):
    for _p in tc.parallel(1):
        x = X.tile((0,), (8,)).load()
        Y.tile((0,), (4,)).store(x[n:n * 2])  # err


@tc.kernel
def nested_levels(X, Y):
    for _p in tc.parallel(2, level="group"):
        for q in tc.parallel(2, level="grid"):  # err
            Y.tile((q,), (1,)).store(X.tile((q,), (1,)))


@tc.kernel
def assert_on_tile(X, Y):
    for p in tc.parallel(1):
        x = X.tile((p,), (4,)).load()
        assert x > 0.0  # err
        Y.tile((p,), (4,)).store(x)


@tc.kernel
def assert_in_reduction(X, Y, n):
    for _p in tc.parallel(1):
        total = 0.0
        for e in tc.reduction(X.tile((0, 0), (4, 4)), axis=1):
            assert n > 0  # err
            total = total + e
        Y.tile((0,), (4,)).store(total)


@tc.kernel
def assert_runtime_message(X, Y, n):
    for p in tc.parallel(1):
        assert p < n, n  # err
        Y.tile((p,), (4,)).store(X.tile((p,), (4,)))


CASES = [
    # (kernel, args, text the caret points at, message fragments)
    (unknown_builtin, (V, V), "tc.expo", ["no attribute 'expo'", "did you mean 'exp'"]),
    (python_object, (V, V), "TABLE", ["Python object 'TABLE' (list)", "cannot be used"]),
    (use_before_assignment, (V, V), "z", ["z is not definitely assigned", "assigned later"]),
    (conditional_definition, (V, V, tc.int32), "t)",
     ["t is not definitely assigned", "only on the then path"]),
    (mma_shapes, (M2, M2, M2), "tc.mma(", ["K extents (8 and 4) differ"]),
    (mma_dtype, (H2, H2, H2), "acc)", ["f16 operands needs a f32 accumulator"]),
    (stage_in_if, (V, V, tc.int32), "tc.stage()", ["must be a top-level statement"]),
    (tree_without_merge, (M2, V), "tc.reduce(",
     ["not a recognized merge", "unordered_tree", 'policy="strict_fold"']),
    (while_loop, (V, V, tc.int32), "while", ["unsupported Python syntax", "While"]),
    (tile_condition, (V, V), "x > 0.0", ["scalar condition", "tc.where"]),
    (bad_broadcast, (M2, M2), "a + b", ["4x8 and 3 do not broadcast"]),
    (reassign_ancestor, (M2, M2), "acc =", ["declared outside this parallel nest",
                                            "acc[...] = patch"]),
    (outside_parallel, (V, V), "Y.tile(", ["reading memory", "inside a tc.parallel nest"]),
    (break_in_pipeline, (V, V, tc.int32), "break", ["not supported in tc.pipeline"]),
    (runtime_tile_shape, (V, V, tc.int32), "(n,)", ["compile-time integer"]),
    (int_true_division, (V, V), "p / 2", ["floating-point operands", "use //"]),
    (carried_type_change, (V, V, tc.int32), "for", ["loop-carried s", "i32"]),
    (numpy_call, (V, V), "np.exp", ["numpy.exp", "cannot be used inside a kernel"]),
    (return_value, (V, V), "return X", ["a kernel returns nothing"]),
    (bad_policy, (M2, V), '"fast"', ["policy must be one of"]),
    (mixed_tiles, (M2, H2, M2), "X.tile((0, 0), (4, 4)) +", ["mixes tiles", "f16 and f32"]),
    (store_shape, (V, V), "Y.tile(", ["store of a 8 tile into a 4 view"]),
    (parallel_as_value, (V, V), "tc.parallel(4)", ["only valid as the iterable of a for"]),
    (stage_count, (V, V, tc.int32), "tc.pipeline(", ["stages=3", "2 stages"]),
    (loop_var_after_loop, (V, V, tc.int32), "i,", ["induction variable"]),
    (update_in_loop, (V, V, tc.int32), "acc[", ["top-level statement of the parallel"]),
    (slice_size_unknown, (V, V, tc.int32), "x[n:n * 2]", ["compile-time size"]),
    (nested_levels, (V, V), "tc.parallel(2, level=\"grid\")", ["strictly inner level"]),
    (assert_on_tile, (V, V), "x > 0.0", ["assert needs a scalar condition", "tile<4xi1>"]),
    (assert_in_reduction, (M2, V, tc.int32), "assert", ["reduction update"]),
    (assert_runtime_message, (V, V, tc.int32), "n  # err", ["message of an assert",
                                                             "compile-time string"]),
]

PACKAGE = Path(tc.__file__).resolve().parent
"""The installed package: frames in it are tilec's (the checkout may itself be named tilec)."""
INTERNAL = ("capture.py", "regions.py", "tiles.py", "views.py", "reductions.py", "matrix.py",
            "scopes.py", "builtins.py", "values.py")


def _expected_position(kernel, needle: str) -> tuple[int, int]:
    lines, start = inspect.getsourcelines(kernel.fn)
    for k, line in enumerate(lines):
        if "# err" in line:
            return start + k, line.index(needle)
    raise AssertionError("no '# err' marker")


def test_at_least_fifteen_cases():
    assert len(CASES) >= 15


@pytest.mark.parametrize("kernel,args,needle,fragments", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_error_is_located_with_message_and_no_internal_frames(kernel, args, needle, fragments):
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, *args)
    e = info.value
    for frag in fragments:
        assert frag in e.message, f"{frag!r} not in {e.message!r}"
    line, col = _expected_position(kernel, needle)
    assert (e.lineno, e.col_offset) == (line, col), str(e)
    assert Path(e.filename).resolve() == Path(__file__).resolve()
    text = str(e)
    assert text.startswith(f"{e.filename}:{line}:{col + 1}: error: ")
    snippet, caret = text.splitlines()[1:3]
    assert "# err" in snippet and caret.lstrip().startswith("^")
    assert caret.index("^") == col
    frames = traceback.extract_tb(e.__traceback__)
    tilec_frames = [f for f in frames if PACKAGE in Path(f.filename).resolve().parents]
    assert not [f for f in tilec_frames if Path(f.filename).name in INTERNAL], frames
    assert len(tilec_frames) <= 1 and all(Path(f.filename).name == "jit.py"
                                          for f in tilec_frames)
    assert e.__cause__ is None and e.__suppress_context__


def test_calling_a_kernel_directly_reports_the_same_error():
    with pytest.raises(tc.TileSyntaxError) as info:
        while_loop(np.zeros(4, np.float32), np.zeros(4, np.float32), 3)
    assert "While" in info.value.message
    frames = traceback.extract_tb(info.value.__traceback__)
    assert not [f for f in frames if Path(f.filename).name in INTERNAL]
