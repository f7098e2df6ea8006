"""Issue: the reference interpreter and the simulator accepted aliased arguments.

``tc.interpret(transpose, A, A)`` ran and returned a wrong ``A`` while cpu refused
the call. The contract forbids an argument the kernel writes to overlap another
argument, so the oracles refuse it too, through the launchers' own check
(``interop_checks.check_aliasing``: one implementation, one message on every
target, CUDA included). Two programs of one launch writing the same element is
outside the contract as well; the simulator, which sees every global store,
reports it unless both writes are atomics.
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tc
from tilec.lib.matmul import matmul
from tilec.lib.transpose import transpose
from tilec.lower import lower_to_machine
from tilec.targets.cuda.emitter import emit_cuda
from tilec.targets.cuda.runtime import bind_arguments
from tilec.targets.interop_checks import InteropError, kernel_label, shape_bindings
from tilec.targets.reference.errors import SimulationError

TARGETS = ["reference", "cpu", "cuda:sm_90", "cuda:sm_80", "metal:m1"]


@tc.kernel
def scale(X, Y, B: tc.constexpr = 16):
    N = X.shape[0]
    for p in tc.parallel(tc.cdiv(N, B)):
        Y.tile((p * B,), (B,)).store(X.tile((p * B,), (B,), fill=0.0) * 2.0)


@tc.kernel
def all_to_front(X, Y, B: tc.constexpr = 16):
    N = X.shape[0]
    for p in tc.parallel(tc.cdiv(N, B)):
        Y.tile((0,), (B,)).store(X.tile((p * B,), (B,), fill=0.0))


@tc.kernel
def sum_to_front(X, Y, B: tc.constexpr = 16):
    N = X.shape[0]
    for p in tc.parallel(tc.cdiv(N, B)):
        Y.tile((0,), (B,)).atomic_add(X.tile((p * B,), (B,), fill=0.0))


@tc.kernel
def first_stores_the_rest_add(X, Y, B: tc.constexpr = 16):
    N = X.shape[0]
    for p in tc.parallel(tc.cdiv(N, B)):
        x = X.tile((p * B,), (B,), fill=0.0)
        if p == 0:
            Y.tile((0,), (B,)).store(x)
        else:
            Y.tile((0,), (B,)).atomic_add(x)


def run(target: str, kernel, *args, **cx) -> None:
    if target == "reference":
        tc.interpret(kernel, *args, **cx)
    elif target == "cpu":
        tc.compile(kernel, *args, target="cpu", **cx)(*args)
    else:
        tc.simulate(kernel, *args, target=target, **cx)


def refusal(target: str, kernel, *args) -> str:
    with pytest.raises(InteropError) as info:
        run(target, kernel, *args)
    return str(info.value)


def test_transpose_into_its_input_is_refused_alike_everywhere() -> None:
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    before = a.copy()
    messages = {t: refusal(t, transpose, a, a) for t in TARGETS}
    assert len(set(messages.values())) == 1, messages  # one check, one message
    text = messages["reference"]
    assert "argument 1 ('Y') of @transpose" in text and "overlaps argument 0 ('X')" in text
    assert "transpose.py:" in text  # where the kernel is defined
    np.testing.assert_array_equal(a, before)  # refused before anything ran


@pytest.mark.parametrize("target", TARGETS)
def test_overlapping_unequal_views_are_aliasing(target: str) -> None:
    base = np.arange(96, dtype=np.float32)
    text = refusal(target, scale, base[0:64], base[32:96])
    assert "argument 1 ('Y') of @scale" in text and "overlaps argument 0 ('X')" in text


@pytest.mark.parametrize("target", TARGETS)
def test_disjoint_slices_of_one_buffer_are_not(target: str) -> None:
    base = np.full(128, np.nan, np.float32)
    base[:64] = np.arange(64)
    run(target, scale, base[:64], base[64:])
    np.testing.assert_array_equal(base[64:], 2 * np.arange(64, dtype=np.float32))


@pytest.mark.parametrize("target", ["reference", "cuda:sm_90"])
def test_interleaved_views_share_no_element(target: str) -> None:
    base = np.full(128, np.nan, np.float32)
    base[0::2] = np.arange(64)
    run(target, scale, base[0::2], base[1::2])
    np.testing.assert_array_equal(base[1::2], 2 * np.arange(64, dtype=np.float32))


@pytest.mark.parametrize("target", TARGETS)
def test_arguments_only_read_may_alias(target: str) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((24, 24)).astype(np.float32)
    c = np.full((24, 24), np.nan, np.float32)
    run(target, matmul, a, a, c, BM=16, BN=16, BK=8)
    np.testing.assert_allclose(c, a.astype(np.float64) @ a, rtol=1e-5, atol=1e-5)


def test_the_cuda_launcher_gives_the_same_message() -> None:
    class Fake:  # the facts the launcher reads of a device array (never dereferenced)
        def __init__(self, ptr: int, shape: tuple[int, ...]) -> None:
            self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape,
                                             "typestr": "<f4", "strides": None, "version": 3}

    a = np.zeros((64, 64), np.float32)
    cpu = refusal("cpu", transpose, a, a)
    comp = tc.compile(transpose, a, a, target="reference")
    machine = lower_to_machine(comp.module, "cuda:sm_90")
    fn = machine.lookup(comp.fn_name)
    src = emit_cuda(machine, comp.fn_name, "cuda:sm_90")
    x, y = Fake(0x10000, (64, 64)), Fake(0x10000 + 4 * 64 * 32, (64, 64))
    with pytest.raises(InteropError) as info:
        bind_arguments(src.kernel, src.params, [x, y], shape_bindings(fn), kernel_label(fn))
    assert str(info.value) == cpu
    # read-only arguments may share memory there too: only Y is written
    assert [p.written for p in src.params[:2]] == [False, True]


# ------------------------------------------------------------ programs of one launch

SIMULATORS = ["cuda:sm_90", "cuda:sm_80", "metal:m1"]
ATOMIC_SIMULATORS = ["cuda:sm_90", "cuda:sm_80"]
"""The profiles with atomics (metal:m1 lists none: its emitter prints no atomics)."""


@pytest.mark.parametrize("target", SIMULATORS)
def test_two_programs_storing_one_element_are_reported(target: str) -> None:
    x = np.arange(40, dtype=np.float32)
    y = np.full(16, np.nan, np.float32)
    with pytest.raises(SimulationError) as info:
        tc.simulate(all_to_front, x, y, target=target)
    e = info.value
    assert e.kind == "race" and [op.name for op in e.ops] == ["store"]
    text = str(e)
    assert "global memory %Y element (0,)" in text
    assert "by program (0,)" in text and "by program (1,)" in text
    assert "test_aliased_arguments.py" in text  # the store's line in the kernel


@pytest.mark.parametrize("target", ATOMIC_SIMULATORS)
def test_atomics_of_several_programs_may_meet(target: str) -> None:
    x = np.arange(40, dtype=np.float32)
    y = np.zeros(16, np.float32)
    tc.simulate(sum_to_front, x, y, target=target)
    want = np.zeros(48, np.float32)
    want[:40] = x
    np.testing.assert_array_equal(y, want.reshape(3, 16).sum(0))


@pytest.mark.parametrize("target", ATOMIC_SIMULATORS)
def test_a_store_meeting_another_programs_atomic_is_reported(target: str) -> None:
    x = np.arange(40, dtype=np.float32)
    with pytest.raises(SimulationError) as info:
        tc.simulate(first_stores_the_rest_add, x, np.zeros(16, np.float32), target=target)
    assert info.value.kind == "race"
    assert sorted(op.name for op in info.value.ops) == ["atomic", "store"]


@pytest.mark.parametrize("target", SIMULATORS)
def test_ragged_bounded_stores_are_disjoint(target: str) -> None:
    # the last program's window runs past the end: its dropped elements write nothing
    x = np.arange(37, dtype=np.float32)
    y = np.full(37, np.nan, np.float32)
    tc.simulate(scale, x, y, target=target)
    np.testing.assert_array_equal(y, 2 * x)


class _RecordingLauncher:
    """Stands in for the macOS launcher: records the launches it is asked for."""

    def __init__(self) -> None:
        self.calls = 0

    def launch(self, params, values, grid):  # noqa: ANN001, ANN201 - the launcher's protocol
        self.calls += 1
        return None


def test_metal_executable_refuses_aliased_outputs() -> None:
    """The Metal host copies every array into its own buffer, so a written argument that
    overlaps another would be copied back over it: refused with the message every target
    gives, before anything is launched."""
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    exe = tc.compile(transpose, a, a.copy(), target="metal:m1").executable()
    fake = _RecordingLauncher()
    exe._launcher = fake
    with pytest.raises(InteropError) as info:
        exe(a, a)
    assert str(info.value) == refusal("cpu", transpose, a, a)
    assert fake.calls == 0
    exe(a, a.copy())
    assert fake.calls == 1
