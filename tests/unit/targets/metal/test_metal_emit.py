"""The Metal target without an Apple GPU: golden MSL, the libclang check of every library and
example kernel, the launch contract, refusals with their reasons, and the target listing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from metal_kernels import (
    GOLDEN,
    add_f64,
    conversions,
    dead_f64,
    golden_args,
    matmul_small,
    scatter_add,
)

import tilec as tc
from tilec.demo import DemoCase, all_cases
from tilec.driver import compile_module
from tilec.targets.clike import UnsupportedError
from tilec.targets.metal.check import MSLCheckError, check_msl, checker_unavailable
from tilec.targets.metal.emitter import emit_metal
from tilec.targets.metal.launcher import probe

GOLDEN_DIR = Path(__file__).parent / "golden"
EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
KERNELS = Path(__file__).parent / "metal_kernels.py"

needs_libclang = pytest.mark.skipif(checker_unavailable() is not None,
                                    reason=str(checker_unavailable()))


def _metal(name: str) -> Any:
    """The ``metal:m1`` executable of golden subject ``name``."""
    return tc.compile(GOLDEN[name], *golden_args(name), target="metal:m1").executable()


def _renumber(text: str) -> str:
    """Operation ids are process-wide counters: number them from 1 in order of appearance."""
    ids: dict[str, str] = {}
    return re.sub(r"#(\d+)", lambda m: "#" + ids.setdefault(m.group(1), str(len(ids) + 1)), text)


# ------------------------------------------------------------------ golden sources


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_msl(name: str) -> None:
    """The kernel function of each subject, line for line (the prelude before it is the same
    for every kernel and is checked by libclang with each of them). TILEC_UPDATE_GOLDEN=1
    rewrites the files."""
    text = _metal(name).source
    kernel = _renumber(text[text.index("kernel void"):])
    path = GOLDEN_DIR / f"{name}.metal"
    if os.environ.get("TILEC_UPDATE_GOLDEN") == "1":
        path.write_text(kernel)
    assert kernel == path.read_text(), "emitted MSL changed; review and regenerate the golden file"


def test_golden_subjects_reach_the_constructs_they_are_for() -> None:
    """Each golden file keeps covering what it was chosen for."""
    text = {n: (GOLDEN_DIR / f"{n}.metal").read_text() for n in GOLDEN}
    assert "reinterpret_cast<device const tc_vec16<float> *>" in text["scale_add"]
    assert "tc_shfl_xor(" in text["row_max_small"]
    assert "simd_any(" in text["int_div_tile"] and "tc_vote[" in text["int_div_tile"]
    assert "atomic_compare_exchange_weak_explicit(&tc_check[0]" in text["int_div_tile"]
    assert "threadgroup uint4 tc_smem4[" in text["matmul_small"]
    assert "threadgroup_barrier(mem_flags::mem_threadgroup);" in text["matmul_small"]


# ------------------------------------------------------------------ every library kernel


def _cases() -> list[DemoCase]:
    return all_cases(EXAMPLES if EXAMPLES.is_dir() else None)


@needs_libclang
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.name)
def test_every_library_and_example_kernel_passes_the_check(case: DemoCase) -> None:
    args = list(case.make_inputs(np.random.default_rng(0)))
    exe = tc.compile(case.kernel, *args, target="metal:m1", **case.constexprs).executable()
    if not exe.runnable:  # off macOS, building is the check
        assert exe.verified == "checked with libclang"
    check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    assert exe.source.count("kernel void ") == 1


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_buffer_indices_follow_the_launch_contract(name: str) -> None:
    """``[[buffer(k)]]`` is ``params[k]`` in declaration order, then ``tc_aligned``, then
    ``tc_check`` when the kernel has device checks (what the launcher binds)."""
    src = _metal(name).metal
    decls = re.findall(r"^\s+(.*?) \[\[buffer\((\d+)\)\]\]", src.text, re.M)
    assert [int(k) for _, k in decls] == list(range(len(decls)))
    assert decls[src.aligned_index][0] == "constant uint &tc_aligned"
    if src.checks:
        assert decls[src.check_index][0] == "device atomic_uint *tc_check"
        assert len(decls) == len(src.params) + 2
    else:
        assert src.check_index is None and len(decls) == len(src.params) + 1
    for (decl, _), p in zip(decls, src.params):
        if p.kind == "mem":
            assert decl.startswith("device " if p.written else "device const ")
        else:
            assert decl.startswith("constant ") and "&" in decl


def test_a_kernel_with_a_vote_and_a_check_declares_them() -> None:
    src = _metal("int_div_tile").metal
    assert src.checks and src.check_words >= 1
    assert "ushort tc_simd [[simdgroup_index_in_threadgroup]]" in src.text
    # the vote words are threadgroup memory too
    assert src.shared_bytes >= 4 * -(-src.threads // 32)


_SHARED = re.compile(r"%(\w+) = memory\(\) \{offset = (\d+),.*\} : mem<([\dx]+)x(\w+), shared>")
_MSL_BUFFER = re.compile(r"threadgroup (\w+) \*const v\d+_(\w+) = "
                         r"reinterpret_cast<threadgroup \1 \*>\(tc_smem \+ (\d+)\);")


@pytest.mark.parametrize("variant", [{}, {"simdgroup_matrix": "only"}, {"metal_mpp": "only"}],
                         ids=["lane", "simdgroup", "mpp"])
def test_threadgroup_buffers_sit_at_the_allocators_offsets(variant: dict[str, str]) -> None:
    """Each shared ``memory`` of the allocate stage is one ``threadgroup`` pointer at its
    ``offset`` into the kernel's one threadgroup array, which holds them all (the emitter
    prints the allocator's decisions; it places nothing itself)."""
    from tilec import lib

    r = np.random.default_rng(0)
    args = [r.standard_normal(s).astype(np.float32) for s in ((40, 64), (64, 48), (40, 48))]
    c = tc.compile(lib.matmul, *args, target="metal:m1", variant=variant,
                   BM=32, BN=32, BK=16)
    ctype = {"f32": "float", "i32": "int", "u32": "uint"}
    want = {}
    for name, off, shape, dt in _SHARED.findall(c.after("allocate")):
        size = int(np.prod([int(x) for x in shape.split("x")])) * 4
        want[name] = (ctype[dt], int(off), size)
    assert len(want) >= 2, "the subject should stage several buffers"
    got = {name: (t, int(off)) for t, name, off in _MSL_BUFFER.findall(c.source)}
    assert got == {n: w[:2] for n, w in want.items()}
    (words,) = re.findall(r"threadgroup uint4 tc_smem4\[(\d+)\];", c.source)
    assert 16 * int(words) >= max(off + size for _, off, size in want.values())


