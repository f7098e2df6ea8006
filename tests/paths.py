"""Running one kernel on every path, and checking what it did: what the tests share.

A *path* is one way to run a kernel on numpy arrays: ``reference`` (the
interpreter, ``tc.interpret``), ``cpu`` (the C backend) or ``sim:<profile>`` (the
SIMT simulator of a hardware profile, ``tc.simulate``). ``run`` runs a kernel on
one, ``raises`` expects one of its runtime errors, ``one_error`` checks that every
path raises the same text. Outputs start ``poisoned`` (NaN, or -7 for integers), so
an element nothing wrote shows (``unwritten``).

The CUDA target without a GPU: ``cuda_source`` emits a kernel's CUDA, ``cubin``
compiles it with NVRTC (``needs_nvrtc`` skips where it is missing), and
``fake_driver`` stands in for the driver so that a ``launchable``
executable runs its host side (the check record included) here. The GPU tests
(``tests/device``) move arrays with ``to_device``/``to_host``, poison device
outputs with ``poison`` and compare with ``reference_run``.

``pyproject.toml`` puts ``tests/`` on ``sys.path``: every test directory imports
this module as ``paths``.
"""

from __future__ import annotations

import ctypes
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import ml_dtypes
import numpy as np
import pytest

import tilec as tc
from tilec.targets.cpu.backend import probe as c_compiler_problem
from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available
from tilec.testing.fuzz.paths import to_device, to_host  # the fuzzer's GPU path moves arrays too

__all__ = ["PATHS", "HOST_PATHS", "SIMULATED", "CUDA_TARGETS", "CUBIN_ARCHS", "run", "raises",
           "one_error", "poisoned", "unwritten", "line_of", "where", "marked", "assert_located",
           "needs_nvrtc", "cuda_source", "cubin", "FakeDeviceArray", "fake_driver", "launchable",
           "to_device", "to_host", "poison", "on_device", "reference_run", "HostTensor",
           "matmul_matches_twice"]

PATHS = ("reference", "cpu", "sim:cuda:sm_90", "sim:cuda:sm_80", "sim:metal:m1")
"""Every path: the two that execute, then the simulator of each hardware profile."""
HOST_PATHS = PATHS[:2]
"""The paths that run any top level (GPU kernels are one nest)."""
SIMULATED = PATHS[2:]
"""The simulator of each hardware profile."""
CUDA_TARGETS = ("cuda:sm_90", "cuda:sm_80")
"""The CUDA profiles."""
CUBIN_ARCHS = [("cuda:sm_90", "sm_90"), ("cuda:sm_80", "sm_80")]
"""``(target, arch)``: each CUDA profile with the architecture its cubins are built for."""

POISON_INT = -7
"""What an integer output starts as (floats start as NaN)."""

E = TypeVar("E", bound=BaseException)


# ------------------------------------------------------------------------ the paths


def run(path: str, kernel: Any, *args: Any, **constexprs: Any) -> None:
    """Run ``kernel`` on ``path`` (arrays are written in place); ``cpu`` skips, with the
    reason, where no C compiler works."""
    if path == "reference":
        tc.interpret(kernel, *args, **constexprs)
    elif path == "cpu":
        why = c_compiler_problem()
        if why is not None:
            pytest.skip(f"no C compiler: {why}")
        tc.compile(kernel, *args, target="cpu", **constexprs)(*args)
    elif path.startswith("sim:"):
        tc.simulate(kernel, *args, target=path.removeprefix("sim:"), **constexprs)
    else:
        raise ValueError(f"unknown path {path!r}: reference, cpu or sim:<profile>")


def raises(error: type[E], path: str, kernel: Any, *args: Any, **constexprs: Any) -> E:
    """The ``error`` that running ``kernel`` on ``path`` raises (the test fails without it)."""
    with pytest.raises(error) as info:
        run(path, kernel, *args, **constexprs)
    return info.value


