"""``tirx:cuda`` without TVM at run time: the launch record, its host program and artifacts.

No GPU is needed: the record of a built kernel is saved, loaded in a process where TVM
cannot be imported and compared with the built one (and its launches on the same
arguments); the recorded source compiles with NVRTC alone and with ``nvcc -arch=sm_90a
-c``; the host program's evaluator agrees with TVM's constant folding on the operations it
holds; a loaded record checks arguments with the reference's messages. Negation on every
``tirx`` route is a sign flip (a negated NaN's sign bit is the reference's).
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tc
from tilec.targets.tirx import hostcode
from tilec.targets.tirx.launch import (
    PACKABLE,
    ArtifactError,
    TirxCudaKernel,
    TirxLaunch,
    UserParam,
    bind,
    grid_of,
    load,
    pack_arguments,
    save,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_tirx_parallel import grid1, grid2, grid_n  # noqa: E402

SRC = Path(__file__).resolve().parents[4] / "src"


def _nvrtc_or_skip():
    from tilec.targets.tirx.backend import build_cuda_probe

    why = build_cuda_probe()
    if why is not None:
        pytest.skip(f"tirx:cuda cannot build here: {why}")


def _built(kernel, *args):
    _nvrtc_or_skip()
    return tc.compile(kernel, *args, target="tirx:cuda").executable()


def _f32(*shape):
    return np.zeros(shape, np.float32)


# ------------------------------------------------------------------ the record


def _one_thread(kernel, *args):
    """``kernel`` built with one thread per instance (the fallback mapping), through the
    backend: ``tc.compile`` caches per kernel and target, not per mapping."""
    from tilec.targets.tirx.backend import TirxBackend
    from tilec.targets.tirx.distribute import one_thread_per_instance

    _nvrtc_or_skip()
    module = tc.compile(kernel, *args, target="tirx:cuda").compilation(until="emit").module
    with one_thread_per_instance():
        return TirxBackend("tirx:cuda").compile(module, next(iter(module)).name)


@pytest.mark.parametrize("mapping", ["distributed", "one thread"])
def test_grid_n_launches_one_block_per_instance_or_ceil_count_over_64(mapping):
    build = _built if mapping == "distributed" else _one_thread
    exe = build(grid_n, _f32(64), _f32(64), 5)
    rec = exe.launch
    assert rec.kernel == "grid_n_kernel" and rec.launch_tags == ["blockIdx.x", "threadIdx.x"]
    assert rec.kernel_params[:2] == ["handle", "handle"]
    x = _f32(64)
    threads = None
    for n in (0, -3, 1, 63, 64, 65, 1000):
        got = exe.launches([x, x, np.int64(n), np.int64(64), np.int64(64)], [4096, 8192, 0])
        if n <= 0:
            assert got == [], n
            continue
        (one,) = got
        if mapping == "distributed":  # one block per instance, the group's threads each
            threads = threads or one.extents[1]
            assert one.extents == (n, threads), n
        else:  # 64 instances a block
            assert one.extents == (-(-n // 64), 64), n
        assert one.arguments[:2] == (4096, 8192), n  # the arrays' addresses, in TVM's order


def test_saved_record_loads_without_tvm_and_equals_the_built_one(tmp_path):
    exe = _built(grid2, _f32(13, 31), _f32(13, 31))
    path = save(exe, tmp_path / "grid2.json", meta={"seed": 7})
    x = _f32(13, 31)
    want = exe.launches(bind(exe.launch, [x, x.copy()]), [16, 32])
    script = f"""
