"""Passes report change and preservation; the manager invalidates, verifies and prints."""

from __future__ import annotations

import io

import pytest

from tilec.ir import (
    AnalysisManager,
    DominanceInfo,
    Function,
    IRRewriter,
    Liveness,
    MemoryEffects,
    Module,
    Operation,
    Pass,
    PassManager,
    PassResult,
    f32,
)


def _module():
    fn = Function("f", [f32], [f32])
    x = fn.args[0]
    dead = fn.entry.append(Operation("arith", [x], [f32], {"fn": "neg"}))
    fn.entry.append(Operation("arith", [dead.result], [f32], {"fn": "abs"}))
    fn.entry.append(Operation("return", [x]))
    return Module([fn])


class DeadCode(Pass):
    """Erase unused pure operations until none is left (test-local)."""

    def run(self, module, am):
        rw = IRRewriter(am)
        effects = am.get(MemoryEffects)
        progress = True
        while progress:
            progress = False
            for op in list(module.walk()):
                if op.results and not any(r.has_uses for r in op.results) \
                        and effects.is_pure(op) and not op.opdef.terminator:
                    rw.erase(op)
                    progress = True
        return PassResult(rw.changed, frozenset())


class Nothing(Pass):
    name = "nothing"

    def run(self, module, am):
        am.get(DominanceInfo)
        return PassResult.unchanged()


class KeepsLiveness(Pass):
    def run(self, module, am):
        am.get(Liveness)
        am.get(DominanceInfo)
        return PassResult.modified([Liveness])


class Bad(Pass):
    def run(self, module, am):
        return True


def test_dead_code_before_expected():
    m = _module()
    pm = PassManager([DeadCode()])
    assert pm.run(m) is True
    assert [op.name for op in m.walk()] == ["return"]
    assert pm.run(m) is False  # second run is a fixpoint
    assert [r.changed for r in pm.records] == [False]


def test_preservation_and_unchanged_keep_cache():
    m = _module()
    am = AnalysisManager(m)
    pm = PassManager([Nothing(), KeepsLiveness()])
    pm.run(m, am)
    assert am.is_cached(Liveness) and not am.is_cached(DominanceInfo)
    assert pm.records[0].name == "nothing" and pm.records[0].invalidated == ()
    assert pm.records[1].invalidated == ("dominance",)
    pm2 = PassManager([Nothing()])
    pm2.run(m, am)
    assert am.is_cached(DominanceInfo) and am.is_cached(Liveness)


def test_after_is_called_with_each_pass_and_the_module_it_left():
    m = _module()
    seen = []
    PassManager([Nothing(), DeadCode()],
                after=lambda p, mod: seen.append((p.name, len(list(mod.walk()))))).run(m)
    assert seen[0][0] == "nothing" and seen[1] == ("DeadCode", 1)
    assert seen[0][1] > 1


def test_print_each_writes_the_module_after_every_pass():
    m = _module()
    out = io.StringIO()
    PassManager([Nothing(), DeadCode()], print_each=True, out=out).run(m)
    text = out.getvalue()
    assert "IR after nothing (unchanged)" in text and "IR after DeadCode (changed)" in text
    assert text.count("func @f") == 2


def test_bad_result_type_and_foreign_manager():
    m = _module()
    with pytest.raises(TypeError, match="not a PassResult"):
        PassManager([Bad()]).run(m)
    with pytest.raises(ValueError, match="different module"):
        PassManager([Nothing()]).run(m, AnalysisManager(_module()))
    with pytest.raises(NotImplementedError):
        Pass().run(m, AnalysisManager(m))


def test_pass_result_normalizes_preserved():
    r = PassResult(True, {Liveness})
    assert r.preserved == frozenset({Liveness}) and isinstance(r.preserved, frozenset)
    assert PassResult.modified().preserved == frozenset()


def _verifier_works() -> bool:
    from tilec.ir import verify

    try:
        verify(_module())
    except NotImplementedError:
        return False
    except Exception:
        return True
    return True


def test_verify_each_names_the_breaking_pass(monkeypatch):
    import tilec.ir.verifier as verifier

    calls = []

    def fake_verify(module, form="candidate"):
        calls.append(form)
        if len(calls) == 2:
            raise RuntimeError("broken")

    monkeypatch.setattr(verifier, "verify", fake_verify)
    m = _module()
    with pytest.raises(RuntimeError) as info:
        PassManager([Nothing(), KeepsLiveness()], verify_each=True, form="scheduled").run(m)
    assert calls == ["scheduled", "scheduled"]
    notes = getattr(info.value, "__notes__", [])
    assert any("KeepsLiveness" in n for n in notes)


def test_verify_each_with_the_real_verifier():
    if not _verifier_works():
        pytest.skip("tilec.ir.verify is still a placeholder (NotImplementedError)")
    m = _module()
    assert PassManager([DeadCode()], verify_each=True).run(m)
