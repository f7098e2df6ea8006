"""Solver basics and the planner's hygiene: no global mutable state, no clocks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tilec.exec
import tilec.plan as plan


def test_solver_reports_reasons_and_counters() -> None:
    empty = plan.solve_problem(plan.Problem(32, ((plan.Option(1.0, 0),), ()), 0, None))
    assert empty.best is None and "operation 1 has no legal candidate" in empty.reason
    p = plan.Problem(64, ((plan.Option(3.0, 0), plan.Option(3.0, 4), plan.Option(5.0, 8)),),
                     10, None, offset=2.0, scale=2.0)
    r = plan.solve_problem(p)
    # equal scores: the state releasing more bytes dominates
    assert r.best.choices == (1,) and r.best.score == (3.0 + 2.0) * 2.0
    assert r.counters.states_generated == 3 and r.counters.states_dominated == 1
    with pytest.raises(ValueError, match="scale"):
        plan.Problem(1, (), 0, None, scale=0.0)


def test_ties_across_thread_counts_go_to_the_first() -> None:
    same = ((plan.Option(1.0, 0),),)
    best, results, counters = plan.solve([plan.Problem(32, same, 0, None),
                                          plan.Problem(64, same, 0, None)])
    assert best.key == 32 and len(results) == 2 and counters.problems == 2


_SOURCES = sorted(Path(plan.__file__).parent.rglob("*.py")) \
    + sorted(Path(tilec.exec.__file__).parent.rglob("*.py"))


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: p.name)
def test_no_clocks_no_globals_no_mutable_module_state(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any(n.split(".")[0] in ("time", "datetime", "random") for n in names), \
                f"{path.name} imports a clock or randomness"
        assert not isinstance(node, (ast.Global, ast.Nonlocal)), f"{path.name} rebinds globals"
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            assert not isinstance(node.value, (ast.Dict, ast.List, ast.Set, ast.DictComp,
                                               ast.ListComp, ast.SetComp)), \
                f"{path.name}:{node.lineno} module-level mutable container"