import json, sys
sys.modules["tvm"] = None          # any import of TVM fails
sys.modules["tvm_ffi"] = None
sys.path.insert(0, {str(SRC)!r})
import numpy as np
from tilec.targets.tirx.launch import bind, load
k = load({str(path)!r})
x = np.zeros((13, 31), np.float32)
got = k.launches(bind(k.launch, [x, x.copy()]), [16, 32])
print(json.dumps({{"record": k.launch.to_json(), "meta": k.meta,
                  "launches": [[[int(a) for a in one.arguments], list(one.extents)]
                               for one in got],
                  "tvm": [m for m in sys.modules if m.startswith("tvm") and sys.modules[m]]}}))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)
    assert out["tvm"] == []
    assert out["record"] == json.loads(json.dumps(exe.launch.to_json()))
    assert out["meta"] == {"seed": 7}
    assert out["launches"] == [[[int(a) for a in one.arguments], list(one.extents)]
                               for one in want]


def test_a_record_of_another_schema_or_a_broken_program_is_refused(tmp_path):
    exe = _built(grid_n, _f32(64), _f32(64), 5)
    d = exe.launch.to_json()
    with pytest.raises(ArtifactError, match="schema"):
        TirxLaunch.from_json({**d, "schema": 99})
    with pytest.raises(ArtifactError, match="unknown statement"):
        TirxLaunch.from_json({**d, "host": [["loop", 1]]})
    with pytest.raises(ArtifactError, match="unknown operation"):
        TirxLaunch.from_json({**d, "host": [["let", 9, "int64",
                                             ["bin", "pow", "int64", ["var", 2], ["var", 2]]]]})
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ArtifactError, match="not a tilec tirx:cuda kernel"):
        load(tmp_path / "x.json")


def test_the_backend_keeps_and_reads_launch_records():
    from tilec.runtime import load_backend

    exe = _built(grid_n, _f32(64), _f32(64), 5)
    backend = load_backend("tirx:cuda")
    record = backend.launch_record(exe)
    again = backend.load_launch(json.loads(json.dumps(record)))
    assert again.launch.to_json() == exe.launch.to_json()
    assert backend.load_launch({"schema": 0}) is None


