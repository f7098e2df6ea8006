"""The CUDA printer of tensor copies and transaction barriers (docs/design/hopper.md)."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

import tilec as tc
from tilec.driver import compile_module
from tilec.lib import matmul
from tilec.lower import LowerOptions
from tilec.targets.cuda.emitter import emit_cuda


def _source(m: int, n: int, k: int, tma: bool = True, target: str = "cuda:sm_90",
            options: LowerOptions | None = None, bn: int = 128):
    a = np.ones((m, k), ml_dtypes.bfloat16)
    b = np.ones((k, n), ml_dtypes.bfloat16)
    c = np.zeros((m, n), np.float32)
    module = tc.compile(matmul, a, b, c, target="reference", BM=128, BN=bn, BK=64).module
    comp = compile_module(module, "matmul", target, "allocate",
                          options or LowerOptions(tma=tma, warp_specialized=False))
    return emit_cuda(comp.module, "matmul", target)


def test_tensor_maps_are_kernel_parameters_after_the_others() -> None:
    src = _source(256, 256, 256)
    kinds = [p.kind for p in src.params]
    tmaps = [p for p in src.params if p.kind == "tmap"]
    assert kinds[-len(tmaps):] == ["tmap"] * 2
    # one map per (array, box): A's 128 x 64 box, B's 64 x 64 box
    assert [(p.source, p.box, p.swizzle) for p in tmaps] == [((0, 0), (128, 64), 128),
                                                              ((1, 0), (64, 64), 128)]
    assert "const __grid_constant__ tc_tmap tc_tmap0" in src.text
    # thread 0's copies are issued predicated (atom_printers.predicatable), not branched to
    assert len(re.findall(r"tc_tma_load_2d(?:_p)?\(tc_smem_addr\(", src.text)) == 9
    assert src.text.count("tc_tma_load_2d_p(tc_smem_addr(") >= 3
    assert "tc_mbar_wait(" in src.text and "tc_mbar_expect_tx(" in src.text
    assert src.aligned16 >= {0, 1}  # the copies need 16-byte aligned bases


def test_without_tensor_copies_nothing_of_them_is_printed() -> None:
    src = _source(256, 256, 256, tma=False)
    assert not [p for p in src.params if p.kind == "tmap"]
    assert "tc_tma_load" not in src.text and "tc_mbar" not in src.text
    assert "cp.async.cg.shared.global" in src.text


def test_mbarrier_ring_prints_arrivals_and_compiles() -> None:
    """The mbarrier ring (LowerOptions.mbarrier_ring): the release is one arrive per
    warpgroup, the loop keeps no __syncthreads, and the source compiles for sm_90a without
    spills (the guarded fallback loop doubles the main loop's code)."""
    import pytest

    from tilec.targets.cuda.compiler import compile_cubin, nvrtc_available

    for bn in (128, 256):
        src = _source(256, 256, 256, options=LowerOptions(mbarrier_ring=True,
                                                          warp_specialized=False), bn=bn)
        calls = src.text.split("tc_mbar_wait(uint32_t bar")[-1]  # after the helpers
        assert calls.count("tc_mbar_arrive_p(tc_smem_addr(") == 1  # predicated on the leader
        assert "mbarrier.arrive.shared::cta.b64" in src.text
        assert calls.count("tc_mbar_init(") == 2 * 3  # the thread-0 ring's 3 versions
        why = nvrtc_available()
        if why is not None:
            pytest.skip(f"NVRTC unavailable: {why}")
        cub = compile_cubin(src.text, "sm_90" + src.arch_suffix, src.kernel, src.shared_bytes,
                            src.buffer.origin_of_line)
        r = cub.resources
        assert 0 < r.registers <= 255 and r.spill_stores == 0 and r.spill_loads == 0, str(r)


def test_ptxas_keeps_the_wgmma_pipeline_of_the_rings(tmp_path) -> None:
    """ptxas serializes every wgmma of a kernel (remarks C7514/C7515/C7518) when it finds a
    thread branching, or accumulators moved, while a group is in flight, and injects a full
    wait (remark C7517) where it cannot follow which groups a path left in flight. The ring
    variants that leave a group in flight must give it no reason for either (checked with
    nvcc's ptxas)."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    for opts, bn in ((LowerOptions(mbarrier_ring=True, warp_specialized=False), 128),
                     (LowerOptions(mbarrier_ring=True, warp_specialized=False), 256),
                     (LowerOptions(warp_specialized=True), 128),
                     (LowerOptions(warp_specialized=True), 256),
                     (LowerOptions(wgmma_in_flight=1, warp_specialized=False), 128)):
        src = _source(256, 256, 256, options=opts, bn=bn)
        cu = tmp_path / "k.cu"
        cu.write_text(src.text)
        p = subprocess.run(["nvcc", "-arch=sm_90a", "-cubin", "-Xptxas", "-v", "-o",
                            str(tmp_path / "k.cubin"), str(cu)], capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        assert "are serialized" not in p.stderr and "C7517" not in p.stderr, (opts, bn, [
            line for line in p.stderr.splitlines() if "C75" in line])


def test_only_straight_line_copy_blocks_are_predicated() -> None:
    """``predicatable``: index arithmetic and barrier/copy atoms only; never a wait, a
    division by a value, or an else with work."""
    from tilec.targets.cuda.atom_printers import predicatable

    src = _source(256, 256, 256, options=LowerOptions(mbarrier_ring=True,
                                                      warp_specialized=False))
    assert "tc_mbar_wait_p" not in src.text
    a = np.ones((256, 256), ml_dtypes.bfloat16)
    c = np.zeros((256, 256), np.float32)
    module = tc.compile(matmul, a, a, c, target="reference", BM=128, BN=128, BK=64).module
    comp = compile_module(module, "matmul", "cuda:sm_90", "allocate",
                          LowerOptions(mbarrier_ring=True, warp_specialized=False))
    ifs = [op for op in comp.module.walk() if op.name == "if"]
    ok = [op for op in ifs if predicatable(op)]
    assert ok and len(ok) < len(ifs)
    for op in ok:
        body = op.regions[0].entry.operations
        assert all(o.attr("catalog_id") != "mbarrier.wait" for o in body)
        assert not [o for o in op.regions[1].entry.operations if o.name != "yield"]
    # an if whose body waits stays a branch
    assert any(any(o.name == "atom.call" and o.attr("catalog_id") == "mbarrier.wait"
                   for o in op.regions[0].entry.operations) and not predicatable(op)
               for op in ifs)


def test_a_division_by_a_value_keeps_the_branch() -> None:
    """A copy block whose arithmetic divides by a value (it may be zero where the predicate
    is false) is not predicated; by a nonzero constant it is."""
    import importlib.util
    from pathlib import Path

    from tilec.targets.cuda.atom_printers import predicatable

    path = Path(__file__).resolve().parents[1] / "simt" / "simtir.py"
    spec = importlib.util.spec_from_file_location("simtir_for_cuda", path)
    simtir = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(simtir)

    def block(divisor: str) -> bool:
        body = f"""
        %bar = view(%bars, %c0) {{bounds = "total", map = #map<(d0)[s0] -> (d0 + s0)>}}
            : mem<1xi64, shared>
        %z = arith(%tid, %c0) {{fn = "eq"}} : i1
        if(%z) ({{
          %q = arith(%tid, {divisor}) {{fn = "rem"}} : index
          %b = view(%bars, %q) {{bounds = "total", map = #map<(d0)[s0] -> (d0 + s0)>}}
              : mem<1xi64, shared>
          %a = atom.call(%b) {{catalog_id = "mbarrier.arrive"}} : token
          yield()
        }}, {{
          yield()
        }})
        """
        m = simtir.machine(body, shared="%bars = memory() : mem<2xi64, shared>")
        ifs = [op for op in m.walk() if op.name == "if"]
        return predicatable(ifs[-1])

    assert block("%c2")
    assert not block("%lane")
