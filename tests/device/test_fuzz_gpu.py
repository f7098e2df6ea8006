"""GPU fuzzing campaign: thousands of generated programs (fixed seed) on the device, each
compared with the reference interpreter; no mismatch and no internal error.

Workers capture, lower and compile (one per core); this process launches. The counts are
printed (run with -s to see them) and written to ``$TILEC_FUZZ_JSON`` when set.
"""

from __future__ import annotations

import os

import pytest

from tilec.testing.fuzz.campaign import records, run_campaign, write_json
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS

pytestmark = pytest.mark.usefixtures("torch_cuda")

SEED = 20261202
PROGRAMS = int(os.environ.get("TILEC_FUZZ_GPU_PROGRAMS", "2000"))


def test_gpu_campaign(tmp_path) -> None:
    camp = run_campaign(PROGRAMS, SEED, ("reference", "cuda"), dict(DEFAULT_WEIGHTS),
                        out_dir=os.environ.get("TILEC_FUZZ_OUT", str(tmp_path / "failures")),
                        jobs=max(1, (os.cpu_count() or 2) - 1), timeout=120,
                        shrink_trials=60, shrink_seconds=120, max_shrinks=4)
    print(camp.table())
    if os.environ.get("TILEC_FUZZ_JSON"):
        write_json(os.environ["TILEC_FUZZ_JSON"],
                   records(camp, ["pytest tests/device/test_fuzz_gpu.py"], None))
    assert camp.programs == PROGRAMS
    c = camp.counts["cuda"]
    assert c.programs == PROGRAMS
    files = sorted({f.file for f in camp.failures if f.file})
    assert c.mismatch == 0 and not c.internal and c.timeout == 0, \
        f"cuda: {c.mismatch} mismatches, {dict(c.internal)} internal, {c.timeout} timeouts; " \
        f"launching process restarts: {dict(camp.gpu_restarts)}; shrunk: {files}"