def test_the_recorded_source_compiles_with_nvrtc_alone_and_with_nvcc(tmp_path):
    from tilec.targets.cuda.compiler import compile_cubin

    exe = _built(grid2, _f32(13, 31), _f32(13, 31))
    src = exe.launch.source
    assert "cuda/std" not in src.split("#else")[0]  # the NVRTC branch needs no toolkit
    cub = compile_cubin(src, "sm_90a", exe.launch.kernel, use_cache=False)
    assert cub.data[:4] == b"\x7fELF"
    from test_tirx_gpu_source import _nvcc

    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: compiled with NVRTC only")
    cu = tmp_path / "k.cu"
    cu.write_text(src)
    p = subprocess.run([nvcc, "-arch=sm_90a", "-c", str(cu), "-o", str(cu) + ".o"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]


def test_self_contained_keeps_the_nvcc_branch_and_refuses_an_unknown_header():
    from tilec.targets.clike import UnsupportedError
    from tilec.targets.tirx.hostsplit import self_contained

    text = ("#ifdef __CUDACC_RTC__\n  #include <cuda/std/cstdint>\n#else\n  #include <cstdint>\n"
            "#endif\n#include <math_constants.h>\nextern \"C\" __global__ void k() {}\n")
    out = self_contained(text, "tirx:cuda", "k")
    assert "cuda/std" not in out and "#include <cstdint>" in out
    assert "#define CUDART_INF_F" in out and "#include <math_constants.h>" in out
    with pytest.raises(UnsupportedError, match="no NVRTC branch"):
        self_contained("extern \"C\" __global__ void k() {}", "tirx:cuda", "k")


def test_a_float_literal_subtrahend_builds_for_cuda():
    """``x * 3.0 - 1.0``: float ``sub`` reads its operand through its bits; a literal's bits
    are a constant (TVM prints a reinterpret of a literal as ``*(uint *)(&(1.0f))``, which
    NVRTC rejects)."""
    exe = _built(grid1, _f32(24), _f32(24))
    body = exe.source.split("__global__")[-1]
    assert "(&(0x" not in body and "1065353216" in body  # 1.0f's bits


# ------------------------------------------------------------------ arguments


@tc.kernel
def scaled(X, Y, k):
    M, N = X.shape
    for p in tc.parallel(tc.cdiv(M, 4)):
        Y.tile((p * 4, 0), (4, 8)).store(X.tile((p * 4, 0), (4, 8)).load() * k)


def test_a_record_checks_arguments_with_the_reference_messages():
    x = np.ones((8, 8), np.float32)
    exe = _built(scaled, x, x.copy(), 2.0)
    reference = tc.compile(scaled, x, x.copy(), 2.0, target="reference").executable()
    bad = [
        [x.astype(np.float64), x.copy(), 2.0],   # dtype
        [np.ones(8, np.float32), x.copy(), 2.0],  # rank
        [x, x, 2.0],                             # the output aliases an input
        [x, x.copy()],                           # count
        [x, x.copy(), "two"],                    # a scalar that is not a number
    ]
    for args in bad:
        with pytest.raises(tc.ArgumentError) as want:
            reference(*args)
        with pytest.raises(tc.ArgumentError) as got:
            bind(exe.launch, args)
        assert str(got.value) == str(want.value)


def test_pack_arguments_and_grid_of():
    params, keep = pack_arguments(["handle", "int32", "int64", "float32", "float64", "float16"],
                                  [0x1234, -2, 2**40, np.float32(1.5), 0.25, np.float16(-2.0)])
    assert ctypes.cast(params[0], ctypes.POINTER(ctypes.c_uint64))[0] == 0x1234
    assert ctypes.cast(params[1], ctypes.POINTER(ctypes.c_int32))[0] == -2
    assert ctypes.cast(params[2], ctypes.POINTER(ctypes.c_int64))[0] == 2**40
    assert ctypes.cast(params[3], ctypes.POINTER(ctypes.c_float))[0] == 1.5
    assert ctypes.cast(params[4], ctypes.POINTER(ctypes.c_double))[0] == 0.25
    assert ctypes.cast(params[5], ctypes.POINTER(ctypes.c_uint16))[0] == 0xC000
    assert grid_of(["blockIdx.x", "threadIdx.x"], [3, 64]) == ((3, 1, 1), (64, 1, 1))
    from tilec.targets.cuda.launcher import LaunchError

    with pytest.raises(LaunchError):
        grid_of(["blockIdx.x", "threadIdx.x"], [0, 64])
    with pytest.raises(LaunchError):
        grid_of(["blockIdx.x", "threadIdx.x"], [1, 2048])


# ------------------------------------------------------------------ the evaluator


def _tvm_fold(expr):
    import tvm.sym

    folded = tvm.sym.Analyzer().simplify(expr)
    return folded.value


def test_the_evaluator_agrees_with_tvms_constant_folding():
    """Random integer expressions of the operations a host program holds, folded by TVM and
    evaluated by ``hostcode`` from their record (no overflow: TVM marks it undefined)."""
    _nvrtc_or_skip()
    from tvm import tirx as tx

    from tilec.targets.tirx.hostsplit import _Reader

    class _Host:
        params: list = []

    reader = _Reader(_Host(), "tirx:cuda", "t")
    rng = np.random.default_rng(5)
    ops = [tx.Add, tx.Sub, tx.Mul, tx.Div, tx.Mod, tx.FloorDiv, tx.FloorMod, tx.Min, tx.Max]
    bit = [tx.bitwise_and, tx.bitwise_or, tx.bitwise_xor]
    checked = 0
    for _ in range(400):
        dt = str(rng.choice(["int32", "int64"]))
        a, b = (int(v) for v in rng.integers(-1000, 1000, 2))
        if b == 0:
            b = 7
        ea, eb = tx.IntImm(dt, a), tx.IntImm(dt, b)
        k = int(rng.integers(0, len(ops) + len(bit) + 3))
        if k < len(ops):
            e = ops[k](ea, eb)
        elif k < len(ops) + len(bit):
            e = bit[k - len(ops)](ea, eb)
        elif k == len(ops) + len(bit):
            e = tx.Cast("int64" if dt == "int32" else "int32", ea)
        elif k == len(ops) + len(bit) + 1:
            e = tx.Select(tx.LT(ea, eb), ea, eb)
        else:
            e = tx.shift_right(ea, tx.IntImm(dt, abs(b) % 16))
        want = _tvm_fold(e)
        got = hostcode.evaluate([["launch", [reader.expr(e)], []]], [], [])[0].arguments[0]
        assert int(got) == int(want), (str(e), got, want)
        checked += 1
    assert checked == 400


def test_the_evaluator_semantics():
    ev = hostcode._Eval([], [])
    i32 = lambda v: ["int", "int32", v]  # noqa: E731
    assert ev.expr(["bin", "div", "int32", i32(-7), i32(2)]) == -3
    assert ev.expr(["bin", "mod", "int32", i32(-7), i32(2)]) == -1
    assert ev.expr(["bin", "floordiv", "int32", i32(-7), i32(2)]) == -4
    assert ev.expr(["bin", "floormod", "int32", i32(-7), i32(2)]) == 1
    assert ev.expr(["bin", "add", "int32", i32(2**31 - 1), i32(1)]) == -2**31
    assert ev.expr(["cast", "int32", ["float", "float32", (-2.75).hex()]]) == -2
    nan = ["float", "float32", float("nan").hex()]
    assert ev.expr(["call", "isnan", "bool", [nan]]) is True
    assert ev.expr(["call", "reinterpret", "uint32", [["float", "float32", (-0.0).hex()]]]) \
        == 0x80000000
    assert ev.expr(["cast", "float32", ["int", "int64", 2**24 + 1]]) == np.float32(2**24)
    with pytest.raises(hostcode.HostCodeError, match="by zero"):
        ev.expr(["bin", "floordiv", "int32", i32(1), i32(0)])


# ------------------------------------------------------------------ negation


@tc.kernel
def negate(X, Y):
    N, = X.shape
    for p in tc.parallel(tc.cdiv(N, 8)):
        Y.tile((p * 8,), (8,)).store(-X.tile((p * 8,), (8,)).load())


def _signed_specials(dtype):
    bits = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x00000000, 0x80000000,
                     0x7F800000, 0xFF800000], np.uint32)
    return bits.view(np.float32).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negation_flips_the_sign_bit_of_nan_as_the_reference(dtype):
    from paths import poisoned

    x = _signed_specials(dtype)
    ref = poisoned(8, dtype=dtype)
    tc.interpret(negate, x, ref)
    got = poisoned(8, dtype=dtype)
    tc.compile(negate, x, got, target="tirx:llvm")(x, got)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))
    np.testing.assert_array_equal(np.signbit(ref), ~np.signbit(x))


