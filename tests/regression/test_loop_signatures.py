"""Every documented form of the counted loops is accepted; anything else is a located error.

``tc.serial(lo, hi, step=s)`` is documented (docs/guide/dsl.md and the builtin's summary)
but capture rejected it ("unexpected keyword argument 'step'"): the loop builtins took their
bounds positionally only. Capture now binds ``tc.serial``, ``tc.pipeline`` and
``tc.static_range`` to ``(n)`` or ``(lo, hi, step=1)`` with their keyword options
(``unroll=``; ``stages=``, ``window=``), and Python's ``range`` to its positional forms,
with an error at the offending argument that spells the accepted forms.

Each accepted form runs on the reference and the C target: the body writes the iteration
number at the induction variable's position of an output poisoned with -7, so the test
sees which indices ran and in which order (compared with Python's ``range``).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc
from tilec.targets.cpu.backend import probe as c_compiler_problem

N = 12
"""Output length (every index a loop below visits is in ``[0, N)``)."""


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


# --------------------------------------------------------------------- accepted forms
# Each writes c (1, 2, ...) at Y[i] for the i-th visited index; ``s`` is a runtime step.


@tc.kernel
def serial_n(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(5):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_lo_hi(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(3, 9):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_positional_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(1, 11, 3):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_keyword_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(0, 6, step=2):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_runtime_keyword_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(2, 12, step=s):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_n_unroll(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(7, unroll=2):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def serial_step_unroll(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.serial(1, 12, step=4, unroll=4):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def range_n(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in range(4):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def range_lo_hi_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in range(2, 11, 4):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def pipeline_n(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.pipeline(6, stages=1, window=2):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def pipeline_keyword_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.pipeline(1, 12, step=5, stages=1):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def pipeline_positional_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.pipeline(0, 9, 3):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def static_range_n(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.static_range(3):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def static_range_keyword_step(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.static_range(1, 10, step=4):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


@tc.kernel
def static_range_counting_down(Y, s):
    for _p in tc.parallel(1):
        c = 0
        for i in tc.static_range(9, 0, -3):
            c = c + 1
            Y.tile((i,), (1,)).store(tc.full((1,), c))


S = 3
"""The runtime step passed as ``s``."""
ACCEPTED = {
    serial_n: range(5), serial_lo_hi: range(3, 9), serial_positional_step: range(1, 11, 3),
    serial_keyword_step: range(0, 6, 2), serial_runtime_keyword_step: range(2, 12, S),
    serial_n_unroll: range(7), serial_step_unroll: range(1, 12, 4), range_n: range(4),
    range_lo_hi_step: range(2, 11, 4), pipeline_n: range(6),
    pipeline_keyword_step: range(1, 12, 5), pipeline_positional_step: range(0, 9, 3),
    static_range_n: range(3), static_range_keyword_step: range(1, 10, 4),
    static_range_counting_down: range(9, 0, -3),
}
"""Kernel -> the indices its loop visits, in order (Python's ``range`` of the same form)."""


@pytest.mark.parametrize("target", ["reference", "cpu"])
@pytest.mark.parametrize("kernel", list(ACCEPTED), ids=[k.fn.__name__ for k in ACCEPTED])
def test_every_documented_form_runs(kernel: Any, target: str) -> None:
    if target == "cpu" and c_compiler_problem() is not None:
        pytest.skip(f"no C compiler: {c_compiler_problem()}")
    y = np.full(N, -7, np.int32)
    tc.compile(kernel, y, S, target=target)(y, S)
    want = np.full(N, -7, np.int32)
    for c, i in enumerate(ACCEPTED[kernel], start=1):
        want[i] = c
    np.testing.assert_array_equal(y, want)


def test_unroll_is_recorded_on_the_loop() -> None:
    y = np.full(N, -7, np.int32)
    comp = tc.compile(serial_step_unroll, y, S, target="reference")
    loops = [op for op in comp.module.lookup(comp.fn_name).walk() if op.name == "serial"]
    assert [op.attr("unroll") for op in loops] == [4]


# ------------------------------------------------------------------------ rejected forms


@tc.kernel
def serial_unknown_keyword(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(0, 6, stride=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_n_with_step(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(6, step=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_step_twice(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(0, 6, 2, step=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_bounds_by_keyword(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(lo=0, hi=6):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_no_bounds(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(unroll=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_zero_step(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(0, 6, step=0):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def serial_zero_unroll(Y, s):
    for _p in tc.parallel(1):
        for i in tc.serial(0, 6, unroll=0):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def range_keyword_step(Y, s):
    for _p in tc.parallel(1):
        for i in range(0, 6, step=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def range_unroll(Y, s):
    for _p in tc.parallel(1):
        for i in range(6, unroll=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def pipeline_unroll(Y, s):
    for _p in tc.parallel(1):
        for i in tc.pipeline(0, 6, unroll=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def static_range_unroll(Y, s):
    for _p in tc.parallel(1):
        for i in tc.static_range(0, 6, unroll=2):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def static_range_zero_step(Y, s):
    for _p in tc.parallel(1):
        for i in tc.static_range(0, 6, step=0):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


@tc.kernel
def static_range_runtime_bound(Y, s):
    for _p in tc.parallel(1):
        for i in tc.static_range(0, s):  # err
            Y.tile((i,), (1,)).store(tc.full((1,), 1))


REJECTED = [
    (serial_unknown_keyword, "2", ["unexpected keyword argument 'stride'",
                                   "tc.serial(lo, hi, step=1, *, unroll=None)"]),
    (serial_n_with_step, "2", ["tc.serial(n) takes no step", "tc.serial(0, n, step=...)"]),
    (serial_step_twice, "2)", ["multiple values for argument 'step'"]),
    (serial_bounds_by_keyword, "0", ["unexpected keyword argument 'lo'", "tc.serial(n"]),
    (serial_no_bounds, "tc.serial", ["takes 1 to 3 positional bounds, got 0"]),
    (serial_zero_step, "0", ["needs a positive step, got 0"]),
    (serial_zero_unroll, "0", ["needs unroll >= 1, got 0"]),
    (range_keyword_step, "2", ["range() takes no keyword arguments", "range(lo, hi, step)"]),
    (range_unroll, "2", ["range() takes no keyword arguments (got 'unroll')"]),
    (pipeline_unroll, "2", ["tc.pipeline() got an unexpected keyword argument 'unroll'",
                            "stages=None, window=None"]),
    (static_range_unroll, "2", ["tc.static_range() got an unexpected keyword argument "
                                "'unroll'", "tc.static_range(lo, hi, step=1)"]),
    (static_range_zero_step, "0", ["tc.static_range() needs a nonzero step"]),
    (static_range_runtime_bound, "s)", ["compile-time integers, got a scalar i32"]),
]
"""(kernel, the text the error points at, message fragments)."""


def _expected_position(kernel: Any, needle: str) -> tuple[int, int]:
    """Line and column of ``needle`` on the kernel's ``# err`` line (the last occurrence)."""
    lines, start = inspect.getsourcelines(kernel.fn)
    for k, line in enumerate(lines):
        if "# err" in line:
            return start + k, line[:line.index("# err")].rindex(needle)
    raise AssertionError("no '# err' marker")


@pytest.mark.parametrize("kernel,needle,fragments", REJECTED,
                         ids=[c[0].fn.__name__ for c in REJECTED])
def test_a_wrong_form_is_a_located_error(kernel: Any, needle: str, fragments: list[str]
                                         ) -> None:
    y = np.full(N, -7, np.int32)
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, y, S, target="reference")
    e = info.value
    for frag in fragments:
        assert frag in e.message, f"{frag!r} not in {e.message!r}"
    line, col = _expected_position(kernel, needle)
    assert (e.lineno, e.col_offset) == (line, col), str(e)
    assert Path(e.filename).resolve() == Path(__file__).resolve()
    assert "# err" in str(e).splitlines()[1]


def test_the_issue_case() -> None:
    """``tc.serial(0, 6, step=2)`` runs three iterations."""

    @tc.kernel
    def k(Y):
        for _p in tc.parallel(1):
            acc = tc.zeros((2,))
            for _i in tc.serial(0, 6, step=2):
                acc = acc + 1.0
            Y.tile((0,), (2,)).store(acc)

    y = np.full(2, np.nan, np.float32)
    tc.interpret(k, y)
    np.testing.assert_array_equal(y, [3.0, 3.0])
