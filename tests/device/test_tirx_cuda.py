"""``tirx:cuda`` on the GPU: every library kernel through TVM's CUDA against the reference.

The kernels are the library demos (``tilec.lib.DEMOS``), the ragged grids of the
``tirx:llvm`` parallel tests (more instances than one block's threads, a last block only
partly used, an empty grid) and a negation of signed NaNs. Each runs through tilec's CUDA
runtime on numpy arrays (copied to the device and back) with its outputs poisoned first,
and is compared with the reference interpreter as the ``tirx:llvm`` tests compare them
(sums under ``unordered_tree`` fold in order here and in a tree on the reference: within
1e-5 of the largest magnitude; NaN where the reference has NaN; the grids and the negation
exactly, the negation's sign bits included).

Two ways to get the kernels:

* where TVM is installed, ``tc.compile(..., target="tirx:cuda")`` builds them here;
* elsewhere, from artifacts built ahead of time on a machine with TVM (no GPU needed
  there) into the directory ``TILEC_TIRX_PREBUILT`` names::

      PYTHONPATH=src python tests/device/test_tirx_cuda.py --prebuild build/tirx_prebuilt

  one ``<case>.json`` per kernel (``tilec.targets.tirx.launch.save``: the launch record and
  the case's input seed and argument signature); the test loads them without TVM
  (``launch.load``) and regenerates the inputs from the seeds.

Skips, printing the reason, without a GPU tilec can run on, or without both TVM and
prebuilt artifacts.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

_TESTS = Path(__file__).resolve().parents[1]
for _p in (_TESTS, _TESTS / "unit" / "targets" / "tirx"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import tilec as tc  # noqa: E402
from paths import poisoned  # noqa: E402
from tilec.lib import DEMOS  # noqa: E402

TARGET = "tirx:cuda"
PREBUILT_ENV = "TILEC_TIRX_PREBUILT"
"""The environment variable naming a directory of prebuilt artifacts."""

ONE_THREAD = "@one-thread"
"""The suffix of a case built with one thread per instance (the fallback mapping)."""
RAGGED = (0, 1, 63, 64, 65, 1000)
RANK2 = ((13, 31), (64, 72))


@tc.kernel
def negate(X, Y):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, 8)):
        Y.tile((p * 8,), (8,)).store(-X.tile((p * 8,), (8,)).load())


def _signed_specials(n: int = 64) -> np.ndarray:
    bits = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0, 0x80000000,
                     0x7F800000, 0xFF800000], np.uint32)
    return np.resize(bits, n).view(np.float32).copy()


def cases() -> list[tuple[str, object, list, list[int], dict, int, str]]:
    """Every case: ``(id, kernel, arguments, outputs, constexprs, seed, comparison)``."""
    from test_tirx_parallel import grid1, grid2, grid_n

    out = []
    for case in DEMOS:
        args = list(case.make_inputs(np.random.default_rng(0)))
        for suffix in ("", ONE_THREAD):
            out.append((case.name + suffix, case.kernel, args, sorted(case.expected(*args)),
                        dict(case.constexprs), 0, "tolerance"))
    for n in RAGGED:
        x = np.random.default_rng(n).standard_normal(max(n, 1) * 8).astype(np.float32)
        out.append((f"grid1-{n}", grid1, [x, np.zeros_like(x)], [1], {}, n, "exact"))
        out.append((f"grid_n-{n}", grid_n, [x, np.zeros_like(x), n], [1], {}, n, "exact"))
    for shape in RANK2:
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        out.append((f"grid2-{shape[0]}x{shape[1]}", grid2, [x, np.zeros_like(x)], [1], {}, 1,
                    "exact"))
    x = _signed_specials()
    out.append(("negate-nan", negate, [x, np.zeros_like(x)], [1], {}, 0, "bits"))
    return out


def signature(args: list) -> list:
    """What an artifact must have been built for: each argument's shape and dtype, or the
    scalar's value."""
    return [[list(a.shape), str(a.dtype)] if isinstance(a, np.ndarray) else repr(a)
            for a in args]


def build(cid: str, kernel, args: list, cx: dict):
    """The executable of case ``cid``, built here (TVM needed): ``tc.compile``'s mapping, or
    one thread per instance for an ``@one-thread`` case."""
    if not cid.endswith(ONE_THREAD):
        return tc.compile(kernel, *args, target=TARGET, **cx).executable()
    from tilec.targets.tirx.backend import TirxBackend
    from tilec.targets.tirx.distribute import one_thread_per_instance

    module = tc.compile(kernel, *args, target=TARGET, **cx).compilation(until="emit").module
    with one_thread_per_instance():
        exe = TirxBackend(TARGET).compile(module, next(iter(module)).name)
    assert exe.export.mapping.startswith("one thread per instance"), exe.export.mapping
    return exe


