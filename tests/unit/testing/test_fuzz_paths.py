"""Outcome classification: a rejection must be a user-facing error naming the kernel's file;
everything else (a simulator race included) is internal."""

from __future__ import annotations

from tilec.testing.fuzz.paths import classify, reason_key


class LoweringError(Exception):
    """Stands for the lowering's rejection (classified by name)."""


class SimulationError(Exception):
    """Stands for the simulator's report."""

    kind = "race"


def test_located_rejection_counts_by_reason() -> None:
    o = classify(LoweringError("/tmp/k.py:6:5: error: the group needs 41984 bytes of shared "
                               "memory; metal:m1 allows 32768"), "/tmp/k.py")
    assert o.kind == "rejected"
    assert o.reason == "LoweringError: the group needs N bytes of shared memory; metal:mN allows N"


def test_unlocated_rejection_is_internal() -> None:
    o = classify(LoweringError("no lowering for this"), "/tmp/k.py")
    assert o.kind == "internal" and "without a source location" in o.reason


def test_internal_lowering_error_and_simulator_reports_are_failures() -> None:
    assert classify(LoweringError("internal: no owner threads /tmp/k.py"), "/tmp/k.py").kind \
        == "internal"
    o = classify(SimulationError("shared element written by two threads /tmp/k.py"), "/tmp/k.py")
    assert o.kind == "internal" and o.reason.startswith("SimulationError[race]")
    assert classify(AssertionError(), "/tmp/k.py").kind == "internal"


def test_reason_key_drops_locations_and_numbers() -> None:
    assert reason_key("/a/b.py:3:4: error: tile 8x16 too big\n  snippet") == "tile NxN too big"


def test_a_warning_while_a_path_runs_is_counted(monkeypatch) -> None:
    """A warning tilec gives (a C compiler crash a retry recovered from) is kept on the
    outcome and counted by the campaign, whatever the outcome is."""
    import warnings

    from tilec.testing.fuzz import paths
    from tilec.testing.fuzz.campaign import PathCounts

    def warns(path, kernel, args) -> None:
        warnings.warn("tilec: the C compiler crashed building a kernel with -O3 (kernel.c:12:3: "
                      "internal compiler error); built it with -O1 instead", stacklevel=1)
        warnings.warn("something else", stacklevel=1)

    monkeypatch.setitem(paths._RUNNERS, "cpu", warns)
    o = paths.execute("cpu", None, [], "/tmp/k.py")
    assert o.kind == "ran"
    assert o.warned == (reason_key("tilec: the C compiler crashed building a kernel with -O3 "
                                   "(kernel.c:12:3: internal compiler error); built it with "
                                   "-O1 instead"),)
    counts = PathCounts()
    counts.add(o)
    counts.add(paths.Outcome("ok"))
    assert sum(counts.warned.values()) == 1 and counts.programs == 2


def test_a_path_may_carry_a_traversal_variant() -> None:
    from tilec.testing.fuzz.paths import path_error, split_path

    assert split_path("simt:cuda:sm_90+grouped:3") == (
        "simt:cuda:sm_90", {"program_traversal": "grouped:3"})
    assert split_path("cpu") == ("cpu", None)
    assert path_error("simt:cuda:sm_90+grouped:3") is None
    assert "unknown path" in (path_error("gpu+grouped:3") or "")
    assert path_error("cuda+grouped:3") is None  # the GPU path compiles with the variant too
    assert "positive integer" in (path_error("simt:cuda:sm_80+grouped:0") or "")


