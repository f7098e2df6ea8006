"""``tirx:cuda`` and ``tirx:metal``: TVM's CUDA and Metal source of the bridge's GPU PrimFunc.

No GPU is needed: every library kernel's CUDA source is generated (TVM builds it with NVRTC
for ``sm_90a``) and compiled again with ``nvcc -arch=sm_90a -c`` when nvcc is here; an
instance is a block whose threads share it (``test_tirx_gpu_threads.py``), or, where its
tiles do not fit shared memory, runs on one thread; what the GPU form cannot hold is
refused at the user's line with the construct and the reason. ``tests/device/
test_tirx_cuda.py`` runs the kernels on a GPU.
"""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from tilec.lib import DEMOS
from tilec.targets.clike import UnsupportedError

CUDA = "tirx:cuda"


def _nvrtc_or_skip():
    from tilec.targets.tirx.backend import build_cuda_probe

    why = build_cuda_probe()
    if why is not None:
        pytest.skip(f"tirx:cuda cannot build here: {why}")


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for p in sorted(Path("/usr/local").glob("cuda*/bin/nvcc"), reverse=True):
        return str(p)
    return None


def _source(case, target):
    args = list(case.make_inputs(np.random.default_rng(0)))
    return tc.compile(case.kernel, *args, target=target, **case.constexprs).source


def test_every_library_kernel_has_cuda_source_that_nvcc_compiles(tmp_path):
    _nvrtc_or_skip()
    sources = {case.name: _source(case, CUDA) for case in DEMOS}
    for name, src in sources.items():
        assert 'extern "C" __global__' in src and "__launch_bounds__(" in src, name
        assert "blockIdx.x" in src and "threadIdx.x" in src, name
        # distributed (shared tiles, barriers) but the one whose tiles exceed 48 KiB
        one_thread = name == "lib.flash_attention_bf16"
        assert ("__shared__" in src and "__syncthreads()" in src) != one_thread, name
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: the sources were built with NVRTC only")

    def compile_one(item):
        name, src = item
        cu = tmp_path / f"{name}.cu"
        cu.write_text(src)
        p = subprocess.run([nvcc, "-arch=sm_90a", "-c", str(cu), "-o", str(cu) + ".o"],
                           capture_output=True, text=True, timeout=300)
        return name, p.returncode, p.stderr

    with ThreadPoolExecutor(2) as pool:
        for name, rc, err in pool.map(compile_one, sources.items()):
            assert rc == 0, f"{name}: nvcc failed\n{err[-2000:]}"


def test_the_build_puts_tvms_compile_hook_back():
    _nvrtc_or_skip()
    import tvm

    before = tvm.get_global_func("tvm_callback_cuda_compile", allow_missing=True)
    _source(DEMOS[0], CUDA)
    after = tvm.get_global_func("tvm_callback_cuda_compile", allow_missing=True)
    assert (before is None) == (after is None)
    if before is not None:
        assert before.same_as(after) if hasattr(before, "same_as") else True


# ------------------------------------------------------------------ refusals


@tc.kernel
def two_nests(X, Y):
    for _ in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (4,)).load())
    for _ in tc.parallel(1):
        Y.tile((4,), (4,)).store(X.tile((4,), (4,)).load())


@tc.kernel
def counted(C, n):
    for _ in tc.parallel(n):
        C.tile((0,), (8,)).atomic_add(tc.full((8,), 1, tc.int32))


@tc.kernel
def checked_inside(X, k):
    for p in tc.parallel(2):
        assert k < 3 + p, "k too large"
        X.tile((p * 4,), (4,)).store(X.tile((p * 4,), (4,)).load() + 1)


@tc.kernel
def divides_inside(X, d):
    for p in tc.parallel(2):
        X.tile((p * 4,), (4,)).store(X.tile((p * 4,), (4,)).load() // (d + p))


@tc.kernel
def host_checked(X, k):
    assert k > 0, "k must be positive"
    for p in tc.parallel(2):
        X.tile((p * 4,), (4,)).store(X.tile((p * 4,), (4,)).load() * k)


def _refusal(kernel, *args):
    with pytest.raises(UnsupportedError) as info:
        _ = tc.compile(kernel, *args, target=CUDA).source
    return str(info.value)


def test_refusals_name_the_construct_the_reason_and_the_line():
    _nvrtc_or_skip()
    x = np.zeros(8, np.int32)
    text = _refusal(two_nests, x, x.copy())
    assert "second top-level tc.parallel" in text and "one launch" in text
    assert "for _ in tc.parallel(1):" in text
    text = _refusal(counted, x, 4)
    assert "'atomic' inside a GPU program" in text and "atomic_add" in text
    text = _refusal(checked_inside, x, 1)
    assert "'check' may fail at run time" in text and "assert k < 3 + p" in text
    text = _refusal(divides_inside, x, 1)
    assert "may fail at run time" in text and "// (d + p)" in text


def test_host_checks_stay_on_the_host():
    _nvrtc_or_skip()
    src = tc.compile(host_checked, np.zeros(8, np.int32), 2, target=CUDA).source
    assert "__global__" in src


# ------------------------------------------------------------------ metal

METAL = "tirx:metal"


def _checker_or_skip():
    from tilec.targets.metal.check import checker_unavailable

    why = checker_unavailable()
    if why is not None:
        pytest.skip(f"the Metal check cannot run here: {why}")


def test_every_library_kernel_has_checked_metal_source_or_a_located_refusal():
    _checker_or_skip()
    from tilec.targets.metal.check import check_msl

    refused = {}
    for case in DEMOS:
        try:
            src = _source(case, METAL)
        except UnsupportedError as e:
            refused[case.name] = str(e)
            continue
        assert "kernel void" in src and "threadgroup_position_in_grid" in src, case.name
        assert "double" not in src, case.name
        check_msl(src)  # the build checked it; the check is the Metal target's
    # erf has no metal::precise form (the GELU's): refused at the user's line
    assert set(refused) == {"lib.gemm_bias_gelu"}
    text = refused["lib.gemm_bias_gelu"]
    assert "'erf' has no f32 form in metal::precise" in text and "matmul.py:" in text


@tc.kernel
def doubles(X, Y):
    for _ in tc.parallel(1):
        Y.tile((0,), (4,)).store(X.tile((0,), (4,)).load() * 2.0)


@tc.kernel
def transcendental(X, Y):
    for _ in tc.parallel(1):
        x = X.tile((0,), (8,)).load()
        Y.tile((0,), (8,)).store(tc.exp(x) + tc.tanh(x))


def test_metal_has_no_f64_and_uses_precise_functions():
    _checker_or_skip()
    x = np.zeros(8, np.float64)
    with pytest.raises(UnsupportedError, match="an f64 value: Metal has no double") as info:
        _ = tc.compile(doubles, x, x.copy(), target=METAL).source
    assert "Y.tile((0,), (4,)).store" in str(info.value) or "X.tile" in str(info.value)
    x32 = np.zeros(8, np.float32)
    src = tc.compile(transcendental, x32, x32.copy(), target=METAL).source
    assert "precise::exp(" in src and "precise::tanh(" in src
    c = tc.compile(transcendental, x32, x32.copy(), target=METAL)
    with pytest.raises(tc.TargetUnavailable, match="source only"):
        c(x32, x32.copy())
