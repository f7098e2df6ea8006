"""``tirx:cuda`` on the GPU: every library kernel through TVM's CUDA against the reference.

Both thread mappings run: the distributed one (``tc.compile``'s: one block per instance,
the planner's threads sharing its tiles in shared memory with barriers; the printed line
says which mapping each kernel got) and one thread per instance (``distribute.
one_thread_per_instance``, built through the backend directly: ``tc.compile`` caches per
kernel, not per mapping).

The kernels are the library demos (``tilec.lib.DEMOS``), each launched by the bridge's
executable on numpy arrays (copied to the device and back) with its outputs poisoned first,
and compared with the reference interpreter as the ``tirx:llvm`` tests compare them (sums
under ``unordered_tree`` fold in order here and in a tree on the reference: within 1e-5 of
the largest magnitude; NaN where the reference has NaN). Also the ragged grids of the
``tirx:llvm`` parallel tests (more instances than one block's threads, a last block only
partly used, an empty grid). Skips, with the reason, without TVM, NVRTC or a GPU TVM sees.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from paths import poisoned
from tilec.lib import DEMOS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "targets" / "tirx"))

TARGET = "tirx:cuda"


@pytest.fixture(scope="module", autouse=True)
def tirx_cuda() -> None:
    """Skip (printing the reason) unless ``tirx:cuda`` kernels can run here."""
    try:
        from tilec.targets.tirx.backend import probe_cuda
    except ImportError as e:
        pytest.skip(f"the TIRx bridge is not importable: {e}")
    why = probe_cuda()
    if why is not None:
        print(f"tirx:cuda device tests skipped: {why}")
        pytest.skip(f"tirx:cuda cannot run here: {why}")


def _both(kernel, args, outs, **cx):
    def copies():
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for i in outs:
            a[i] = poisoned(*a[i].shape, dtype=a[i].dtype)
        return a

    ref, got = copies(), copies()
    tc.interpret(kernel, *ref, **cx)
    c = tc.compile(kernel, *got, target=TARGET, **cx)
    t0 = time.perf_counter()
    c(*got)
    first_ms = (time.perf_counter() - t0) * 1e3
    return ref, got, c, first_ms


@pytest.mark.parametrize("case", DEMOS, ids=[c.name for c in DEMOS])
def test_library_kernel_matches_reference(case):
    args = list(case.make_inputs(np.random.default_rng(0)))
    outs = sorted(case.expected(*args))
    ref, got, c, ms = _both(case.kernel, args, outs, **case.constexprs)
    print(f"{case.name}: {TARGET} ({c.executable().arch}, {c.executable().export.mapping}) "
          f"first call {ms:.1f} ms")
    _close(case.name, ref, got, outs)


@pytest.mark.parametrize("case", DEMOS, ids=[c.name for c in DEMOS])
def test_library_kernel_one_thread_per_instance_matches_reference(case):
    from tilec.targets.tirx.backend import TirxBackend
    from tilec.targets.tirx.distribute import one_thread_per_instance

    args = list(case.make_inputs(np.random.default_rng(0)))
    outs = sorted(case.expected(*args))
    ref, got, c, _ = _both(case.kernel, args, outs, **case.constexprs)
    module = c.compilation(until="emit").module
    with one_thread_per_instance():
        exe = TirxBackend(TARGET).compile(module, next(iter(module)).name)
    assert exe.export.mapping.startswith("one thread per instance"), exe.export.mapping
    for i in outs:
        got[i] = poisoned(*got[i].shape, dtype=got[i].dtype)
    exe(*got)
    _close(case.name, ref, got, outs)


def _close(name, ref, got, outs):
    for i in outs:
        r = np.asarray(ref[i], np.float64)
        t = np.asarray(got[i], np.float64)
        assert np.array_equal(np.isnan(r), np.isnan(t)), name
        tol = 1e-5 * max(float(np.nanmax(np.abs(r))), 1e-30)
        assert float(np.nanmax(np.abs(r - t))) <= tol, name


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000])
def test_ragged_grids(n):
    from test_tirx_parallel import grid1, grid_n

    x = np.random.default_rng(n).standard_normal(max(n, 1) * 8).astype(np.float32)
    ref, got, _, _ = _both(grid1, [x, np.zeros_like(x)], [1])
    np.testing.assert_array_equal(ref[1], got[1])
    ref, got, _, _ = _both(grid_n, [x, np.zeros_like(x), n], [1])
    np.testing.assert_array_equal(ref[1], got[1])


@pytest.mark.parametrize("shape", [(13, 31), (64, 72)])
def test_rank2_grid(shape):
    from test_tirx_parallel import grid2

    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ref, got, _, _ = _both(grid2, [x, np.zeros_like(x)], [1])
    np.testing.assert_array_equal(ref[1], got[1])
