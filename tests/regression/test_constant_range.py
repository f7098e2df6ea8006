"""A number too wide for the type it takes is a located ``TileSyntaxError`` at capture.

``tc.full((16,), off + 4294967296)`` with an ``int`` argument ``off`` (an ``i32``) made the
constant ``4294967296 : i32``: nothing checked that a Python number fits the type it takes,
so the C emitter failed with a bare ``ValueError: 4294967296 does not fit in i32`` and the
reference interpreter when it ran. Capture now checks every number where it becomes a
typed constant, as numpy does (``np.int32(1) + 2**32`` raises): an operand's type
(arithmetic, comparisons, ``where``), a ``dtype`` (``tc.full``), a window's element type
(``fill=``), a conversion (``tc.int8(300)``) and an index (64-bit coordinates). The error
points at the expression and says how to widen (declare the argument ``tc.int64``, or
convert); the IR verifier rejects an out-of-range constant or fill as well.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.targets.cpu.backend import probe as c_compiler_problem

TARGETS = ("reference", "cpu")
I8 = tc.array((None,), tc.int8)
I32 = tc.array((None,), tc.int32)
I64 = tc.array((None,), tc.int64)


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile into a cache directory of this module, not the user's ~/.cache/tilec."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEC_CACHE_DIR", str(tmp_path_factory.mktemp("tilec-cache")))
    yield
    mp.undo()


# ------------------------------------------------------------------------- rejected


@tc.kernel
def argument_plus_wide(Y, off):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), off + 4294967296))  # err


@tc.kernel
def expression_plus_wide(Y, off, k):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), off * k - 4294967296))  # err


@tc.kernel
def tile_plus_wide(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((0,), (16,)) + 300)  # err


@tc.kernel
def tile_compared_with_wide(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Y.tile((0,), (16,)).store(tc.where(x < 1000, x, x))  # err


@tc.kernel
def where_with_wide(X, Y):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,))
        Y.tile((0,), (16,)).store(tc.where(x > 0, x, -129))  # err


@tc.kernel
def scalar_compared_with_wide(Y, off):
    for _p in tc.parallel(1):
        v = 1
        if off < 4294967296:  # err
            v = 2
        Y.tile((0,), (16,)).store(tc.full((16,), v))


@tc.kernel
def carried_from_wide(Y, off):
    for _p in tc.parallel(1):
        acc = 4294967296
        for _i in tc.serial(2):  # err
            acc = acc + off
        Y.tile((0,), (16,)).store(tc.full((16,), acc))


@tc.kernel
def full_of_dtype(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), 300, tc.int8))  # err


@tc.kernel
def full_of_a_wide_int(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), 4294967296))  # err


@tc.kernel
def full_like_wide(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full_like(X.tile((0,), (16,)), 1000))  # err


@tc.kernel
def fill_wide(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((0,), (16,), fill=300))  # err


@tc.kernel
def fill_not_an_integer(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((0,), (16,), fill=0.5))  # err


@tc.kernel
def convert_wide(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), tc.int8(300)))  # err


@tc.kernel
def boolean_plus_two(X, Y):
    for _p in tc.parallel(1):
        m = X.tile((0,), (16,)) > 0
        Y.tile((0,), (16,)).store((m + 2).to(tc.int8))  # err


@tc.kernel
def origin_beyond_64_bits(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((1180591620717411303424,), (16,), fill=0))  # err


@tc.kernel
def int64_plus_beyond_64_bits(Y, off: tc.int64):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), off + 18446744073709551616))  # err


REJECTED = [
    (argument_plus_wide, (I32, 3), "off + ", ["4294967296 does not fit in i32",
                                              "declare the argument `off: tc.int64`",
                                              "tc.int64(off)"]),
    (expression_plus_wide, (I32, 3, 5), "off * k", ["does not fit in i32", "`off: tc.int64`",
                                                    "`k: tc.int64`"]),
    (tile_plus_wide, (I8, I8), "X.tile((0,), (16,)) +",
     ["300 does not fit in i8 [-128, 127]", "a tile<16xi8>", ".to(tc.int16)"]),
    (tile_compared_with_wide, (I8, I8), "x < 1000", ["1000 does not fit in i8"]),
    (where_with_wide, (I8, I8), "tc.where(x > 0", ["-129 does not fit in i8",
                                                   "other operand (a tile<16xi8>)"]),
    (scalar_compared_with_wide, (I32, 3), "off <", ["does not fit in i32", "`off: tc.int64`"]),
    (carried_from_wide, (I32, 3), "for _i", ["acc holds 4294967296", "makes it i32",
                                             "4294967296 does not fit in i32",
                                             "acc = tc.int64(4294967296)"]),
    (full_of_dtype, (I8, I8), "300", ["300 does not fit in i8", "dtype=tc.int16"]),
    (full_of_a_wide_int, (I8, I64), "4294967296", ["does not fit in i32", "dtype=tc.int64"]),
    (full_like_wide, (I8, I8), "tc.full_like", ["1000 does not fit in i8"]),
    (fill_wide, (I8, I8), "X.tile((0,), (16,), fill", ["fill=300", "does not fit in i8",
                                                        "element type of the window"]),
    (fill_not_an_integer, (I8, I8), "X.tile((0,), (16,), fill", ["0.5 is not an integer"]),
    (convert_wide, (I8, I8), "tc.int8(", ["300 does not fit in i8"]),
    (boolean_plus_two, (I8, I8), "m + 2", ["2 does not fit in i1 [0, 1]", ".to(tc.int8)"]),
    (origin_beyond_64_bits, (I8, I8), "X.tile((1180591620717411303424",
     ["view origin", "does not fit in index", "64-bit"]),
    (int64_plus_beyond_64_bits, (I64, 3), "off + ", ["does not fit in i64",
                                                     "no integer type holds it"]),
]
"""(kernel, argument specs, the text the error points at, message fragments)."""

PACKAGE = Path(tc.__file__).resolve().parent
"""The installed package: frames in it are tilec's."""


