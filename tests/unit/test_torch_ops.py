"""``tc.torch.custom_op``: tilec kernels as torch custom ops, eager and under ``torch.compile``.

On the CPU: the ops for ``lib.matmul``, ``lib.softmax`` and ``lib.layernorm`` agree with
torch eager and with calling tilec directly; ``torch.compile`` (``aot_eager`` and the
default inductor backend) of ``softmax(x @ w)`` agrees with eager, for a second shape
too, and reuses the compiled kernel; the fake implementation serves ``FakeTensorMode``
and meta tensors; ``torch.library.opcheck`` passes; bad registrations and calls raise
one ``tc.ArgumentError`` that names the problem. Skipped when torch is not installed.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="torch is not installed (pip install 'tilec[torch]'; CI installs "
    "torch==2.13.0, the CPU build)")

import tilec as tc  # noqa: E402
from tilec import lib  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")

MM_CX = {"BM": 32, "BN": 32, "BK": 32}

matmul = tc.torch.custom_op(
    "tilec_test::matmul", lib.matmul, constexprs=MM_CX,
    outputs={"C": lambda A, B: ((A.shape[0], B.shape[1]), torch.float32)})
softmax = tc.torch.custom_op("tilec_test::softmax", lib.softmax, outputs={"Y": "X"})
layernorm = tc.torch.custom_op("tilec_test::layernorm", lib.layernorm, outputs={"Y": "X"},
                               scalars={"eps": float})
matmul_ref = tc.torch.custom_op(
    "tilec_test::matmul_reference", lib.matmul, target="reference", constexprs=MM_CX,
    outputs={"C": lambda A, B: ((A.shape[0], B.shape[1]), tc.float32)})


def _mm_inputs(m: int = 70, k: int = 50, n: int = 45, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)


def softmax_of_product(x, w):
    """The function the compile tests trace: both ops, torch.ops spelling."""
    return torch.ops.tilec_test.softmax(torch.ops.tilec_test.matmul(x, w))


# ------------------------------------------------------------------------ eager


def test_tc_torch_is_the_module_and_import_tilec_does_not_import_torch():
    import tilec.torch_ops

    assert tc.torch is tilec.torch_ops
    code = "import sys, tilec; assert 'torch' not in sys.modules, 'import tilec imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_matmul_op_matches_torch_and_tilec():
    a, b = _mm_inputs()
    c = matmul(a, b)
    assert c.shape == (70, 45) and c.dtype == torch.float32
    torch.testing.assert_close(c, torch.matmul(a, b), rtol=1e-5, atol=1e-4)
    assert torch.equal(torch.ops.tilec_test.matmul(a, b), c)
    direct = np.zeros((70, 45), np.float32)
    tc.compile(lib.matmul, a.numpy(), b.numpy(), direct, target="cpu", **MM_CX)(
        a.numpy(), b.numpy(), direct)
    np.testing.assert_array_equal(c.numpy(), direct)  # the same binary on the same data


def test_bf16_matmul_accumulates_in_f32():
    a, b = _mm_inputs(40, 96, 33)
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
    c = matmul(a16, b16)
    assert c.dtype == torch.float32
    torch.testing.assert_close(c, a16.float() @ b16.float(), rtol=1e-5, atol=1e-4)


def test_softmax_op_matches_torch_and_tilec():
    x = torch.randn(10, 100, generator=torch.Generator().manual_seed(1)) * 4.0
    y = softmax(x)
    torch.testing.assert_close(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    direct = np.zeros((10, 100), np.float32)
    tc.compile(lib.softmax, x.numpy(), direct, target="cpu")(x.numpy(), direct)
    np.testing.assert_allclose(y.numpy(), direct, rtol=1e-6, atol=1e-7)


def test_scalar_argument_and_non_contiguous_input():
    g = torch.Generator().manual_seed(2)
    x, w, bias = torch.randn(30, 12, generator=g).T, torch.randn(30, generator=g), \
        torch.randn(30, generator=g)
    assert not x.is_contiguous()
    y = layernorm(x, w, bias, 1e-5)
    want = torch.nn.functional.layer_norm(x, (30,), w, bias, eps=1e-5)
    torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-5)


def test_input_at_an_unaligned_offset():
    buf = torch.randn(1 + 8 * 40, generator=torch.Generator().manual_seed(5))
    x = buf[1:].view(8, 40)
    assert x.is_contiguous() and x.data_ptr() % 16
    torch.testing.assert_close(softmax(x), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_explicit_target_runs_there():
    a, b = _mm_inputs(20, 24, 18)
    torch.testing.assert_close(matmul_ref(a, b), a @ b, rtol=1e-5, atol=1e-5)
    assert tc.torch.compiled(matmul_ref, a, b).target == "reference"
    assert tc.torch.compiled("tilec_test::matmul", a, b).target == "cpu"


def test_one_compiled_kernel_per_specialization():
    a, b = _mm_inputs()
    first = tc.torch.compiled(matmul, a, b)
    matmul(a, b)
    a2, b2 = _mm_inputs(33, 17, 9, seed=3)
    torch.testing.assert_close(matmul(a2, b2), a2 @ b2, rtol=1e-5, atol=1e-4)
    assert tc.torch.compiled(matmul, a2, b2) is first  # symbolic extents: one binary
    assert first.executable() is tc.torch.compiled(matmul, a, b).executable()
    bf = tc.torch.compiled(matmul, a.bfloat16(), b.bfloat16())
    assert bf is not first and bf.specs[0].dtype.name == "bf16"


def test_no_backward_unless_registered():
    a, b = _mm_inputs(8, 8, 8)
    a.requires_grad_()
    c = matmul(a, b)
    torch.testing.assert_close(c, a.detach() @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="no autograd formula"):
        c.sum().backward()


# --------------------------------------------------------------- torch.compile


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_torch_compile_matches_eager(backend):
    torch._dynamo.reset()
    fn = torch.compile(softmax_of_product, backend=backend, fullgraph=True)
    for m, seed in ((70, 0), (33, 4)):  # a second shape: a recompile or a dynamic graph
        a, b = _mm_inputs(m, 50, 45, seed)
        got = fn(a, b)
        torch.testing.assert_close(got, softmax_of_product(a, b), rtol=0, atol=0)
        torch.testing.assert_close(got, torch.softmax(a @ b, dim=1), rtol=1e-5, atol=1e-5)


def test_torch_compile_inductor_fuses_around_the_ops():
    """The default backend: inductor generates C++ for the pointwise ops between the
    custom ops (gcc builds it) and calls the ops as extern kernels."""
    def fn(x, w):
        return torch.ops.tilec_test.softmax(torch.ops.tilec_test.matmul(x, w) * 0.5 + 1.0) * 2.0

    torch._dynamo.reset()
    a, b = _mm_inputs()
    got = torch.compile(fn, fullgraph=True)(a, b)
    torch.testing.assert_close(got, fn(a, b), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(got, 2.0 * torch.softmax(a @ b * 0.5 + 1.0, dim=1),
                               rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------- fake / meta


def test_fake_implementation_under_fake_tensor_mode():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    with FakeTensorMode():
        a, b = torch.empty(7, 5, dtype=torch.bfloat16), torch.empty(5, 3, dtype=torch.bfloat16)
        c = matmul(a, b)
        y = softmax(c)
    assert isinstance(c, FakeTensor) and isinstance(y, FakeTensor)
    assert (tuple(c.shape), c.dtype) == ((7, 3), torch.float32)
    assert (tuple(y.shape), y.dtype) == ((7, 3), torch.float32)


def test_meta_tensors_take_the_fake_implementation():
    c = matmul(torch.empty(9, 4, device="meta"), torch.empty(4, 6, device="meta"))
    assert c.device.type == "meta" and tuple(c.shape) == (9, 6)


@pytest.mark.parametrize("op,args", [
    (matmul, lambda: _mm_inputs(40, 24, 20)),
    (softmax, lambda: (torch.randn(6, 50),)),
    (layernorm, lambda: (torch.randn(5, 16), torch.randn(16), torch.randn(16), 1e-5)),
], ids=["matmul", "softmax", "layernorm"])
def test_opcheck(op, args):
    results = torch.library.opcheck(op, args(), raise_exception=False)
    assert all(v == "SUCCESS" for v in results.values()), results


# ------------------------------------------------------------------------ errors


@tc.kernel
def _scale_both(X, Y):
    """Writes its input X as well as Y: not a functional op."""
    (M,) = X.shape
    for p in tc.parallel(tc.cdiv(M, 16)):
        x = X.tile((p * 16,), (16,), fill=0.0)
        Y.tile((p * 16,), (16,)).store(x * 2.0)
        X.tile((p * 16,), (16,)).store(x + 1.0)


@tc.func
def _helper(x):
    return x


def _not_a_kernel(A, B):
    pass


OK = {"C": lambda A, B: ((A.shape[0], B.shape[1]), torch.float32)}


@pytest.mark.parametrize("name,kernel,kwargs,fragments", [
    ("matmul", lib.matmul, {"outputs": OK}, ["'namespace::opname'", "'matmul'"]),
    ("a::b::c", lib.matmul, {"outputs": OK}, ["'namespace::opname'"]),
    ("ns::op.default", lib.matmul, {"outputs": OK}, ["no overload name"]),
    (7, lib.matmul, {"outputs": OK}, ["name 7"]),
    ("tilec_test::matmul", lib.matmul, {"outputs": OK}, ["already registered"]),
    ("aten::mm", lib.matmul, {"outputs": OK}, ["torch already has an operator 'aten::mm'"]),
    ("tilec_test::e1", _not_a_kernel, {"outputs": OK}, ["_not_a_kernel is not a tilec kernel",
                                                        "@tc.kernel"]),
    ("tilec_test::e2", _helper, {"outputs": OK}, ["_helper is a @tc.func helper"]),
    ("tilec_test::e3", None, {"outputs": OK}, ["NoneType is not a tilec kernel"]),
    ("tilec_test::e4", lib.matmul, {"outputs": {}}, ["outputs must be a non-empty mapping"]),
    ("tilec_test::e5", lib.matmul, {"outputs": [("C", None)]}, ["non-empty mapping"]),
    ("tilec_test::e6", lib.matmul, {"outputs": {"D": "A"}},
     ["output 'D' is not a parameter", "(A, B, C)"]),
    ("tilec_test::e7", lib.matmul, {"outputs": {"BM": "A"}},
     ["output 'BM' is a constexpr parameter"]),
    ("tilec_test::e8", lib.matmul, {"outputs": {"C": "Q"}},
     ["outputs['C'] = 'Q' must name an input"]),
    ("tilec_test::e9", lib.matmul, {"outputs": {"C": (70, 45)}},
     ["outputs['C'] must be an input's name or a callable"]),
    ("tilec_test::e10", lib.softmax, {"outputs": {"X": "Y", "Y": "X"}},
     ["must name an input"]),
    ("tilec_test::e11", lib.layernorm, {"outputs": {"Y": "X"}, "scalars": {"eps": complex}},
     ["scalars['eps'] must be float, int or bool"]),
    ("tilec_test::e12", lib.layernorm, {"outputs": {"Y": "X"}, "scalars": {"Y": float}},
     ["scalars names 'Y', which is not an input"]),
    ("tilec_test::e13", lib.layernorm, {"outputs": {"Y": "eps"}, "scalars": {"eps": float}},
     ["names a scalar input"]),
    ("tilec_test::e14", lib.matmul, {"outputs": OK, "constexprs": {"BQ": 4}},
     ["constexprs names 'BQ', which is not a parameter"]),
    ("tilec_test::e15", lib.matmul, {"outputs": OK, "constexprs": {"A": 4}},
     ["constexprs names 'A', which is a runtime parameter"]),
    ("tilec_test::e16", lib.matmul, {"outputs": OK, "target": 3},
     ["target must be a target name or a mapping"]),
])
def test_bad_registration(name, kernel, kwargs, fragments):
    with pytest.raises(tc.ArgumentError) as info:
        tc.torch.custom_op(name, kernel, **kwargs)
    for f in fragments:
        assert f in str(info.value), str(info.value)
    assert not hasattr(torch.ops.tilec_test, "e1")  # nothing registered on the way


def test_unknown_target_is_named():
    with pytest.raises(tc.TargetUnavailable, match="unknown target 'cpuu'"):
        tc.torch.custom_op("tilec_test::e17", lib.matmul, outputs=OK, target="cpuu")
    with pytest.raises(tc.TargetUnavailable, match="unknown target 'gpu'"):
        tc.torch.custom_op("tilec_test::e18", lib.matmul, outputs=OK, target={"cuda": "gpu"})


@pytest.mark.parametrize("name,spec,fragment", [
    ("spec1", lambda A, B: (A.shape[0], B.shape[1]), "returns (shape, dtype)"),
    ("spec2", lambda A, B: ((A.shape[0], 2.5), torch.float32), "shape must be a tuple of ints"),
    ("spec3", lambda A, B: ((A.shape[0], B.shape[1]), "float32"), "dtype must be a torch dtype"),
])
def test_bad_output_spec_result(name, spec, fragment):
    op = tc.torch.custom_op(f"tilec_test::{name}", lib.matmul, outputs={"C": spec},
                            constexprs=MM_CX)
    a, b = _mm_inputs(4, 4, 4)
    for call in (lambda: op(a, b), lambda: op(a.to("meta"), b.to("meta"))):
        with pytest.raises(tc.ArgumentError, match="outputs\\['C'\\] returned") as info:
            call()
        assert fragment in str(info.value)


def test_kernel_that_writes_an_input_is_refused():
    op = tc.torch.custom_op("tilec_test::scale_both", _scale_both, outputs={"Y": "X"})
    x = torch.arange(20, dtype=torch.float32)
    with pytest.raises(tc.ArgumentError, match="writes its input X; a custom op may not modify"):
        op(x)
    torch.testing.assert_close(x, torch.arange(20, dtype=torch.float32))  # not run


def test_no_target_for_the_device_type():
    op = tc.torch.custom_op("tilec_test::cuda_only", lib.softmax, outputs={"Y": "X"},
                            target={"cuda": "cuda"})
    with pytest.raises(tc.ArgumentError, match="no tilec target for tensors on cpu"):
        op(torch.randn(2, 8))


def test_kernel_errors_reach_the_caller():
    a, b = _mm_inputs(6, 5, 4)
    with pytest.raises(tc.KernelAssertionError, match="A is M x K, so B must be K x N"):
        matmul(a, torch.randn(7, 4))