# ------------------------------------------------------------------ the check catches errors


BREAKAGES = [
    # (what is broken, old text, new text, clang's message)
    ("undeclared helper", "tc_shfl_xor(", "tc_shfl_xxor(", "undeclared identifier 'tc_shfl_xxor'"),
    ("write through a const parameter", "device float *v", "device const float *v",
     "read-only variable is not assignable"),
    ("address space dropped", "device const tc_vec16<float> *const",
     "const tc_vec16<float> *const", "cannot initialize a variable of type"),
    ("misspelled kernel attribute", "[[buffer(0)]]", "[[bufer(0)]]",
     "unknown attribute 'bufer' ignored"),
]


@needs_libclang
@pytest.mark.parametrize("what, old, new, message", BREAKAGES, ids=[b[0] for b in BREAKAGES])
def test_the_check_rejects_a_broken_source_at_its_line(what: str, old: str, new: str,
                                                       message: str) -> None:
    name = "row_max_small" if "shfl" in old else "scale_add"
    src = _metal(name).metal
    start = src.text.index("kernel void")  # break the kernel, not the prelude
    assert old in src.text[start:], f"the subject no longer has {old!r}: pick another breakage"
    broken = src.text[:start] + src.text[start:].replace(old, new, 1)
    first = broken[:broken.index(new, start)].count("\n") + 1
    with pytest.raises(MSLCheckError) as info:
        check_msl(broken, src.buffer.origin_of_line, src.kernel)
    e = info.value
    assert any(message in d.message for d in e.diagnostics), e.diagnostics
    assert e.diagnostics[0].line >= first
    text = str(e)
    assert f"emitted MSL of {src.kernel} fails the check" in text
    bad = e.diagnostics[0].line
    assert f"> {bad:5d} | " in text  # the offending line, marked
    if src.buffer.origin_of_line(bad) is not None:
        assert "emitted for TileIR" in text


