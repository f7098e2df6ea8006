"""Every Machine sample compiles to a cubin for sm_80 and sm_90 through NVRTC (no GPU needed)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from cuda_machine_ir import SAMPLES

import machine_samples as shared
from tilec.targets.cuda import compiler
from tilec.targets.cuda.compiler import (
    CUDACompileError,
    compile_cubin,
    nvrtc_available,
    parse_resources,
)
from tilec.targets.cuda.emitter import emit_cuda

_WHY = nvrtc_available()
needs_nvrtc = pytest.mark.skipif(_WHY is not None, reason=f"NVRTC unavailable: {_WHY}")

ARCHS = ("sm_80", "sm_90")


def _all_sources():
    for name, s in sorted(SAMPLES.items()):
        yield name, lambda s=s: emit_cuda(s.module(), s.name)
    for name, build in sorted(shared.MACHINE_SAMPLES.items()):
        fn = shared.SAMPLE_CASES[name].fn_name
        yield f"shared:{name}", lambda b=build, f=fn: emit_cuda(b(), f)


@needs_nvrtc
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name,make", list(_all_sources()), ids=[n for n, _ in _all_sources()])
def test_sample_compiles_without_spills(name: str, make, arch: str) -> None:
    src = make()
    cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes, src.buffer.origin_of_line)
    assert cub.data[:4] == b"\x7fELF" and cub.arch == arch
    r = cub.resources
    assert 0 < r.registers <= 255
    assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack_frame == 0, str(r)
    assert r.dynamic_shared == src.shared_bytes


@needs_nvrtc
def test_compile_error_shows_source_and_op() -> None:
    src = emit_cuda(SAMPLES["gemm_mma_bf16"].module(), "gemm_mma_bf16")
    broken = re.sub(r'"r"\((\w+)\.w\[0\]\)', r'"r"(tc_pack17(\1.w[0]))', src.text, count=1)
    assert broken != src.text
    with pytest.raises(CUDACompileError) as info:
        compile_cubin(broken, "sm_90", src.kernel, 0, src.buffer.origin_of_line)
    msg = str(info.value)
    assert "tc_pack17" in msg and "identifier" in msg
    assert "generated source around line" in msg and "emitted for TileIR atom.call#" in msg
    assert ">" in msg.split("generated source around line")[1]


@needs_nvrtc
def test_disk_cache_hits_and_rebuilds_corrupt_entries() -> None:
    src = emit_cuda(SAMPLES["add_f32"].module(), "add_f32")
    first = compile_cubin(src.text, "sm_80", src.kernel)
    compiler._mem.clear()
    again = compile_cubin(src.text, "sm_80", src.kernel)
    assert again.cached and again.data == first.data and again.resources == first.resources
    path = compiler.cache_dir() / first.key[:2] / f"{first.key}.cubin"
    path.write_bytes(b"garbage")
    compiler._mem.clear()
    rebuilt = compile_cubin(src.text, "sm_80", src.kernel)
    assert not rebuilt.cached and rebuilt.data == first.data
    assert path.read_bytes() == first.data
    other = compile_cubin(src.text, "sm_90", src.kernel)
    assert other.key != first.key


def test_parse_resources() -> None:
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'other' for 'sm_90'
ptxas info    : Used 99 registers, used 1 barriers, 64 bytes smem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
"""
    r = parse_resources(log, "k", "sm_90", 4096)
    assert (r.registers, r.stack_frame, r.spill_stores, r.spill_loads) == (40, 16, 8, 4)
    assert (r.static_shared, r.dynamic_shared, r.shared, r.barriers) == (1024, 4096, 5120, 1)
    assert r.reported and "40 registers" in str(r)


def test_missing_register_report_is_unknown_not_zero() -> None:
    log = "ptxas info    : 0 bytes gmem\n"  # no report for the kernel (an image built before)
    r = parse_resources(log, "k", "sm_90", 2048)
    assert not r.reported
    assert "not reported" in str(r) and "0 registers" not in str(r)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", ["gemm_smem_bf16", "softmax_rows", "add_bf16"])
def test_nvcc_accepts_the_same_source(tmp_path, name: str) -> None:
    """The prelude also works under nvcc (which includes cuda_runtime.h itself)."""
    s = SAMPLES[name]
    src = emit_cuda(s.module(), s.name)
    cu = tmp_path / "k.cu"
    cu.write_text(src.text)
    p = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "--fmad=false", "-o",
                        str(tmp_path / "k.cubin"), str(cu)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr


def _lowered_cases() -> list:
    from tilec.lib import DEMOS

    return list(DEMOS)


@needs_nvrtc
@pytest.mark.parametrize("profile", ["cuda:sm_80", "cuda:sm_90"])
@pytest.mark.parametrize("case", _lowered_cases(), ids=lambda c: c.name)
def test_library_kernel_compiles(case, profile: str) -> None:
    """Every library kernel, lowered for the profile, compiles for its architecture."""
    import numpy as np

    import tilec
    from tilec.driver import lower_for

    args = list(case.make_inputs(np.random.default_rng(0)))
    compiled = tilec.compile(case.kernel, *args, target="reference", **case.constexprs)
    try:
        machine = lower_for(compiled.module, compiled.fn_name, profile)
    except Exception as e:  # the lowering's own limits are its tests' business
        pytest.skip(f"lowering does not handle {case.name} yet: {type(e).__name__}: "
                    f"{str(e).splitlines()[0][:200]}")
    src = emit_cuda(machine, compiled.fn_name, profile)
    arch = profile.split(":")[1] + src.arch_suffix  # sm_90a for warpgroup instructions
    cub = compile_cubin(src.text, arch, src.kernel, src.shared_bytes, src.buffer.origin_of_line)
    assert cub.resources.registers > 0


def test_cache_key_ignores_origin_comments_only() -> None:
    from tilec.targets.cuda.compiler import cache_key

    body = "extern \"C\" __global__ void k(float *x) {\n  x[0] = 1.0f;\n}\n"
    a = "  /* tilec: constant#58 at m.py:26:31 */\n" + body
    b = "  /* tilec: constant#506 at m.py:26:31 */\n" + body
    assert cache_key(a, "sm_90") == cache_key(b, "sm_90") == cache_key(body, "sm_90")
    assert cache_key(body.replace("1.0f", "2.0f"), "sm_90") != cache_key(body, "sm_90")
    assert cache_key(body, "sm_80") != cache_key(body, "sm_90")


@needs_nvrtc
def test_one_kernel_compiled_twice_in_a_process_hits_the_cache(tmp_path, monkeypatch) -> None:
    import ml_dtypes
    import numpy as np

    import tilec
    import tilec.lower as lower
    from tilec.lib.matmul import matmul

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    keys = []
    for n in (96, 80):  # different specializations of one shape-generic kernel
        a = np.empty((n, n), ml_dtypes.bfloat16)
        c = np.empty((n, n), np.float32)
        comp = tilec.compile(matmul, a, a, c, target="reference")
        src = emit_cuda(lower.lower_to_machine(comp.module, "cuda:sm_90"), comp.fn_name)
        keys.append(compile_cubin(src.text, "sm_90", src.kernel, src.shared_bytes).key)
    assert keys[0] == keys[1]