def mapping_of(exe) -> str:
    """The thread mapping an executable was built with (from its export, or the artifact's
    record)."""
    export = getattr(exe, "export", None)
    if export is not None:
        return export.mapping
    return getattr(exe, "meta", {}).get("mapping", "unknown mapping")


def prebuild(directory: str | os.PathLike[str]) -> int:
    """Build every case's kernel (TVM and NVRTC needed, no GPU) into ``directory``;
    returns how many."""
    from tilec.targets.tirx.launch import save

    n = 0
    for cid, kernel, args, _, cx, seed, _ in cases():
        exe = build(cid, kernel, args, cx)
        save(exe, Path(directory) / f"{cid}.json",
             meta={"case": cid, "seed": seed, "signature": signature(args),
                   "mapping": mapping_of(exe)})
        n += 1
    return n


# ------------------------------------------------------------------ the test


@pytest.fixture(scope="module")
def runner():
    """How this run gets a case's kernel: built here, or loaded from a prebuilt artifact;
    skips (printing both reasons) when neither can run."""
    try:
        from tilec.targets.tirx.backend import probe_cuda
        from tilec.targets.tirx.launch import launch_probe, load
    except ImportError as e:
        pytest.skip(f"the TIRx bridge is not importable: {e}")
    why = probe_cuda()
    if why is None:
        print("tirx:cuda device tests: building with TVM here")
        return build
    folder = os.environ.get(PREBUILT_ENV)
    gpu = launch_probe()
    reason = f"cannot compile and run with TVM here ({why})"
    if gpu is not None:
        reason += f"; cannot run prebuilt kernels either ({gpu})"
    elif not folder:
        reason += f"; no prebuilt kernels ({PREBUILT_ENV} is not set)"
    elif not Path(folder).is_dir():
        reason += f"; no prebuilt kernels ({PREBUILT_ENV}={folder} is not a directory)"
    else:
        print(f"tirx:cuda device tests: prebuilt kernels from {folder} (no TVM here)")

        def from_artifact(cid, kernel, args, cx):
            path = Path(folder) / f"{cid}.json"
            if not path.is_file():
                pytest.fail(f"{path} is missing: prebuild the artifacts again")
            k = load(path)
            assert k.meta.get("signature") == signature(args), \
                f"{path} was built for other arguments: prebuild the artifacts again"
            return k

        return from_artifact
    print(f"tirx:cuda device tests skipped: {reason}")
    pytest.skip(f"tirx:cuda: {reason}")


_CASES = cases()


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_kernel_matches_reference(runner, case):
    cid, kernel, args, outs, cx, _, how = case

    def copies():
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for i in outs:
            a[i] = poisoned(*a[i].shape, dtype=a[i].dtype)
        return a

    ref, got = copies(), copies()
    tc.interpret(kernel, *ref, **cx)
    exe = runner(cid, kernel, got, cx)
    t0 = time.perf_counter()
    exe(*got)
    print(f"{cid}: {TARGET} (built for {exe.arch}, {mapping_of(exe)}) first call "
          f"{(time.perf_counter() - t0) * 1e3:.1f} ms")
    for i in outs:
        if how == "exact":
            np.testing.assert_array_equal(ref[i], got[i], err_msg=cid)
            continue
        if how == "bits":
            np.testing.assert_array_equal(ref[i].view(np.uint32) & 0x80000000,
                                          got[i].view(np.uint32) & 0x80000000, err_msg=cid)
            np.testing.assert_array_equal(np.isnan(ref[i]), np.isnan(got[i]), err_msg=cid)
            continue
        r = np.asarray(ref[i], np.float64)
        t = np.asarray(got[i], np.float64)
        assert np.array_equal(np.isnan(r), np.isnan(t)), cid
        tol = 1e-5 * max(float(np.nanmax(np.abs(r))), 1e-30)
        assert float(np.nanmax(np.abs(r - t))) <= tol, cid


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--prebuild":
        sys.exit(f"usage: {sys.argv[0]} --prebuild DIR")
    count = prebuild(sys.argv[2])
    print(f"{count} tirx:cuda kernels written to {sys.argv[2]} (set {PREBUILT_ENV} to it)")