def test_negation_is_a_sign_flip_in_the_cuda_and_metal_sources():
    _nvrtc_or_skip()
    x = np.zeros(8, np.float32)
    src = tc.compile(negate, x, x.copy(), target="tirx:cuda").source
    body = src.split("__global__")[-1]
    assert "^ (uint)2147483648" in body and "* -0x1p+0f" not in body
    from tilec.targets.metal.check import checker_unavailable

    if checker_unavailable() is None:
        msl = tc.compile(negate, x, x.copy(), target="tirx:metal").source
        assert "* -1.0" not in msl and "*-1.0" not in msl


@pytest.mark.parametrize("mapping", ["distributed", "one thread"])
def test_more_instances_than_a_launch_has_blocks_is_refused_not_wrapped(mapping):
    from tilec.targets.tirx.hostcode import HostCodeError

    build = _built if mapping == "distributed" else _one_thread
    exe = build(grid1, _f32(64), _f32(64))
    x = _f32(64)
    per_block = 64 if mapping == "one thread" else 1
    n = 8 * per_block * (2**32 + 5)  # instances that wrap to 5 blocks in int32
    with pytest.raises(HostCodeError, match="does not fit int32"):
        exe.launches([x, x, np.int64(n), np.int64(1)], [4096, 8192])


# ------------------------------------------------------------------ a record made by hand