def one_error(error: type[BaseException], kernel: Any, *args: Any,
              paths: Sequence[str] = PATHS, **constexprs: Any) -> str:
    """The text of the ``error`` every path raises for one call, each on fresh copies of the
    array arguments; the test fails unless all the texts are the same."""
    texts = {str(raises(error, p, kernel, *_copies(args), **constexprs)) for p in paths}
    assert len(texts) == 1, texts
    return texts.pop()


def _copies(args: Sequence[Any]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _is_float(dtype: Any) -> bool:
    d = np.dtype(dtype)
    return d.kind == "f" or d == np.dtype(ml_dtypes.bfloat16)


def _int_poison(dtype: Any) -> Any:
    """-7 as a value of integer ``dtype`` (its bit pattern for unsigned types)."""
    return np.array(POISON_INT, np.int64).astype(dtype)


def poisoned(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    """An output of ``shape`` whose unwritten elements show: NaN, or -7 for integers (its bit
    pattern, ``2**bits - 7``, for unsigned ones)."""
    return np.full(shape, np.nan if _is_float(dtype) else _int_poison(dtype), dtype)


def unwritten(a: np.ndarray) -> bool:
    """Whether every element of ``a`` still holds the poison ``poisoned`` put there."""
    if _is_float(a.dtype):
        return bool(np.isnan(a.astype(np.float64)).all())
    return bool((a == _int_poison(a.dtype)).all())


# ------------------------------------------------------------- where in the source


def where(fn: Callable[..., Any], text: str) -> tuple[int, int]:
    """The line and 1-based column of ``text`` on the first line of ``fn``'s source that has
    it (the ``file:line:col`` an error at it starts with)."""
    lines, start = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return start + k, line.index(text) + 1
    raise AssertionError(f"{text!r} is not in {fn.__name__}")


def line_of(fn: Callable[..., Any], text: str) -> int:
    """The line of the first line of ``fn``'s source that has ``text``."""
    return where(fn, text)[0]


def marked(kernel: Any, needle: str) -> tuple[int, int]:
    """The line and 0-based column (``col_offset``) of the last ``needle`` before the ``# err``
    marker on the kernel's marked line."""
    lines, start = inspect.getsourcelines(kernel.fn)
    for k, line in enumerate(lines):
        if "# err" in line:
            return start + k, line[:line.index("# err")].rindex(needle)
    raise AssertionError(f"no '# err' marker in {kernel.fn.__name__}")


def assert_located(e: tc.TileSyntaxError, kernel: Any, needle: str,
                   fragments: Sequence[str]) -> None:
    """``e`` holds every message fragment and points at ``needle`` on the kernel's ``# err``
    line, whose source it quotes."""
    for frag in fragments:
        assert frag in e.message, f"{frag!r} not in {e.message!r}"
    line, col = marked(kernel, needle)
    assert (e.lineno, e.col_offset) == (line, col), str(e)
    assert Path(e.filename).resolve() == Path(inspect.getsourcefile(kernel.fn) or "").resolve()
    assert "# err" in str(e).splitlines()[1], str(e)


class HostTensor:
    """A minimal DLPack producer over a numpy array (stands in for a CPU torch tensor): no
    ``shape`` or ``dtype``, only ``__dlpack__`` and ``__dlpack_device__``."""

    def __init__(self, a: np.ndarray, device: tuple[int, int] = (1, 0)) -> None:
        self.a = a
        """The array it exports."""
        self.device = device
        """What ``__dlpack_device__`` says: ``(device type, id)``, 1 the CPU, 2 CUDA."""

    def __dlpack__(self, **kwargs: Any) -> Any:
        """The array's DLPack capsule."""
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """Where it claims to live."""
        return self.device


# ------------------------------------------------------------ CUDA without a GPU

_NVRTC = nvrtc_available()
needs_nvrtc = pytest.mark.skipif(_NVRTC is not None, reason=f"NVRTC unavailable: {_NVRTC}")
"""Skips a test that compiles CUDA where NVRTC cannot."""


def cuda_source(kernel: Any, *specs: Any, target: str = "cuda:sm_90",
                **constexprs: Any) -> Any:
    """The CUDA kernel ``target`` emits for ``kernel`` on arguments ``specs`` (a
    ``CUDASource``; lowered with the profile's default options, whatever GPU is here)."""
    from tilec.lower import lower_to_machine
    from tilec.targets.cuda.emitter import emit_cuda

    compiled = tc.compile(kernel, *specs, target="reference", **constexprs)
    return emit_cuda(lower_to_machine(compiled.module, target), compiled.fn_name, target)


def cubin(src: Any, arch: str) -> Any:
    """``src`` (a ``CUDASource``) compiled by NVRTC for ``arch`` (with the suffix its
    instructions need, as the launcher builds it); checked to be an ELF image."""
    if src.arch_suffix and not arch.endswith(src.arch_suffix):
        arch += src.arch_suffix
    cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes, src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF"
    return cub


class FakeDeviceArray:
    """What the CUDA launcher reads of a device array: ``__cuda_array_interface__`` only (its
    memory is never touched)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str = "<f4",
                 strides: tuple[int, ...] | None = None) -> None:
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape,
                                         "typestr": typestr, "strides": strides, "version": 3}
        """The interface: address, shape, element type, strides in bytes (None: packed)."""


def fake_driver(monkeypatch: pytest.MonkeyPatch, record: np.ndarray,
                on_launch: Callable[[tuple[Any, ...]], Sequence[int] | None]) -> list[str]:
    """Replace the driver calls of the launcher by fakes; host array ``record`` stands in for
    the device's check record.

    ``on_launch`` gets each launch's kernel arguments (each parameter slot as an integer, the
    record's address last) and returns the words the kernel writes at the record's start
    (None: it passes). The returned list collects the calls in order: ``launch``, ``copy``
    (the record to the host), ``sync`` and ``clear`` (the record set to zero)."""
    from tilec.targets.cuda.cudriver import driver as cuda_driver

    driver = cuda_driver()
    ok = driver.CUresult.CUDA_SUCCESS
    calls: list[str] = []

    def launch(f: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shared: int,
               stream: Any, params: int, extra: int) -> tuple[Any]:
        calls.append("launch")
        args = []
        k = 0
        while True:  # the launcher ends its pointer array with NULL
            slot = ctypes.c_void_p.from_address(params + 8 * k).value
            if not slot:
                break
            args.append(ctypes.c_int64.from_address(slot).value)
            k += 1
        words = on_launch(tuple(args))
        if words is not None:
            data = np.array(words, np.uint64)
            ctypes.memmove(int(args[-1]), data.ctypes.data, data.nbytes)
        return (ok,)

    def memcpy(dst: Any, src: Any, n: int, stream: Any) -> tuple[Any]:
        calls.append("copy")
        ctypes.memmove(dst, int(src), n)
        return (ok,)

    def memset(dst: Any, value: int, n: int, stream: Any = None) -> tuple[Any]:
        calls.append("clear")
        ctypes.memset(int(dst), value, n)
        return (ok,)

    def synchronize(stream: Any) -> tuple[Any]:
        calls.append("sync")
        return (ok,)

    none = driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
    for name, fake in [
            ("cuInit", lambda flags: (ok,)), ("cuDeviceGet", lambda n: (ok, n)),
            ("cuDevicePrimaryCtxRetain", lambda dev: (ok, 1)),
            ("cuCtxSetCurrent", lambda ctx: (ok,)),
            ("cuModuleLoadData", lambda image: (ok, 1)),
            ("cuModuleGetFunction", lambda mod, name: (ok, name)),
            ("cuFuncLoad", lambda f: (ok,)), ("cuFuncSetAttribute", lambda f, a, v: (ok,)),
            ("cuLaunchKernel", launch), ("cuStreamIsCapturing", lambda s: (ok, none)),
            ("cuMemAlloc", lambda n: (ok, record.ctypes.data)), ("cuMemsetD8", memset),
            ("cuMemsetD8Async", memset), ("cuMemcpyDtoHAsync", memcpy),
            ("cuStreamSynchronize", synchronize), ("cuMemFree", lambda p: (ok,))]:
        monkeypatch.setattr(driver, name, fake)
    return calls


def launchable(kernel: Any, *specs: Any, target: str = "cuda:sm_90") -> Any:
    """``kernel`` compiled for ``target`` (a cubin through NVRTC) and marked runnable, as if a
    GPU were here: with ``fake_driver`` its calls run the launcher's host side."""

    compiled = tc.compile(kernel, *specs, target=target)
    exe = compiled.executable()
    exe.runnable = True
    return exe


# --------------------------------------------------------------- the GPU (torch)


def poison(torch: Any, t: Any) -> None:
    """Fill a device output with NaN (floats) or -7 (integers) so unwritten elements show."""
    t.fill_(float("nan") if t.dtype.is_floating_point else POISON_INT)


def on_device(torch: Any, args: Sequence[Any], out: int = -1) -> list[Any]:
    """Device copies of the array arguments (the others as they are), argument ``out``
    poisoned."""
    moved = [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in args]
    poison(torch, moved[out])
    return moved


def reference_run(kernel: Any, *args: Any, written: int,
                  error: type[BaseException] = tc.UserError,
                  **constexprs: Any) -> tuple[str | None, np.ndarray]:
    """``kernel`` on the reference interpreter with argument ``written`` replaced by a poisoned
    copy: the text of the ``error`` it raised (None: it passed) and what it stored there."""
    args_ = list(args)
    args_[written] = poisoned(*args[written].shape, dtype=args[written].dtype)
    try:
        tc.interpret(kernel, *args_, **constexprs)
    except error as e:
        return str(e), args_[written]
    return None, args_[written]


def bf16_matmul_operands(torch: Any, m: int, n: int, k: int, seed: int, out: str = "f32"
                         ) -> tuple[Any, Any, Any]:
    """Random bf16 ``A`` (m x k) and ``B`` (k x n) on the GPU from ``seed``, and a NaN-filled
    ``C`` of ``out`` ("f32" or "bf16")."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
    odt = torch.float32 if out == "f32" else torch.bfloat16
    return a, b, torch.full((m, n), float("nan"), device="cuda", dtype=odt)


def matmul_matches_twice(torch: Any, kern: Any, a: Any, b: Any, c: Any,
                         want: Any = None, tol: float = 1e-4) -> None:
    """Two launches of matrix kernel ``kern(a, b, c)`` into NaN-poisoned ``c``: each matches
    ``want`` (default ``a @ b`` in float32) within ``tol`` of its largest magnitude, and the
    second is bit-identical to the first."""
    want = a.float() @ b.float() if want is None else want
    first = None
    for _ in range(2):
        c.fill_(float("nan"))
        kern(a, b, c)
        torch.cuda.synchronize()
        assert not bool(torch.isnan(c).any())
        err = float((c.float() - want).abs().max())
        assert err <= tol * max(1.0, float(want.abs().max())), err
        if first is None:
            first = c.clone()
        else:
            assert torch.equal(first, c)


def attention_args(bh: int, s: int, sk: int, d: int, seed: int = 0) -> list:
    """Arguments of ``lib.flash_attention``: random bf16 ``Q`` (``bh x s x d``), ``K`` and ``V``
    (``bh x sk x d``), a NaN-poisoned output like ``Q`` and the scale ``1 / sqrt(d)``."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((bh, n, d)).astype(ml_dtypes.bfloat16)
               for n in (s, sk, sk))
    return [q, k, v, np.full((bh, s, d), np.nan, ml_dtypes.bfloat16),
            np.float32(1 / np.sqrt(d))]