@needs_libclang
def test_the_check_names_the_tileir_operation_behind_the_line() -> None:
    src = _metal("row_max_small").metal
    start = src.text.index("kernel void")
    broken = src.text[:start] + src.text[start:].replace("tc_shfl_xor(", "tc_shfl_xxor(", 1)
    with pytest.raises(MSLCheckError) as info:
        check_msl(broken, src.buffer.origin_of_line, src.kernel)
    assert "emitted for TileIR atom.call" in str(info.value)
    assert "metal_kernels.py:" in str(info.value)


@needs_libclang
def test_the_check_rejects_double() -> None:
    """MSL has no ``double``: the stub header makes any use of it an unknown type."""
    src = _metal("scale_add").metal
    start = src.text.index("kernel void")
    broken = src.text[:start] + src.text[start:].replace("float ", "double ", 1)
    with pytest.raises(MSLCheckError, match="unknown type name 'tc_msl_has_no_double'"):
        check_msl(broken)


@pytest.mark.parametrize("wide", [False, True], ids=["i32", "i64"])
def test_conversions_do_not_go_through_double(wide: bool) -> None:
    """A fuzzer finding: integer -> f16 printed CUDA's rounding through f64 (undeclared in
    MSL). The simulator runs the same Machine TileIR and must agree with the reference."""
    import ml_dtypes

    rng = np.random.default_rng(3)
    it = np.int64 if wide else np.int32
    ints = np.concatenate([rng.integers(-2**31, 2**31, 90), [2049, 2051, 16777217, -65519, 0]])
    args = [ints.astype(it), np.zeros(95, np.float16), np.zeros(95, ml_dtypes.bfloat16),
            np.zeros(95, np.int32), np.zeros(95, np.int8)]
    exe = tc.compile(conversions, *args, target="metal:m1").executable()
    kernel = exe.source[exe.source.index("kernel void"):]
    assert "double" not in kernel and "tc_i64_to_f32_odd((int64_t)" in kernel
    if checker_unavailable() is None:
        check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    ref = [a.copy() for a in args]
    tc.compile(conversions, *ref, target="reference")(*ref)
    tc.simulate(conversions, *args, target="metal:m1")
    for got, want in zip(args[1:], ref[1:]):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


# ------------------------------------------------------------------ refusals, with reasons


def _refusal(call: Any, etype: type[BaseException]) -> str:
    with pytest.raises(etype) as info:
        call()
    return str(info.value)


def test_f64_is_refused_at_its_source_line() -> None:
    """The lowering refuses f64 for the profile, so the Metal target and the simulator of
    the metal:m1 profile refuse the same program with the same reason."""
    x = np.ones(100)
    for call in (lambda: tc.compile(add_f64, x, x.copy(), target="metal:m1").source,
                 lambda: tc.simulate(add_f64, x, x.copy(), target="metal:m1")):
        msg = _refusal(call, tc.UserError)
        assert msg.startswith(f"{KERNELS}:")
        assert "metal:m1 has no 64-bit floating point ('" in msg
        assert "uses f64); compute in f32" in msg


def test_an_unused_f64_parameter_is_bound_as_opaque_words() -> None:
    """No operation reads the f64 array (its load is dead) or the f64 scalar: both are
    declared as 8-byte words (the launch contract is unchanged), the source passes the
    check, and the simulator of the same Machine TileIR agrees with the reference."""
    args = [np.ones(3), np.float64(2.5), np.full(8, np.nan, np.float32)]
    exe = tc.compile(dead_f64, *args, target="metal:m1").executable()
    assert "device const ulong *" in exe.source and "constant ulong &" in exe.source
    assert "double" not in exe.source[exe.source.index("kernel void"):]
    if checker_unavailable() is None:
        check_msl(exe.source, exe.metal.buffer.origin_of_line, exe.metal.kernel)
    tc.simulate(dead_f64, *args, target="metal:m1")
    assert np.array_equal(args[2], np.ones(8, np.float32))


def test_atomics_are_refused_by_the_lowering_with_the_reason() -> None:
    x = np.ones(100, np.float32)
    msg = _refusal(lambda: tc.compile(scatter_add, x, x.copy(), target="metal:m1").source,
                   tc.UserError)
    assert msg.startswith(f"{KERNELS}:")
    assert "metal:m1 has no atomic operations (atomic add on f32 memory)" in msg