def _record(**changes):
    """A small record, no TVM: ``k(X: f32[N], s: f32, n: i32)`` whose host program passes
    ``X``, ``s`` (cast to the kernel's float32) and ``n`` to ``k_kernel`` on ``N`` blocks of
    32 threads; ``changes`` replace fields of its JSON form."""
    d = {"schema": 1, "target": "tirx:cuda", "name": "k", "label": "@k",
         "params": [["mem", "f32", ["N"], True, "X"], ["scalar", "f32", [], False, "s"],
                    ["scalar", "i32", [], False, "n"]],
         "symbols": ["N"], "bindings": [[0, 0]], "kernel": "k_kernel",
         "kernel_params": ["handle", "float32", "int32"],
         "launch_tags": ["blockIdx.x", "threadIdx.x"],
         "inputs": ["handle", "float64", "int64", "int64"],
         "host": [["launch", [["var", 0], ["cast", "float32", ["var", 1]],
                              ["cast", "int32", ["var", 2]]],
                   [["cast", "int32", ["var", 3]], ["int", "int32", 32]]]],
         "source": "", "arch": "sm_90a",
         "host_checks": {"kernel": "k", "scalars": [], "steps": {"before": [], "after": []}}}
    d.update(changes)
    return d


def _made_and_loaded(d):
    """``TirxLaunch`` made directly and read from JSON (both must refuse alike)."""
    from tilec.targets.kernel_checks import HostChecks

    yield lambda: TirxLaunch(
        d["name"], d["label"], [UserParam.from_json(p) for p in d["params"]], d["symbols"],
        [tuple(b) for b in d["bindings"]], d["kernel"], d["kernel_params"],
        d["launch_tags"], d["inputs"], d["host"], d["source"], d["arch"],
        HostChecks.from_json(d["host_checks"]))
    yield lambda: TirxLaunch.from_json(d)


def test_a_hand_made_record_is_accepted_and_launches_without_tvm():
    rec = TirxLaunch.from_json(_record())
    x = np.zeros(40, np.float32)
    (one,) = TirxCudaKernel(rec).launches(bind(rec, [x, 1.5, 3]), [4096, 0, 0])
    assert one.arguments == (4096, 1.5, 3) and one.extents == (40, 32)


@pytest.mark.parametrize(("inputs", "message"), [
    (["int64", "float64", "int64", "int64"],
     r"@k: parameter 0 \('X'\) is an array, but its host input has dtype 'int64', not "
     r"'handle'"),
    (["handle", "int64", "int64", "int64"],
     r"@k: parameter 1 \('s'\) is a f32 scalar, but its host input has dtype 'int64', not one "
     r"of float16, float32, float64"),
    (["handle", "handle", "int64", "int64"], r"parameter 1 \('s'\) is a f32 scalar"),
    (["handle", "float64", "float64", "int64"],
     r"@k: parameter 2 \('n'\) is a i32 scalar, but its host input has dtype 'float64'"),
    (["handle", "float64", "int64", "float32"],
     r"@k: shape symbol N's host input has dtype 'float32', not an integer dtype"),
])
def test_a_record_whose_inputs_do_not_match_its_parameters_is_refused_without_tvm(inputs,
                                                                                     message):
    for make in _made_and_loaded(_record(inputs=inputs)):
        with pytest.raises(ArtifactError, match=message):
            make()


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3", "int4", "void"])
def test_a_record_with_a_kernel_parameter_no_launch_passes_is_refused_without_tvm(dtype):
    for make in _made_and_loaded(_record(kernel_params=["handle", dtype, "int32"])):
        with pytest.raises(ArtifactError, match=rf"@k: parameter 1 of kernel k_kernel has "
                                                rf"dtype '{dtype}', which a launch cannot "
                                                rf"pass \(it passes bool, float16, "):
            make()
    assert "bfloat16" not in PACKABLE
    for t in PACKABLE:  # every dtype a record may hold, pack_arguments packs
        pack_arguments([t], [1])