def _expected_position(kernel: Any, needle: str) -> tuple[int, int]:
    lines, start = inspect.getsourcelines(kernel.fn)
    for k, line in enumerate(lines):
        if "# err" in line:
            return start + k, line.index(needle)
    raise AssertionError("no '# err' marker")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel,args,needle,fragments", REJECTED,
                         ids=[c[0].fn.__name__ for c in REJECTED])
def test_a_number_the_type_cannot_hold_is_a_located_error(kernel: Any, args: tuple,
                                                          needle: str, fragments: list[str],
                                                          target: str) -> None:
    if target == "cpu" and c_compiler_problem() is not None:
        pytest.skip(f"no C compiler: {c_compiler_problem()}")
    with pytest.raises(tc.TileSyntaxError) as info:
        tc.compile(kernel, *args, target=target)
    e = info.value
    for frag in fragments:
        assert frag in e.message, f"{frag!r} not in {e.message!r}"
    line, col = _expected_position(kernel, needle)
    assert (e.lineno, e.col_offset) == (line, col), str(e)
    assert Path(e.filename).resolve() == Path(__file__).resolve()
    text = str(e)
    assert "# err" in text.splitlines()[1] and text.splitlines()[2].lstrip().startswith("^")
    frames = [f.filename for f in __import__("traceback").extract_tb(info.tb)]
    assert not [f for f in frames if Path(f).resolve().is_relative_to(PACKAGE)
                and not f.endswith("jit.py")], frames


# ------------------------------------------------------------------------- accepted


@tc.kernel
def argument_declared_wide(Y, off: tc.int64):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), off + 4294967296))


@tc.kernel
def argument_converted(Y, off):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(tc.full((16,), tc.int64(off) + 4294967296))


@tc.kernel
def edges_of_i8(X, Y, Z):
    for _p in tc.parallel(1):
        x = X.tile((0,), (16,), fill=-128)
        Y.tile((0,), (16,)).store(tc.where(x > 0, x - 127, x + -128))
        Z.tile((0,), (16,)).store(tc.full((16,), tc.int8(-128)) + tc.full((16,), 127, tc.int8))


@tc.kernel
def boolean_edges(X, Y):
    for _p in tc.parallel(1):
        m = X.tile((0,), (16,)) > 0
        Y.tile((0,), (16,)).store((m + 1).to(tc.int8) + (m == True).to(tc.int8))  # noqa: E712


@tc.kernel
def integral_float_fill(X, Y):
    for _p in tc.parallel(1):
        Y.tile((0,), (16,)).store(X.tile((8,), (16,), fill=-2.0))


@pytest.mark.parametrize("target", TARGETS)
def test_the_suggested_fixes_work(target: str) -> None:
    if target == "cpu" and c_compiler_problem() is not None:
        pytest.skip(f"no C compiler: {c_compiler_problem()}")
    for kernel in (argument_declared_wide, argument_converted):
        y = np.full(16, -7, np.int64)
        tc.compile(kernel, y, 3, target=target)(y, 3)
        np.testing.assert_array_equal(y, np.full(16, 3 + 2**32))


@pytest.mark.parametrize("target", TARGETS)
def test_numbers_at_the_edges_of_the_type_are_accepted(target: str) -> None:
    if target == "cpu" and c_compiler_problem() is not None:
        pytest.skip(f"no C compiler: {c_compiler_problem()}")
    x = np.arange(-8, 8, dtype=np.int8)
    y, z = np.full(16, -7, np.int8), np.full(16, -7, np.int8)
    tc.compile(edges_of_i8, x, y, z, target=target)(x, y, z)
    w = x.astype(np.int64)
    np.testing.assert_array_equal(y, np.where(w > 0, w - 127, w - 128).astype(np.int8))
    np.testing.assert_array_equal(z, np.full(16, -1, np.int8))
    b = np.full(16, -7, np.int8)
    tc.compile(boolean_edges, x, b, target=target)(x, b)
    np.testing.assert_array_equal(b, (x <= 0).astype(np.int8) + (x > 0).astype(np.int8))
    f = np.full(16, -7, np.int8)
    tc.compile(integral_float_fill, x, f, target=target)(x, f)
    np.testing.assert_array_equal(f, np.concatenate([x[8:], np.full(8, -2, np.int8)]))


def test_the_verifier_rejects_an_out_of_range_constant() -> None:
    """IR that did not come from capture (parsed, or built by a pass) is checked as well."""
    for value, t in (("300", "i8"), ("2", "i1"), ("4294967296", "i32"),
                     ("9223372036854775808", "index")):
        m = ir.parse("module {\n  func @k() -> () {\n"
                     f"    %c = constant() {{value = {value}}} : {t}\n"
                     "    return()\n  }\n}")
        with pytest.raises(ir.VerificationError, match=f"constant {value} does not fit in {t}"):
            ir.verify(m)