def test_a_path_may_release_rings_through_mbarriers() -> None:
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:cuda:sm_90+mbarrier") == (
        "simt:cuda:sm_90", {"mbarrier_ring": True})
    assert split_path("simt:cuda:sm_90+grouped:2+mbarrier") == (
        "simt:cuda:sm_90", {"program_traversal": "grouped:2", "mbarrier_ring": True})
    assert split_path("cuda+inflight") == ("cuda", {"wgmma_in_flight": 1})
    assert path_error("simt:cuda:sm_90+grouped:2+mbarrier") is None
    assert "positive integer" in (path_error("simt:cuda:sm_90+mbarrier+grouped:0") or "")
    # a GEMM runs on the path (the compile takes the variant) and matches
    import ml_dtypes
    import numpy as np

    from tilec.lib import matmul

    r = np.random.default_rng(1)
    a = r.standard_normal((64, 128)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    c = np.full((64, 64), np.nan, np.float32)
    out = execute("simt:cuda:sm_90+mbarrier", matmul, [a, b, c], "matmul.py")
    assert out.kind == "ran", out


def test_a_path_may_warp_specialize_the_rings() -> None:
    import ml_dtypes
    import numpy as np

    from tilec.lib import matmul
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:cuda:sm_90+ws") == ("simt:cuda:sm_90", {"warp_specialized": True})
    assert path_error("cuda+grouped:2+ws") is None
    r = np.random.default_rng(2)
    a = r.standard_normal((96, 200)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((200, 72)).astype(ml_dtypes.bfloat16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    c = np.full((96, 72), np.nan, np.float32)
    out = execute("simt:cuda:sm_90+ws", matmul, [a, b, c], "matmul.py")
    assert out.kind == "ran", out
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3 * float(np.abs(want).max()))
    want = a.astype(np.float32) @ b.astype(np.float32)
    assert np.allclose(c, want, rtol=2e-3, atol=2e-3)


def test_a_path_may_split_k() -> None:
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:cuda:sm_90+splitk:3") == ("simt:cuda:sm_90", {"split_k": 3})
    assert split_path("cuda+splitk:4+mbarrier") == ("cuda", {"split_k": 4,
                                                             "mbarrier_ring": True})
    assert path_error("simt:cuda:sm_80+splitk:2") is None
    assert "from 1 to 64" in (path_error("simt:cuda:sm_90+splitk:x") or "")
    assert "from 1 to 64" in (path_error("simt:cuda:sm_90+splitk:65") or "")
    import numpy as np

    from tilec.lib import matmul

    r = np.random.default_rng(2)
    a = r.standard_normal((40, 200)).astype(np.float32)
    b = r.standard_normal((200, 24)).astype(np.float32)
    c = np.full((40, 24), np.nan, np.float32)
    out = execute("simt:cuda:sm_80+splitk:3", matmul, [a, b, c], "matmul.py")
    assert out.kind == "ran", out
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_a_path_may_weaken_subgroup_barriers_and_choose_shared_values() -> None:
    from tilec.testing.fuzz.paths import path_error, split_path

    assert split_path("simt:cuda:sm_90+subgroups+threads:32")[1] == {
        "elide_independent_subgroup_barriers": True, "threads": 32}
    assert split_path("simt:metal:m1+ssa:materialize")[1] == {"shared_ssa": "materialize"}
    assert path_error("simt:cuda:sm_80+ssa:expensive_only+subgroups") is None
    assert "ssa must be one of" in (path_error("cpu+ssa:sometimes") or "")
    assert "threads must be" in (path_error("cpu+threads:x") or "")


def test_a_path_may_run_persistent_groups() -> None:
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:cuda:sm_90+ws+persistent:2") == (
        "simt:cuda:sm_90", {"warp_specialized": True, "persistent": 2})
    assert path_error("cuda+ws+persistent:132") is None
    assert split_path("cuda+epilogue")[1] == {"fuse_matrix_epilogues": True}
    assert split_path("simt:metal:m1+fences")[1] == {"coalesce_group_barriers": False}
    assert "persistent must be" in (path_error("simt:cuda:sm_90+persistent:x") or "")
    assert "persistent must be" in (path_error("simt:cuda:sm_90+persistent:0") or "")
    import ml_dtypes
    import numpy as np

    from tilec.lib import matmul

    r = np.random.default_rng(3)
    a = r.standard_normal((130, 70)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((70, 200)).astype(ml_dtypes.bfloat16)
    c = np.full((130, 200), np.nan, np.float32)
    out = execute("simt:cuda:sm_90+ws+persistent:3", matmul, [a, b, c], "matmul.py")
    assert out.kind == "ran", out
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=2e-3, atol=2e-3)


def test_the_metal_path_checks_the_msl_and_simulates_the_same_machine_ir() -> None:
    import numpy as np

    from tilec.lib import softmax
    from tilec.testing.fuzz.paths import ALL_PATHS, CPU_PATHS, execute, path_error

    assert "metal" in ALL_PATHS and "metal" not in CPU_PATHS  # named, not a default
    assert path_error("metal") is None
    assert path_error("metal+grouped:2") is None
    x = np.random.default_rng(2).standard_normal((9, 70)).astype(np.float32)
    y = np.full_like(x, np.nan)
    out = execute("metal", softmax, [x, y], "softmax.py")
    assert out.kind == "ran", out
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5)


def test_the_metal_path_rejects_f64_with_the_reason() -> None:
    import numpy as np

    from tilec.lib import transpose
    from tilec.testing.fuzz.paths import execute

    x = np.ones((4, 8))
    for path in ("metal", "simt:metal:m1"):  # the lowering refuses it for both
        out = execute(path, transpose, [x, np.zeros((8, 4))], "transpose.py")
        assert out.kind == "rejected", out
        assert "metal:mN has no N-bit floating point" in out.reason


def test_a_path_may_batch_synchronous_copies() -> None:
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:metal:m1+copybatch:4") == ("simt:metal:m1", {"max_copy_batch": 4})
    assert split_path("metal+grouped:2+copybatch:16")[1] == {
        "program_traversal": "grouped:2", "max_copy_batch": 16}
    assert path_error("cuda+copybatch:8") is None
    for bad in ("x", "0", "17"):
        assert "copybatch must be" in (path_error(f"simt:metal:m1+copybatch:{bad}") or "")
    import numpy as np

    from tilec.lib import matmul

    r = np.random.default_rng(4)
    a = r.standard_normal((40, 30)).astype(np.float32)
    b = r.standard_normal((30, 24)).astype(np.float32)
    c = np.full((40, 24), np.nan, np.float32)
    for path in ("simt:metal:m1+copybatch:3", "metal+copybatch:4"):
        if path_error(path) is not None:  # the metal path needs its MSL checker
            continue
        c[...] = np.nan
        out = execute(path, matmul, [a, b, c], "matmul.py")
        assert out.kind == "ran", out
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_a_path_may_forward_matrix_operands() -> None:
    import ml_dtypes
    import numpy as np

    import tilec as tc
    from tilec.lib import matmul
    from tilec.testing.fuzz.paths import execute, path_error, split_path

    assert split_path("simt:cuda:sm_80+forward") == ("simt:cuda:sm_80",
                                                     {"forward_snapshots": True})
    assert path_error("cuda+forward") is None
    r = np.random.default_rng(3)
    a = r.standard_normal((16, 256)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((256, 128)).astype(ml_dtypes.bfloat16)
    c = np.full((16, 128), np.nan, np.float32)
    variant = {"forward_snapshots": True}
    plan = tc.compile(matmul, a, b, c, target="simt:cuda:sm_80", variant=variant,
                      BM=16, BN=64, BK=64).plan
    assert plan.groups[0].selected.choices[0].candidate.forwarded
    out = execute("simt:cuda:sm_80+forward", matmul, [a, b, c], "matmul.py")
    assert out.kind == "ran", out
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)
