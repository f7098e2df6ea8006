"""The distributed GPU form of the bridge (``distribute``): one block per instance, the
planner's thread count sharing it, tiles in shared memory with barriers.

No GPU here: the structure of the generated CUDA (thread bindings, shared tiles, barriers,
the block size the schedule chose), the fallbacks to one thread per instance with their
reasons, and a CPU check of the element loops themselves: with ``threadIdx.x`` replaced by
a serial loop (an element loop has no barrier inside), every element of every tile is
handled by exactly one thread, for the layouts the schedule gives the library kernels and
for the strided fallback. Whether the barriers are placed right is left to the device test
(``tests/device/test_tirx_cuda.py`` runs both mappings against the reference): serializing
the threads between barriers on the CPU would test the serialization, not the kernel.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec as tc
import tilec.ir as ir
from tilec.lib import DEMOS

CUDA = "tirx:cuda"
_CASES = {c.name: c for c in DEMOS}


def _build_or_skip():
    from tilec.targets.tirx.backend import build_cuda_probe

    why = build_cuda_probe()
    if why is not None:
        pytest.skip(f"tirx:cuda cannot build here: {why}")


def _candidate(name):
    case = _CASES[name]
    args = list(case.make_inputs(np.random.default_rng(0)))
    comp = tc.compile(case.kernel, *args, target="tirx:llvm", **case.constexprs)
    module = comp.compilation(until="emit").module
    return module, next(iter(module)).name


def _cuda(name):
    """``(export, CUDA source)`` of library kernel ``name`` (the current mapping)."""
    from tilec.targets.tirx.device import build_cuda
    from tilec.targets.tirx.exporter import export

    module, fn = _candidate(name)
    out = export(module, fn, CUDA)
    src = build_cuda(out, module.lookup(fn), CUDA).source
    return out, src


def _group_threads(name):
    from tilec.targets.tirx.distribute import schedule

    module, fn = _candidate(name)
    f = schedule(module, CUDA).lookup(fn)
    return next(op.attr("threads") for op in f.walk() if op.name == "parallel")


@pytest.mark.parametrize("name", ["lib.matmul", "lib.softmax", "lib.layernorm"])
def test_library_kernels_share_each_instance_over_the_planned_threads(name):
    _build_or_skip()
    out, src = _cuda(name)
    threads = _group_threads(name)
    assert out.mapping == f"distributed: one block per instance, {threads} threads a block"
    assert f"__launch_bounds__({threads})" in src
    assert "threadIdx.x" in src and "blockIdx.x" in src
    assert "__shared__" in src and "__syncthreads()" in src
    # the instance is the block: no `blockIdx.x * 64 + threadIdx.x` of the old mapping
    assert not re.search(r"blockIdx\.x\)\) \* \(int64_t\)64\)", src)


def test_the_gemm_follows_the_planned_accumulator_layout():
    """The mma's element loop runs over the registers of the layout the schedule gave its
    result: ``local`` iterations per thread, not the strided fallback's."""
    _build_or_skip()
    from tilec.targets.tirx.distribute import layout_of_result, schedule
    from tilec.targets.tirx.exporter import export

    module, fn = _candidate("lib.matmul")
    f = schedule(module, CUDA).lookup(fn)
    mma = next(op for op in f.walk() if op.name == "mma")
    lay = layout_of_result(mma)
    assert lay is not None and not lay.replicated
    assert lay.local > 1 and lay.threads == _group_threads("lib.matmul")
    text = export(module, fn, CUDA).text
    assert f"in range(T.int64({lay.local})):" in text


def test_one_thread_per_instance_on_request():
    _build_or_skip()
    from tilec.targets.tirx.distribute import one_thread_per_instance

    with one_thread_per_instance():
        out, src = _cuda("lib.matmul")
    assert out.mapping == "one thread per instance: requested (one_thread_per_instance)"
    assert "__launch_bounds__(64)" in src
    assert "__shared__" not in src and "__syncthreads" not in src


def test_tiles_over_the_shared_limit_keep_one_thread_per_instance():
    _build_or_skip()
    out, src = _cuda("lib.flash_attention_bf16")
    assert out.mapping.startswith("one thread per instance: its tiles need more than 49152 "
                                  "bytes of shared memory")
    assert "__launch_bounds__(64)" in src and "__shared__" not in src


def test_a_schedule_failure_keeps_one_thread_per_instance(monkeypatch):
    _build_or_skip()
    import tilec.lower

    def refuse(*a, **k):
        raise tilec.lower.LoweringError("no schedule for this group")

    monkeypatch.setattr(tilec.lower, "lower_to_scheduled", refuse)
    out, _ = _cuda("lib.row_sum")
    assert out.mapping == ("one thread per instance: the cuda:sm_90 schedule failed: no "
                           "schedule for this group")


# ------------------------------------------------------- the element loops on the CPU


def _layouts():
    """Every distinct non-replicated layout the schedule gives library kernels' tiles."""
    from tilec.ir import dist_layout as L
    from tilec.targets.tirx.distribute import schedule

    seen = {}
    for name in ("lib.matmul", "lib.softmax", "lib.layernorm", "lib.flash_attention",
                 "lib.einsum_matmul", "lib.transpose"):
        module, fn = _candidate(name)
        for op in schedule(module, CUDA).lookup(fn).walk():
            attr = op.attr("layout")
            for lay in attr if isinstance(attr, tuple) else (attr,):
                if isinstance(lay, L.DistLayout) and not lay.replicated and lay.rank:
                    seen[str(lay)] = lay
    return list(seen.values())


def _coverage(layout, shape, threads):
    """Run ``distribute.elements`` with ``threadIdx.x`` as a serial loop on LLVM: how many
    times each element of ``shape`` is handled."""
    import tvm
    from tvm.script.ir_builder import IRBuilder
    from tvm.tirx.script.builder import ir as T

    from tilec.targets.tirx import distribute as D
    from tilec.targets.tirx.exporter import _Exporter

    fn = ir.Function("f", [], [])
    x = _Exporter(fn, CUDA)
    n = int(np.prod(shape))
    with IRBuilder() as ib:
        with T.prim_func():
            T.func_name("cover")
            h = T.arg("count", T.handle())
            count = T.match_buffer(h, (n,), "int32")
            with T.serial(0, threads) as t:
                x.device = True
                x.dist = D.Distribution(threads, x.bind(x.tx.Cast("int64", t)), "local")
                with D.elements(x, shape, layout) as idx:
                    flat = x.i64(0)
                    for c, e in zip(idx, shape):
                        flat = flat * x.i64(e) + c
                    T.buffer_store(count, count[flat] + 1, [flat])
    lib = tvm.compile(tvm.IRModule({"cover": ib.get()}), target="llvm")
    out = tvm.runtime.tensor(np.zeros(n, np.int32))
    lib["cover"](out)
    return out.numpy()


def test_every_element_is_handled_by_exactly_one_thread():
    from tilec.targets.tirx.backend import probe

    if probe() is not None:
        pytest.skip(probe())
    from tilec.targets.tirx.distribute import usable

    layouts = _layouts()
    assert len(layouts) >= 4
    for lay in layouts:
        assert usable(lay, lay.shape, lay.threads), lay
        counts = _coverage(lay, lay.shape, lay.threads)
        assert (counts == 1).all(), f"{lay}: {np.bincount(counts)}"
    for shape, threads in [((5, 7), 32), ((128,), 128), ((3, 40, 2), 64), ((16, 16), 256)]:
        counts = _coverage(None, shape, threads)  # the strided fallback
        assert (counts == 1).all(), (shape, threads)
