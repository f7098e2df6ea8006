"""Runtime checks in emitted CUDA: host checks stay on the host, device checks write the record.

Compiled to cubins through NVRTC (no GPU needed); the launches are in
``tests/device/test_cuda_asserts.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from paths import FakeDeviceArray, fake_driver, launchable
from tilec.driver import lower_for
from tilec.targets.cuda.backend import make_backend
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.targets.kernel_checks import HostChecks

_WHY = nvrtc_available()
needs_nvrtc = pytest.mark.skipif(_WHY is not None, reason=f"NVRTC unavailable: {_WHY}")


@tc.kernel
def both_checks(A, B, C, BM: tc.constexpr = 32, BN: tc.constexpr = 32, BK: tc.constexpr = 16):
    M, K = A.shape
    N = B.shape[1]
    assert B.shape[0] == K, "A is M x K, so B must be K x N"
    for pm, pn in tc.parallel(tc.cdiv(M, BM), tc.cdiv(N, BN)):
        acc = tc.zeros((BM, BN), tc.float32)
        for k in tc.serial(tc.cdiv(K, BK)):
            assert k * BK < K, "the K step starts inside A"
            a = A.tile((pm * BM, k * BK), (BM, BK), fill=0.0)
            b = B.tile((k * BK, pn * BN), (BK, BN), fill=0.0)
            acc = tc.mma(a, b, acc)
        C.tile((pm * BM, pn * BN), (BM, BN)).store(acc)


@tc.kernel
def host_only(X, Y, BM: tc.constexpr = 16):
    M = X.shape[0]
    assert Y.shape[0] == M
    for p in tc.parallel(tc.cdiv(M, BM)):
        Y.tile((p * BM,), (BM,)).store(X.tile((p * BM,), (BM,), fill=0.0))


def _source(kernel, *args, target: str = "cuda:sm_90", **cx):
    compiled = tc.compile(kernel, *args, target="reference", **cx)
    machine = lower_for(compiled.module, compiled.fn_name, target)
    return machine, make_backend(target).emit(machine, compiled.fn_name)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_device_check_writes_the_record_and_host_check_is_not_emitted(dtype) -> None:
    spec = tc.array((None, None), dtype)
    machine, src = _source(both_checks, spec, spec, tc.array((None, None), np.float32))
    assert [c.message for c in src.checks] == ["the K step starts inside A"]
    assert src.checks[0].labels == ("k * BK", "K")
    assert src.checks[0].location.line > 0
    assert src.text.count("atomicCAS(tc_check") == 1
    assert "unsigned long long *__restrict__ tc_check)" in src.text
    host = HostChecks(machine.lookup("both_checks"))
    assert [op.attr("message") for op in host.ops["before"]] == ["A is M x K, so B must be K x N"]


def test_kernel_without_device_checks_keeps_its_signature() -> None:
    _, src = _source(host_only, tc.array((None,), np.float32), tc.array((None,), np.float32))
    assert src.checks == [] and "tc_check" not in src.text


@needs_nvrtc
@pytest.mark.parametrize("target,arch", [("cuda:sm_90", "sm_90"), ("cuda:sm_80", "sm_80")])
def test_kernel_with_both_kinds_of_checks_compiles(target: str, arch: str) -> None:
    spec = tc.array((None, None), np.float16)
    _, src = _source(both_checks, spec, spec, tc.array((None, None), np.float32), target=target)
    cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes, src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF"
    r = cub.resources
    assert r.spill_stores == 0 and r.spill_loads == 0, str(r)


# ------------------------------------------------------------- the launcher, faked


@tc.kernel
def stepped(X, Out, bad, BM: tc.constexpr = 8):
    M = X.shape[0]
    for p in tc.parallel(tc.cdiv(M, BM)):
        for k in tc.serial(3):
            assert p * 3 + k != bad, "step reached the bad value"
            Out.tile((p, k), (1, 1)).store(tc.sum(X.tile((p * BM,), (BM,)))[None, None]
                                           + tc.zeros((1, 1)))


@needs_nvrtc
def test_launcher_reads_the_record_raises_and_clears_it(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The host side of a device check: the record is the last kernel argument, the launch is
    waited for, the failure decodes to the interpreter's error, and the record is cleared."""
    record = np.zeros(8, np.uint64)  # stands in for the device record

    def kernel(args: tuple) -> list[int] | None:  # program 2 fails at step 1
        assert int(args[-1]) == record.ctypes.data, "the record is the last kernel argument"
        return [1, 7, 7] if int(args[2]) == 7 else None

    calls = fake_driver(monkeypatch, record, kernel)

    x = np.arange(32, dtype=np.float32)
    with pytest.raises(tc.KernelAssertionError) as info:
        tc.interpret(stepped, x, np.full((4, 3), np.nan, np.float32), 7)
    want = str(info.value)
    spec = (tc.array((None,), np.float32), tc.array((None, None), np.float32), tc.int32)
    exe = launchable(stepped, *spec)
    args = (FakeDeviceArray(0x10000, (32,)), FakeDeviceArray(0x20000, (4, 3)))
    with pytest.raises(tc.KernelAssertionError) as info:
        exe(*args, 7)
    assert str(info.value) == want
    assert calls == ["clear", "launch", "copy", "sync", "clear", "sync"]
    assert not record.any(), "the record was not cleared"
    calls.clear()
    exe(*args, 100)  # passes: waited for, nothing to clear
    assert calls == ["launch", "copy", "sync"]
