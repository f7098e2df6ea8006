"""AnalysisManager: caching, dependencies first, dependency-aware invalidation."""

from __future__ import annotations

import pytest

from tilec.ir import Analysis, AnalysisManager, Function, Module, f32
from tilec.ir.analysis import AnalysisCycleError

LOG: list[str] = []


class Base(Analysis):
    def __init__(self, root):
        self.root = root
        LOG.append(type(self).__name__)


class A(Base):
    pass


class B(Base):
    depends_on = (A,)

    @classmethod
    def compute(cls, root, am):
        self = cls(root)
        self.a = am.get(A)  # dependencies are already cached: no recomputation
        return self


class C(Base):
    depends_on = (B,)


class D(Base):
    name = "dee"


@pytest.fixture
def am():
    LOG.clear()
    return AnalysisManager(Module([Function("f", [f32])]))


def test_get_caches_and_computes_dependencies_first(am):
    c = am.get(C)
    assert LOG == ["A", "B", "C"]
    assert am.get(C) is c and am.get(B).a is am.get(A)
    assert LOG == ["A", "B", "C"]
    assert am.compute_counts[A] == 1 and am.computed_at(C) == 0
    assert am.cached_kinds() == {A, B, C}


def test_names_default_to_class_name(am):
    assert A.name == "A" and D.name == "dee" and Analysis.name == "analysis"


def test_invalidate_drops_unpreserved_and_transitive_dependents(am):
    am.get(C)
    am.get(D)
    dropped = am.invalidate({B, C, D})  # A not preserved: B and C depend on it
    assert dropped == {A, B, C}
    assert am.cached_kinds() == {D} and am.revision == 1
    am.get(C)
    assert am.compute_counts[A] == 2 and am.computed_at(C) == 1
    assert am.invalidate({A, B, C, D}) == set()
    assert am.invalidate({A}) == {B, C, D}
    assert am.invalidate_all() == {A} and am.revision == 4
    assert am.cached(A) is None and am.computed_at(A) is None


def test_cycle_detected(am):
    class X(Base):
        pass

    class Y(Base):
        depends_on = (X,)

    X.depends_on = (Y,)
    with pytest.raises(AnalysisCycleError, match="X -> Y -> X"):
        am.get(X)
    assert not am.cached_kinds()


def test_managers_share_nothing():
    LOG.clear()
    m = Module([Function("f", [f32])])
    one, two = AnalysisManager(m), AnalysisManager(m)
    assert one.get(A) is not two.get(A)
    one.invalidate()
    assert two.is_cached(A) and "rev 0" in repr(two)
