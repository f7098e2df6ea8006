"""The ``gather`` fuzz family (data-dependent addresses): off by default, so default streams
do not change; named, its programs hold gathers, scalar reads used as window origins and
scatter_adds, and every path agrees with the model."""

from __future__ import annotations

import re

from tilec.testing.fuzz.__main__ import _weights
from tilec.testing.fuzz.campaign import program_seed
from tilec.testing.fuzz.choices import ChoiceStream
from tilec.testing.fuzz.generator import DEFAULT_WEIGHTS, generate
from tilec.testing.fuzz.runner import run_program

PATHS = ["reference", "cpu", "simt:cuda:sm_90", "simt:metal:m1"]
READ = re.compile(r"(q\d+) = X\d+\[[^\]]+\] % \d")


def _agrees(outcome, path: str) -> bool:
    """ok, or metal:m1's refusals (no f64, no atomics: the target refuses alike)."""
    return outcome.kind == "ok" or (path == "simt:metal:m1" and outcome.kind == "rejected"
                                    and ("-bit floating point" in outcome.reason
                                         or "atomic" in outcome.reason))


def test_the_family_is_off_by_default() -> None:
    assert DEFAULT_WEIGHTS["gather"] == 0
    for i in range(40):
        src = generate(ChoiceStream(program_seed(3, i)), dict(DEFAULT_WEIGHTS)).source()
        assert "tc.gather" not in src and "tc.scatter" not in src and not READ.search(src)


def test_gather_programs_agree_on_every_path(tmp_path) -> None:
    w = _weights("gather=4,windows,elementwise")
    progs = [generate(ChoiceStream(program_seed(11, i)), w) for i in range(30)]
    srcs = [p.source() for p in progs]
    assert sum("tc.gather(" in s for s in srcs) >= 5
    assert sum("tc.scatter_add(" in s for s in srcs) >= 2
    used = [s for s in srcs for m in READ.finditer(s) if s.count(m.group(1)) > 1]
    assert used, "no scalar read used in an origin"
    picked = [p for p in progs if "tc.gather(" in p.source()][:3] \
        + [p for p in progs if "tc.scatter_add(" in p.source()][:1] \
        + [p for p, s in zip(progs, srcs) if s in used][:2]
    for prog in picked:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])


def _nodes(x, seen=None):
    """Every generated statement and expression reachable from ``x``."""
    import dataclasses

    seen = set() if seen is None else seen
    if id(x) in seen or not dataclasses.is_dataclass(x):
        return
    seen.add(id(x))
    yield x
    for f in dataclasses.fields(x):
        v = getattr(x, f.name)
        for y in v if isinstance(v, (list, tuple)) else (v,):
            yield from _nodes(y, seen)


def test_unsigned_indices_and_sums_agree_on_every_path(tmp_path) -> None:
    """With the ``unsigned`` feature some gathers and scatter_adds take unsigned indices
    (never negative: zero-extended) and some scatter_adds update ``u32`` memory."""
    from tilec.testing.fuzz.gen_gather import Gather, ScatterAdd

    w = _weights("gather=4,unsigned=2,windows,elementwise")
    progs = [generate(ChoiceStream(program_seed(13, i)), w) for i in range(40)]

    def has(p, pred) -> bool:
        return any(pred(n) for s in p.body for n in _nodes(s))

    uidx = [p for p in progs if has(p, lambda n: isinstance(n, (Gather, ScatterAdd))
                                    and n.idx.dt.is_unsigned)]
    usum = [p for p in progs
            if any(isinstance(n, ScatterAdd) and q.name == n.param and q.dt.name == "u32"
                   for s in p.body for n in _nodes(s) for q in p.params)]
    assert len(uidx) >= 3 and usum
    for prog in uidx[:3] + usum[:1]:
        res = run_program(prog, PATHS, str(tmp_path))
        for path in PATHS:
            assert _agrees(res.outcomes[path], path), (prog.source(), path,
                                                       res.outcomes[path])