def test_the_host_program_sees_a_float_input_at_its_own_type_without_tvm():
    # an f16 scalar the host program reads as float16 and passes on unchanged
    d = _record(params=[["mem", "f32", ["N"], True, "X"], ["scalar", "f16", [], False, "s"],
                        ["scalar", "i32", [], False, "n"]],
                inputs=["handle", "float16", "int64", "int64"],
                kernel_params=["handle", "float16", "int32"])
    d["host"][0][1][1] = ["var", 1]
    rec = TirxLaunch.from_json(d)
    x = np.zeros(8, np.float32)
    (one,) = TirxCudaKernel(rec).launches(bind(rec, [x, 0.1, 3]), [4096, 0, 0])
    assert type(one.arguments[1]) is np.float16
    assert one.arguments[1] == np.float16(0.1)
    # a float32 input stays float32, a float64 one float64
    for t, want in [("float32", np.float32), ("float64", np.float64)]:
        d2 = _record(inputs=["handle", t, "int64", "int64"])
        d2["host"][0][1][1] = ["var", 1]
        rec = TirxLaunch.from_json(d2)
        (one,) = TirxCudaKernel(rec).launches(bind(rec, [x, 0.1, 3]), [4096, 0, 0])
        assert type(one.arguments[1]) is want, t


def test_a_kernel_loads_through_the_cuda_launchers_helper_without_tvm(monkeypatch):
    from tilec.targets.cuda import backend, compiler, launcher

    seen = []

    class Cubin:
        data = b"CUBIN"

    def load_function(driver, device, cubin, kernel):
        seen.append((device, cubin, kernel))
        return launcher.LoadedFunction(0xC0, 0xA0, 0xF0, b"kept")

    monkeypatch.setattr(backend, "device_capability", lambda device: (9, 0))
    monkeypatch.setattr(compiler, "compile_cubin", lambda source, arch, kernel: Cubin())
    monkeypatch.setattr(launcher, "load_function", load_function)
    k = TirxCudaKernel(TirxLaunch.from_json(_record()))
    got = k._load(0)
    assert seen == [(0, b"CUBIN", "k_kernel")]
    assert (got.context, got.function, got.arch, got.image) == (0xC0, 0xF0, "sm_90a", b"kept")
    assert k._load(0) is got and len(seen) == 1  # loaded once per device


def test_a_build_whose_launch_no_runtime_passes_is_unsupported_not_a_bad_record(monkeypatch):
    from tilec.targets.clike import UnsupportedError
    from tilec.targets.tirx import hostsplit
    from tilec.targets.tirx.backend import TirxBackend

    _nvrtc_or_skip()
    real = hostsplit.record_launch

    def bf16_record(*a, **k):  # as if TVM passed the scalar as a bfloat16
        rec = real(*a, **k)
        return {**rec, "kernel_params": [*rec["kernel_params"][:-1], "bfloat16"]}

    x = np.ones((8, 8), np.float32)
    module = tc.compile(scaled, x, x.copy(), 2.0, target="tirx:cuda").compilation(
        until="emit").module
    monkeypatch.setattr(hostsplit, "record_launch", bf16_record)
    with pytest.raises(UnsupportedError, match=r"tirx:cuda backend cannot compile: TVM's CUDA "
                                               r"launch for @scaled cannot run through tilec's "
                                               r"runtime: @scaled: parameter \d+ of kernel "
                                               r"scaled_kernel has dtype 'bfloat16'"):
        TirxBackend("tirx:cuda").compile(module, next(iter(module)).name)