def test_a_cuda_instruction_is_refused_by_name() -> None:
    """Machine TileIR lowered for cuda:sm_80 (bf16: cp.async staging, mma.sync) handed to
    the Metal emitter: it names the first CUDA-only atom and what Metal has."""
    a = np.ones((64, 64), ml_dtypes.bfloat16)
    c = tc.compile(matmul_small, a, a, np.zeros((64, 64), np.float32), target="reference",
                   BM=64, BN=64, BK=32)
    machine = compile_module(c.module, c.fn_name, "cuda:sm_80", "allocate").module
    msg = _refusal(lambda: emit_metal(machine, c.fn_name), UnsupportedError)
    assert re.search(r"atom '(cp\.async|mma|ldmatrix)[^']*' is a CUDA instruction with no "
                     r"Metal form \(Metal has barrier.group, barrier.subgroup, shfl.xor, "
                     r"vote.any, simdgroup.load, simdgroup.mma, simdgroup.store, "
                     r"mpp.matmul2d, mpp.dest.load, mpp.run, mpp.dest.store, "
                     r"mpp.dest.capacity, mpp.dest.element\)", msg), msg
    assert msg.startswith(f"{KERNELS}:")


def test_candidate_tileir_is_refused_by_the_backend() -> None:
    from tilec.targets.metal.backend import make_backend

    c = tc.compile(GOLDEN["scale_add"], *golden_args("scale_add"), target="reference")
    with pytest.raises(ValueError, match="prints Machine TileIR"):
        make_backend().emit(c.module, c.fn_name)


# ------------------------------------------------------------------ the target itself


def test_tilec_targets_lists_metal(capsys: pytest.CaptureFixture[str]) -> None:
    from tilec.cli import main

    main(["targets"])
    out = capsys.readouterr().out
    assert "metal:m1" in out and "Metal Shading Language" in out


def test_calling_a_metal_kernel_off_macos_says_why() -> None:
    why = probe()
    if why is None:
        pytest.skip("this machine runs Metal kernels (tests/device covers launching)")
    args = golden_args("scale_add")
    c = tc.compile(GOLDEN["scale_add"], *args, target="metal:m1")
    with pytest.raises(tc.TargetUnavailable, match="no Metal runtime here"):
        c(*args)


def test_the_launcher_runs_only_where_metal_is() -> None:
    """Off macOS the launcher is not exercised: the skip prints why (pytest -ra)."""
    why = probe()
    if why is not None:
        pytest.skip(f"Metal launcher not run: {why}")
    from tilec.targets.metal.launcher import MetalLauncher

    exe = _metal("scale_add")
    assert isinstance(exe._launcher, MetalLauncher) and exe.runnable


@pytest.mark.parametrize("variant, atoms", [
    ({"metal_mpp": "only", "threads": 64, "forward_snapshots": True}, {"mpp.matmul2d"}),
    ({"metal_mpp": "only"}, {"mpp.dest.load", "mpp.run", "mpp.dest.store"}),
], ids=["one operation", "resident destination"])
def test_an_mpp_atom_of_an_unknown_scope_is_refused_by_name(variant: dict[str, Any],
                                                            atoms: set[str]) -> None:
    """Both MPP printers (one ``matmul2d`` and a resident destination's atoms) take the
    execution scope from one place: ``subgroup`` and ``group`` print, anything else is
    refused with the atom's name."""
    from tilec import lib

    r = np.random.default_rng(0)
    args = [r.standard_normal(s).astype(np.float32) for s in ((32, 32), (32, 32), (32, 32))]
    comp = tc.compile(lib.matmul, *args, target="metal:m1", variant=variant,
                      BM=32, BN=32, BK=16).compilation(until="allocate")
    found = [op for fn in comp.module for op in fn.walk()
             if str(op.attr("catalog_id", "")).startswith("mpp")]
    assert {op.attr("catalog_id") for op in found} == atoms
    assert "execution_simdgroup" in emit_metal(comp.module, comp.fn_name).text
    scopes = [op.attributes["scope"] for op in found]
    try:  # the compilation is cached: its module is put back as it was
        for op in found:
            op.attributes["scope"] = "warp"
        msg = _refusal(lambda: emit_metal(comp.module, comp.fn_name), UnsupportedError)
    finally:
        for op, scope in zip(found, scopes):
            op.attributes["scope"] = scope
    assert re.search(r"mpp\.(matmul2d|dest\.load) of unknown scope 'warp'", msg), msg
