"""Golden MSL of every ``tilec.lib`` demo kernel and of the examples' gather kernel on
``metal:m1`` (default plan: lane FFMA for matrices). The checks of these sources are
``test_metal_emit.py``'s; these files are what a reviewer reads when the emitter's output
changes. ``TILEC_UPDATE_GOLDEN=1`` rewrites them."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from tilec.demo import DemoCase, all_cases

GOLDEN_DIR = Path(__file__).parent / "golden" / "lib"
EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
EXAMPLE_SUBJECTS = ("examples.embedding",)
"""Examples whose kernels no library kernel covers (the others repeat ``tilec.lib``'s)."""


def _subjects() -> list[DemoCase]:
    cases = all_cases(EXAMPLES if EXAMPLES.is_dir() else None)
    return [c for c in cases if c.name.startswith("lib.") or c.name in EXAMPLE_SUBJECTS]


def _normalized(text: str) -> str:
    """The kernel function with operation ids numbered from 1 in order of appearance (they
    are process-wide counters) and the source lines of the op comments dropped (editing a
    library file must not change its kernel's golden; the file name stays)."""
    text = text[text.index("kernel void"):]
    ids: dict[str, str] = {}
    text = re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)),
                  text)
    return re.sub(r"(/\* tilec: .*? at [^ :]+\.py):\d+:\d+ \*/", r"\1 */", text)


@pytest.mark.parametrize("case", _subjects(), ids=lambda c: c.name)
def test_library_kernel_golden_msl(case: DemoCase) -> None:
    args = list(case.make_inputs(np.random.default_rng(0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tc.PerformanceWarning)
        exe = tc.compile(case.kernel, *args, target="metal:m1", **case.constexprs).executable()
    kernel = _normalized(exe.source)
    path = GOLDEN_DIR / f"{case.name}.metal"
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        path.write_text(kernel)
    assert path.exists(), f"no golden MSL for {case.name}: TILEC_UPDATE_GOLDEN=1 writes it"
    assert kernel == path.read_text(), \
        f"emitted MSL of {case.name} changed; review and regenerate {path.name}"


def test_every_library_demo_has_a_golden_file() -> None:
    """A kernel added to ``tilec.lib.DEMOS`` needs its golden; a removed one, its file gone."""
    want = {f"{c.name}.metal" for c in _subjects()}
    assert {p.name for p in GOLDEN_DIR.glob("*.metal")} == want
