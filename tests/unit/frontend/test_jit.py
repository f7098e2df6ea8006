"""``tc.kernel`` / ``tc.compile`` / ``tc.interpret``: parameters, specialization, caching, calls."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir

try:
    import tilec.targets.reference.backend  # noqa: F401

    HAVE_REFERENCE = True
except ImportError:  # pragma: no cover - depends on the checkout
    HAVE_REFERENCE = False

needs_reference = pytest.mark.skipif(not HAVE_REFERENCE,
                                     reason="the reference backend is not importable")


@tc.kernel
def scale_rows(X, Y, alpha, BN: tc.constexpr = 8):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BN)):
        Y.tile((p * BN, 0), (BN, 4)).store(X.tile((p * BN, 0), (BN, 4), fill=0.0) * alpha)


@tc.kernel
def typed_scalar(X, n: tc.int64, BN: tc.constexpr = 4):
    for p in tc.parallel(1):
        X.tile((p * BN,), (BN,)).store(tc.full((BN,), n.to(tc.float32)))


def _arrays(m=16, dtype=np.float32):
    x = np.arange(m * 4, dtype=dtype).reshape(m, 4)
    return x, np.zeros_like(x)


def test_parameters_follow_the_convention():
    x, y = _arrays()
    c = tc.compile(scale_rows, x, y, 2.0)
    fn = c.module.lookup("scale_rows")
    assert [str(a.type) for a in fn.args] == [
        "mem<X_0xX_1xf32, global>", "mem<Y_0xY_1xf32, global>", "f32", "index", "index",
        "index", "index"]
    assert fn.attributes["kernel"] is True
    assert fn.attributes["param_names"] == ("X", "Y", "alpha")
    assert fn.attributes["shape_symbols"] == ("X_0", "X_1", "Y_0", "Y_1")
    assert fn.attributes["shape_bindings"] == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert fn.attributes["constexprs"] == (("BN", 8),)
    assert c.fn_name == "scale_rows" and c.target == tc.default_target()
    assert ir.parse(c.ir) is not None


def test_static_shapes_make_extents_static():
    x, y = _arrays()
    c = tc.compile(scale_rows, x, y, 2.0, static_shapes=True)
    fn = c.module.lookup("scale_rows")
    assert str(fn.args[0].type) == "mem<16x4xf32, global>"
    assert fn.attributes["shape_symbols"] == ()
    c2 = tc.compile(scale_rows, x, y, 2.0, static_shapes=["Y"])
    fn2 = c2.module.lookup("scale_rows")
    assert str(fn2.args[0].type) == "mem<X_0xX_1xf32, global>"
    assert str(fn2.args[1].type) == "mem<16x4xf32, global>"


def test_specialization_keys_and_cache():
    x, y = _arrays()
    a = tc.compile(scale_rows, x, y, 2.0)
    assert tc.compile(scale_rows, x * 2, y, 3.0) is a              # same key: cached
    assert tc.compile(scale_rows, *_arrays(40), 1.0) is a          # symbolic extents
    assert tc.compile(scale_rows, x, y, 2.0, BN=4) is not a        # constexpr value
    h = tc.compile(scale_rows, x.astype(np.float16), y.astype(np.float16), 2.0)
    assert h is not a and "f16" in h.ir                             # element type
    assert tc.compile(scale_rows, x, y, 2.0, target="reference").module is a.module


def test_scalar_types():
    x, y = _arrays()
    fn = tc.compile(scale_rows, x, y, 2).module.lookup("scale_rows")
    assert fn.args[2].type is ir.i32
    fn = tc.compile(scale_rows, x, y, np.float64(2)).module.lookup("scale_rows")
    assert fn.args[2].type is ir.f64
    fn = tc.compile(scale_rows, x, y, tc.float16).module.lookup("scale_rows")
    assert fn.args[2].type is ir.f16
    fn = tc.compile(typed_scalar, np.zeros(4, np.float32), 3).module.lookup("typed_scalar")
    assert fn.args[1].type is ir.i64                               # the annotation wins


def test_bfloat16_arrays_and_specs():
    b = np.zeros((8, 4), ml_dtypes.bfloat16)
    c = tc.compile(scale_rows, b, b, 1.0)
    assert "mem<X_0xX_1xbf16, global>" in c.ir
    spec = tc.array((None, 4), tc.bfloat16)
    assert "mem<X_0x4xbf16, global>" in tc.compile(scale_rows, spec, spec, 1.0).ir


def test_bad_calls_are_type_errors():
    x, y = _arrays()
    with pytest.raises(TypeError, match="takes 3 runtime arguments"):
        tc.compile(scale_rows, x, y)
    with pytest.raises(TypeError, match="'alpha' is a runtime parameter"):
        tc.compile(scale_rows, x, y, alpha=1.0)
    with pytest.raises(TypeError, match="'nope' is not a parameter"):
        tc.compile(scale_rows, x, y, 1.0, nope=1)
    with pytest.raises(TypeError, match="arrays of uint64 are not supported"):
        tc.compile(scale_rows, x.astype(np.uint64), y, 1.0)
    with pytest.raises(TypeError, match="only has a meaning inside a @tc.kernel"):
        tc.exp(1.0)
    with pytest.raises(TypeError, match="@tc.func"):
        from golden_kernels import square

        square(1.0)


def test_arguments_are_checked_against_the_specialization():
    x, y = _arrays()
    c = tc.compile(scale_rows, x, y, 2.0, target="reference")
    with pytest.raises(TypeError, match="compiled for float32 arrays, got float64"):
        c(x.astype(np.float64), y, 2.0)
    with pytest.raises(ValueError, match="compiled for rank 2"):
        c(x.ravel(), y, 2.0)
    with pytest.raises(TypeError, match="takes 3 runtime arguments"):
        c(x, y)
    s = tc.compile(scale_rows, x, y, 2.0, target="reference", static_shapes=True)
    with pytest.raises(ValueError, match="static shape"):
        s(*_arrays(8), 2.0)


@needs_reference
def test_compiled_call_interpret_and_direct_call_run():
    x, y = _arrays(19)
    tc.compile(scale_rows, x, y, 2.0, target="reference")(x, y, 2.0)
    np.testing.assert_array_equal(y, x * 2)
    y[...] = 0
    tc.interpret(scale_rows, x, y, 3.0, BN=4)
    np.testing.assert_array_equal(y, x * 3)
    y[...] = 0
    scale_rows(x, y, 0.5)              # the default target
    np.testing.assert_allclose(y, x * 0.5)


@needs_reference
def test_undecorated_function_and_spec_compilation():
    def plain(X, Y):
        for p in tc.parallel(tc.cdiv(X.shape[0], 4)):
            Y.tile((p * 4,), (4,)).store(X.tile((p * 4,), (4,), fill=0.0) + 1.0)

    spec = tc.array((None,), tc.float32)
    c = tc.compile(plain, spec, spec, target="reference")
    assert tc.compile(plain, spec, spec, target="reference") is c
    x = np.arange(10, dtype=np.float32)
    y = np.zeros_like(x)
    c(x, y)
    np.testing.assert_array_equal(y, x + 1)


def test_compiled_source_and_plan():
    spec = tc.array((None, None), tc.float32)
    c = tc.compile(scale_rows, spec, spec, 1.0, target="reference")
    assert isinstance(c.source, str) and c.source
    from tilec.lib import matmul

    try:
        from tilec.plan import report  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="planner is not available"):
            _ = tc.compile(matmul, spec, spec, spec, target="cuda:sm_90").plan
        return
    plan = tc.compile(matmul, spec, spec, spec, target="cuda:sm_90").plan
    assert "matrix group" in plan.render()


def test_dtype_objects_map_to_ir():
    assert tc.float16.ir is ir.f16 and tc.bfloat16.ir is ir.bf16 and tc.float32.ir is ir.f32
    assert tc.float64.ir is ir.f64 and tc.int8.ir is ir.i8 and tc.int16.ir is ir.i16
    assert tc.int32.ir is ir.i32 and tc.int64.ir is ir.i64 and tc.bool_.ir is ir.i1


def test_a_repeated_jit_call_takes_the_executables_fast_path(monkeypatch):
    """The second call of a signature goes from the jit entry straight to the executable's
    binding cache, which still re-checks what depends on addresses (aliasing) and follows a
    change of executable."""
    from tilec.lib.matmul import matmul

    monkeypatch.setenv("TILEC_TARGET", "cpu")
    a = np.ones((16, 16), np.float32)
    b = np.full((16, 16), 2.0, np.float32)
    c = np.zeros((16, 16), np.float32)
    matmul(a, b, c)
    ((compiled, _),) = [v for k, v in matmul._fast.items()
                        if k[0] == "cpu" and k[1][0][2] == (16, 16) and not k[2]]
    assert compiled._hot is not None and compiled._hot[0] is compiled._exe
    calls = []
    exe_run = compiled._hot[1]
    compiled._hot = (compiled._hot[0], lambda args, pre: calls.append(1) or exe_run(args, pre))
    c[:] = 0
    matmul(a, b, c)
    assert calls == [1] and float(c[0, 0]) == 32.0
    with pytest.raises(Exception, match="overlaps argument 0"):
        matmul(a, b, a)
    compiled._hot = (object(), None)  # another executable's: not used
    c[:] = 0
    matmul(a, b, c)
    assert float(c[0, 0]) == 32.0 and compiled._hot[0] is compiled._exe


def test_the_environment_is_read_fresh_on_every_call(monkeypatch):
    """``support.env.getenv`` sees a variable set, changed and removed through os.environ
    (the decoded values it keeps are keyed by the raw bytes, never by the name)."""
    from tilec.support.env import getenv

    monkeypatch.setenv("TILEC_TEST_VAR", "one")
    assert getenv("TILEC_TEST_VAR") == "one"
    monkeypatch.setenv("TILEC_TEST_VAR", "two")
    assert getenv("TILEC_TEST_VAR") == "two"
    monkeypatch.delenv("TILEC_TEST_VAR")
    assert getenv("TILEC_TEST_VAR") is None


def test_a_repeated_jit_call_with_keywords_takes_the_fast_path(monkeypatch):
    from tilec.lib.matmul import matmul

    monkeypatch.setenv("TILEC_TARGET", "cpu")
    a = np.ones((16, 16), np.float32)
    c = np.zeros((16, 16), np.float32)
    matmul(a, a, c, BM=16, BN=16, BK=16)
    hits = [v[0] for k, v in matmul._fast.items()
            if k[0] == "cpu" and k[1][0][2] == (16, 16) and k[2]]
    assert hits and all(h._hot is not None for h in hits)
    c[:] = 0
    matmul(a, a, c, BM=16, BN=16, BK=16)
    assert float(c[0, 0]) == 16.0


def test_a_lazy_argument_reassigned_on_one_path_of_an_if() -> None:
    """A ``tc.func`` parameter bound to an unfinished elementwise expression (``x * 2.0``
    passed as it is) and reassigned on one path only: the other path's value is emitted on
    that path. It was refused as "holds a tile on one path"."""
    @tc.func
    def clip_first(s, n):
        if n > 0:
            s = tc.where(s > 1.0, s, 0.0)
        return s

    @tc.kernel
    def k(X, Y):
        for p in tc.parallel(2):
            x = X.tile((p * 8,), (8,))
            Y.tile((p * 8,), (8,)).store(clip_first(x * 2.0, p))

    x = np.linspace(-1, 2, 16).astype(np.float32)
    y = np.full(16, np.nan, np.float32)
    tc.interpret(k, x, y)
    want = np.concatenate([x[:8] * 2, np.where(x[8:] * 2 > 1, x[8:] * 2, 0)])
    np.testing.assert_array_equal(y, want)
