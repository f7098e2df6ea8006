"""The planner families of ``PlannerOptions`` on the GPU: each option against the model's pick.

For every family (an option of ``PlannerOptions`` that a plan variant may set) a few
kernels and shapes where the option is known to change the program (the per-option tests
name them: the library kernels and the test kernels of ``tests/``). For each case:

1. the baseline is the model's pick: ``Kernel.resolve`` (no tuning record applies: the
   tilec cache is a fresh directory unless ``TILEC_CACHE_DIR`` is set) gives the tunable
   values and the plan variant of a call with the case's fixed constexprs, and the case's
   own variant entries (``async_copies``, ``persistent``...) are merged over it;
2. the option arm is that variant with the option set to the case's value, merged over
   it, so that only the option differs (for an option on by default, ``value`` is the
   other setting: the arm measures turning it off);
3. both are compiled and their CUDA sources compared; identical sources are recorded as
   ``"changed": false`` and not timed (the option did nothing there: a finding);
4. both run on NaN-poisoned outputs and are checked against torch (or, without a torch
   equivalent, against each other), then timed in the same process with the replay of
   measured selection (``tilec.tuning.measure.replay``: one batch of each arm per round in
   every order of the arms, torch being the third arm where it has an equivalent); each
   arm's figure is its median device milliseconds per call.

Records go to ``benchmarks/results/cuda_options-<device>-<date>.json`` with the fields
every benchmark record has (``kernel``, ``shape``, ``dtype``, ``target``, ``device``,
``date``, ``commit``...): ``tilec_ms`` is the option arm, ``peer`` the baseline
(``model pick``) and ``ratio = peer_ms / tilec_ms`` (above 1: the option helped), with
``option``, ``value``, ``changed``, the pick, the variants and ``torch_ms``::

    PYTHONPATH=src python benchmarks/cuda_options.py [--families a,b] [--quick]
        [--budget-s 240] [--rounds 2]
    PYTHONPATH=src python benchmarks/cuda_options.py --dry-run [--build]  # no GPU

``--dry-run`` needs no GPU: it compiles every case for ``cuda:sm_90`` up to its CUDA
source (``--build``: and its cubins, with NVRTC, timed) and prints, per family and kernel,
whether the option changed it (exit status 1 when a family changes no kernel).
``--budget-s`` stops before a case that would start past the budget, still writing the
records made so far; cases not reached are listed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent

DRY_TARGET = "cuda:sm_90"
"""The profile a dry run compiles for."""
BATCH_MS = 10.0
"""The aimed-at duration of one timed batch (``tilec.tuning.measure.Timer``)."""


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Arg:
    """One runtime argument of a case: an input array (standard normal values), an output
    array (NaN-poisoned before each checked run) or a scalar."""

    shape: tuple[int, ...] = ()
    """The array's extents (empty for a scalar)."""
    dtype: str = "f32"
    """``f32``, ``bf16`` or ``f16`` (arrays only)."""
    role: str = "in"
    """``in``, ``out`` or ``scalar``."""
    value: float = 0.0
    """A scalar's value."""


def _inp(*shape: int, dtype: str = "f32") -> Arg:
    return Arg(tuple(shape), dtype, "in")


def _out(*shape: int, dtype: str = "f32") -> Arg:
    return Arg(tuple(shape), dtype, "out")


def _scalar(v: float) -> Arg:
    return Arg(role="scalar", value=v)


@dataclass(frozen=True)
class Case:
    """One kernel and shape on which one option is measured against the model's pick."""

    option: str
    """The ``PlannerOptions`` field (a ``VARIANT_FIELDS`` entry) measured."""
    value: Any
    """The option's value in the option arm."""
    name: str
    """The kernel's label in the records (``lib.matmul``, ``tests:softmax_parts``)."""
    kernel: Callable[[], Any]
    """The ``@tc.kernel`` (imported on first use)."""
    shape: tuple[int, ...]
    """The problem's extents, as recorded."""
    dtype: str
    """The inputs' element type, as recorded."""
    args: tuple[Arg, ...]
    """The runtime arguments."""
    want: Callable[..., dict[int, Any]] | None = None
    """Torch's result of each output (by argument position) from the device arguments, in
    float32; None: no torch equivalent (the arms are checked against each other)."""
    torch_fn: Callable[..., Any] | None = None
    """The torch call timed beside the arms (None: none is timed)."""
    constexprs: dict[str, Any] = field(default_factory=dict)
    """Constexprs fixed for both arms (tunables left out are the model's)."""
    base: dict[str, Any] = field(default_factory=dict)
    """Variant entries of both arms, merged over the model's variant."""
    static_shapes: bool = False
    """Compile with static extents (a proof needs a constant trip count)."""
    tol: float = 1e-4
    """Largest ``max |got - want| / max(1, max |want|)`` accepted; 0: bit for bit."""
    quick: bool = False
    """In the ``--quick`` set."""
    host_inputs: Callable[[], list[Any]] | None = None
    """Numpy arguments of fixed contents instead of random ones (special values)."""

    @property
    def label(self) -> str:
        """``name shape dtype``, for progress lines."""
        return f"{self.name} {'x'.join(map(str, self.shape))} {self.dtype}"


def _lib(name: str) -> Callable[[], Any]:
    def get() -> Any:
        import tilec.lib as lib

        return getattr(lib, name)
    return get


def _from_tests(module: str, name: str) -> Any:
    """``name`` of one of the tests' shared kernel modules (``tests/``, ``tests/regression``:
    the kernels whose programs the per-option tests show the option changing)."""
    import importlib

    for p in (_HERE.parent / "tests", _HERE.parent / "tests" / "regression"):
        if str(p) not in sys.path:
            sys.path.append(str(p))
    return getattr(importlib.import_module(module), name)


def _tests(module: str, name: str) -> Callable[[], Any]:
    return lambda: _from_tests(module, name)


# torch's results, float32, by output position


def _mm(a: Any, b: Any, *_: Any) -> dict[int, Any]:
    return {2: a.float() @ b.float()}


def _mm_torch(a: Any, b: Any, *_: Any) -> Any:
    import torch

    return torch.matmul(a, b)


def _bias_relu(a: Any, b: Any, bias: Any, c: Any) -> dict[int, Any]:
    return {3: (a.float() @ b.float() + bias.float()[None, :]).relu()}


def _bias_relu_torch(a: Any, b: Any, bias: Any, c: Any) -> Any:
    return (a @ b + bias).relu()


def _scaled_relu(a: Any, b: Any, c: Any, alpha: float) -> dict[int, Any]:
    return {2: (alpha * (a.float() @ b.float())).relu()}


def _scaled_relu_torch(a: Any, b: Any, c: Any, alpha: float) -> Any:
    return (alpha * (a @ b)).relu()


def _layernorm(x: Any, w: Any, b: Any, y: Any, eps: float) -> dict[int, Any]:
    import torch

    return {3: torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, eps)}


def _layernorm_torch(x: Any, w: Any, b: Any, y: Any, eps: float) -> Any:
    import torch

    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, eps)


def _softmax(x: Any, y: Any) -> dict[int, Any]:
    return {1: x.softmax(dim=1)}


def _softmax_torch(x: Any, y: Any) -> Any:
    return x.softmax(dim=1)


def _read_own(x: Any, out: Any) -> dict[int, Any]:
    return {1: 2.0 * x + 1.0}


def _read_transposed(x: Any, out: Any) -> dict[int, Any]:
    b = x.shape[1]
    return {1: x.reshape(-1, b, b).transpose(1, 2).reshape(x.shape)}


def _column_sums(x: Any, out: Any) -> dict[int, Any]:
    b = x.shape[1]
    return {1: x.reshape(-1, b, b).sum(1)}


def _softmax_parts(x: Any, y: Any, s: Any, p: Any, q: Any) -> dict[int, Any]:
    d = x * 0.5 - y
    e = (d - d.max(1, keepdim=True).values).exp()
    return {2: e.sum(1), 3: e * y, 4: d * y}


def _attention(q: Any, k: Any, v: Any, o: Any, scale: float) -> dict[int, Any]:
    import torch

    return {3: torch.nn.functional.scaled_dot_product_attention(
        q.float()[None], k.float()[None], v.float()[None], scale=scale)[0]}


def _attention_torch(q: Any, k: Any, v: Any, o: Any, scale: float) -> Any:
    import torch

    return torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None],
                                                            scale=scale)


def _gemm(option: str, value: Any, m: int, n: int, k: int, dtype: str = "bf16",
          out: str = "f32", kernel: str = "matmul", **kw: Any) -> Case:
    """A ``lib.matmul``-like case ``C (m x n) = A (m x k) @ B (k x n)``."""
    b = _inp(n, k, dtype=dtype) if kernel == "linear" else _inp(k, n, dtype=dtype)
    want = (lambda a, w, c: {2: a.float() @ w.float().t()}) if kernel == "linear" else _mm
    torch_fn = (lambda a, w, c: a @ w.t()) if kernel == "linear" else _mm_torch
    return Case(option, value, f"lib.{kernel}", _lib(kernel), (m, n, k), dtype,
                (_inp(m, k, dtype=dtype), b, _out(m, n, dtype=out)),
                want=want, torch_fn=torch_fn, **kw)


def _special_mn(m: int, n: int, k: int) -> Callable[[], list[Any]]:
    def make() -> list[Any]:
        import ml_dtypes

        return _from_tests("bounded_mn_cases", "special")(m, n, k, dt=ml_dtypes.bfloat16)
    return make


def _mn_case(m: int, n: int, k: int, **kw: Any) -> Case:
    return Case("bounded_mn_views", True, "tests:matmul_from",
                _tests("bounded_mn_cases", "matmul_from"), (m, n, k), "bf16",
                (_inp(m, k, dtype="bf16"), _inp(k, n, dtype="bf16"), _out(m, n)),
                want=_mm, tol=0.0, host_inputs=_special_mn(m, n, k), **kw)


CASES: tuple[Case, ...] = (
    # forwarded fragments: skinny M, where shared staging may not pay (the model's own pick
    # pins its thread count, at which the forwarded rectangle is not chosen: a finding)
    _gemm("forward_snapshots", True, 16, 4096, 4096),
    _gemm("forward_snapshots", True, 16, 4096, 4096, constexprs={"BM": 16, "BN": 64, "BK": 64},
          quick=True),
    _gemm("forward_snapshots", True, 16, 4096, 4096, constexprs={"BM": 32, "BN": 128, "BK": 64},
          base={"split_k": 8}),
    # bounded K views: a ragged K (the proof needs static extents; the warpgroup
    # realization does not take it, so f32, where the picks are mma rectangles)
    _gemm("bounded_k_views", True, 4096, 4096, 100, dtype="f32", static_shapes=True,
          quick=True),
    _gemm("bounded_k_views", True, 2048, 2048, 1000, dtype="f32", static_shapes=True),
    # bounded M/N views: ragged edges, exact (special values at the edges)
    _mn_case(1000, 1000, 320, quick=True),
    _mn_case(200, 136, 96),
    # epilogue fusion (on by default: the arm turns it off) on a 16-bit output and a bias
    _gemm("fuse_matrix_epilogues", False, 4096, 4096, 4096, out="bf16", tol=1e-2, quick=True,
          constexprs={"BM": 128, "BN": 128, "BK": 64}),
    # (the model's 128x256x64 pick fits only fused: unfused, no matrix plan fits and the
    # checked scalar reference runs, with a PerformanceWarning)
    _gemm("fuse_matrix_epilogues", False, 4096, 4096, 4096, out="bf16", tol=1e-2),
    Case("fuse_matrix_epilogues", False, "lib.gemm_bias_act", _lib("gemm_bias_act"),
         (4096, 4096, 4096), "bf16",
         (_inp(4096, 4096, dtype="bf16"), _inp(4096, 4096, dtype="bf16"), _inp(4096),
          _out(4096, 4096, dtype="bf16")),
         want=_bias_relu, torch_fn=_bias_relu_torch, tol=1e-2),
    # barrier coalescing (on by default: the arm keeps the reference sequence)
    Case("coalesce_group_barriers", False, "lib.layernorm", _lib("layernorm"), (4096, 8192),
         "f32", (_inp(4096, 8192), _inp(8192), _inp(8192), _out(4096, 8192), _scalar(1e-5)),
         want=_layernorm, torch_fn=_layernorm_torch, constexprs={"BM": 1, "BN": 8192},
         quick=True),
    Case("coalesce_group_barriers", False, "lib.softmax", _lib("softmax"), (4096, 8192),
         "f32", (_inp(4096, 8192), _out(4096, 8192)), want=_softmax,
         torch_fn=_softmax_torch, constexprs={"BM": 1, "BN": 8192}, tol=1e-5),
    # independent-subgroup barriers: shared round trips read within a subgroup
    Case("elide_independent_subgroup_barriers", True, "tests:read_transposed",
         _tests("subgroup_kernels", "read_transposed"), (1 << 20, 16), "f32",
         (_inp(1 << 20, 16), _out(1 << 20, 16)), want=_read_transposed,
         base={"threads": 32}, quick=True),
    Case("elide_independent_subgroup_barriers", True, "tests:read_own",
         _tests("subgroup_kernels", "read_own"), (1 << 20, 32), "f32",
         (_inp(1 << 20, 32), _out(1 << 20, 32)), want=_read_own),
    Case("elide_independent_subgroup_barriers", True, "tests:column_sums",
         _tests("subgroup_kernels", "column_sums"), (1 << 20, 32), "f32",
         (_inp(1 << 20, 32), _out(1 << 15, 32)), want=_column_sums, tol=1e-5),
    # copy batching: synchronous staged copies in every K step
    _gemm("max_copy_batch", 8, 4096, 4096, 4100, constexprs={"BM": 128, "BN": 128, "BK": 64},
          quick=True),
    _gemm("max_copy_batch", 8, 4096, 4096, 4096, constexprs={"BM": 128, "BN": 128, "BK": 64},
          base={"async_copies": False}),
    # traversal on big GEMMs: the model's persistent pick already walks grouped:8 (so
    # grouped:8 changes nothing there: a finding); grouped:1 is row-major
    _gemm("program_traversal", "grouped:8", 4096, 4096, 4096),
    _gemm("program_traversal", "grouped:1", 8192, 8192, 8192, quick=True),
    _gemm("program_traversal", "grouped:16", 4096, 4096, 4096),
    _gemm("program_traversal", "grouped:8", 4096, 4096, 4096, base={"persistent": 0}),
    # ring versions planned with the candidate
    _gemm("plan_ring_versions", True, 2048, 2048, 2048),
    _gemm("plan_ring_versions", True, 2048, 2048, 2048,
          constexprs={"BM": 64, "BN": 256, "BK": 64}, quick=True),
    _gemm("plan_ring_versions", True, 2048, 2048, 2048, base={"warp_specialized": False}),
    # shared SSA: values with several consumers in softmax-like kernels
    Case("shared_ssa", "recompute", "tests:softmax_parts",
         _tests("shared_value_kernels", "softmax_parts"), (1 << 20, 32), "f32",
         (_inp(1 << 20, 32), _inp(1 << 20, 32), _out(1 << 20), _out(1 << 20, 32),
          _out(1 << 20, 32)), want=_softmax_parts, tol=1e-5, quick=True),
    Case("shared_ssa", "materialize", "tests:softmax_parts",
         _tests("shared_value_kernels", "softmax_parts"), (1 << 20, 32), "f32",
         (_inp(1 << 20, 32), _inp(1 << 20, 32), _out(1 << 20), _out(1 << 20, 32),
          _out(1 << 20, 32)), want=_softmax_parts, tol=1e-5),
    Case("shared_ssa", "recompute", "lib.flash_attention", _lib("flash_attention"),
         (32, 4096, 64), "bf16",
         (_inp(32, 4096, 64, dtype="bf16"), _inp(32, 4096, 64, dtype="bf16"),
          _inp(32, 4096, 64, dtype="bf16"), _out(32, 4096, 64, dtype="bf16"),
          _scalar(0.125)),
         want=_attention, torch_fn=_attention_torch, constexprs={"HEAD_DIM": 64}, tol=2e-2),
)
"""Every case, family by family."""

FAMILIES = tuple(dict.fromkeys(c.option for c in CASES))
"""The measured options, in order."""


# --------------------------------------------------------------------------- running


def host_spec(case: Case) -> list[Any]:
    """Uninitialized numpy arrays of the case's shapes and types, and its scalars: what
    resolving the model's pick and compiling need."""
    import ml_dtypes
    import numpy as np

    types = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
    return [np.float32(a.value) if a.role == "scalar" else np.empty(a.shape, types[a.dtype])
            for a in case.args]


def device_args(case: Case) -> list[Any]:
    """The case's arguments on the GPU (torch tensors; scalars as Python floats)."""
    import torch

    from tilec.testing.fuzz.paths import to_device

    if case.host_inputs is not None:
        return [to_device(torch, a) if hasattr(a, "shape") and a.shape else float(a)
                for a in case.host_inputs()]
    types = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
    gen = torch.Generator(device="cuda").manual_seed(sum(case.shape))
    out: list[Any] = []
    for a in case.args:
        if a.role == "scalar":
            out.append(float(a.value))
        elif a.role == "out":
            out.append(torch.full(a.shape, float("nan"), device="cuda", dtype=types[a.dtype]))
        else:
            out.append(torch.randn(a.shape, device="cuda", generator=gen,
                                   dtype=torch.float32).to(types[a.dtype]))
    return out


@dataclass
class Arms:
    """The two compiled arms of a case."""

    values: dict[str, Any]
    """The model's (or the fixed) tunable values, with the case's constexprs."""
    pick: str
    """How the values were chosen (``Resolution`` as text)."""
    base: dict[str, Any]
    """The baseline's plan variant."""
    variant: dict[str, Any]
    """The option arm's plan variant."""
    baseline: Any
    """The baseline's ``Compiled``."""
    option: Any
    """The option arm's ``Compiled``."""
    changed: bool
    """Whether the two CUDA sources differ."""


def compile_arms(case: Case, target: str, args: Sequence[Any] | None = None) -> Arms:
    """Resolve the model's pick for the case and compile both arms up to their source, for
    ``args`` (None: the case's uninitialized host arrays, which is all a dry run needs)."""
    import tilec as tc

    kernel = case.kernel()
    spec = host_spec(case)
    sel = kernel.resolve(spec, target, static_shapes=case.static_shapes, **case.constexprs)
    values = {**case.constexprs, **sel.values}
    base = {**dict(sel.variant), **case.base}
    variant = {**base, case.option: case.value}
    arms = [tc.compile(kernel, *(spec if args is None else args), target=target,
                       static_shapes=case.static_shapes, variant=v or None, **values)
            for v in (base, variant)]
    texts = [a.compilation("emit").source.text for a in arms]
    return Arms(values, str(sel), base, variant, arms[0], arms[1], texts[0] != texts[1])


def _error(got: Any, want: Any) -> float:
    """``max |got - want| / max(1, max |want|)`` over the finite elements of ``want``;
    an element where one is NaN (or infinite) and the other is not counts as infinite."""
    import torch

    g, w = got.double().reshape(want.shape), want.double()
    same = (g == w) | (torch.isnan(g) & torch.isnan(w))
    diff = torch.where(same, torch.zeros_like(g), (g - w).abs()).nan_to_num(float("inf"))
    scale = max(1.0, float(w.abs().nan_to_num(0.0, 0.0, 0.0).max()))
    return float(diff.max()) / scale


def _bitwise(got: Any, want: Any) -> bool:
    import torch

    both_nan = torch.isnan(got) & torch.isnan(want)
    same = (got == want) & (torch.signbit(got) == torch.signbit(want))
    return bool((both_nan | same).all())


def check(case: Case, arms: Arms, args: list[Any]) -> tuple[bool, dict[str, Any]]:
    """Run both arms on poisoned outputs; each against torch where it has an equivalent,
    and against each other. Returns whether both are right and the errors."""
    import torch

    outs = [i for i, a in enumerate(case.args) if a.role == "out"]
    results = []
    for compiled in (arms.baseline, arms.option):
        for i in outs:
            args[i].fill_(float("nan"))
        compiled(*args)
        torch.cuda.synchronize()
        results.append({i: args[i].float().clone() for i in outs})
    info: dict[str, Any] = {}
    ok = True
    if case.tol == 0.0:
        same = all(_bitwise(results[1][i], results[0][i]) for i in outs)
        info["bitwise_equal"] = same
        ok = ok and same
    else:
        err = max(_error(results[1][i], results[0][i]) for i in outs)
        info["arms_rel_err"] = err
        ok = ok and err <= case.tol
    if case.want is not None:
        want = case.want(*args)
        for arm, res in zip(("baseline", "option"), results, strict=True):
            err = max(_error(res[i], want[i].float()) for i in want)
            info[f"{arm}_rel_err"] = err
            ok = ok and err <= max(case.tol, 1e-6)
    for arm, res in zip(("baseline", "option"), results, strict=True):
        if any(bool(torch.isnan(res[i]).all()) for i in outs):
            info[f"{arm}_unwritten"] = True
            ok = False
    return ok, info


def timed(case: Case, arms: Arms, args: list[Any], rounds: int) -> dict[str, float]:
    """Median device ms per call of the baseline, the option and torch (where timed):
    ``rounds`` rounds of every order of the arms (``tilec.tuning.measure.replay``)."""
    import functools

    from tilec.tuning.measure import Timer, replay

    timer = Timer("cuda", batch_ms=BATCH_MS, uses_torch=True)
    runs = {"baseline": functools.partial(arms.baseline, *args),
            "option": functools.partial(arms.option, *args)}
    if case.torch_fn is not None:
        runs["torch"] = functools.partial(case.torch_fn, *args)
    pairs = [(run, timer.calls_per_batch(run)) for run in runs.values()]
    times = replay(timer, pairs, rounds)
    return {k: statistics.median(t) for k, t in zip(runs, times, strict=True)}


def selected_cases(families: str | None, quick: bool) -> list[Case]:
    """The cases of ``families`` (comma-separated; None: every family), the quick set
    only with ``quick``."""
    want = FAMILIES if not families else tuple(f for f in families.split(",") if f)
    bad = sorted(set(want) - set(FAMILIES))
    if bad:
        raise SystemExit(f"unknown families {', '.join(bad)}; known: {', '.join(FAMILIES)}")
    return [c for c in CASES if c.option in want and (c.quick or not quick)]


def dry_run(cases: Sequence[Case], build: bool = False) -> int:
    """Compile every case for ``cuda:sm_90`` up to its source (``build``: and its cubins,
    with NVRTC, timed); print what changed. Returns 1 when a family changes no kernel's
    source or a case fails to compile."""
    changed: dict[str, bool] = {}
    failed = False
    t0 = time.perf_counter()
    for case in cases:
        try:
            arms = compile_arms(case, DRY_TARGET)
            t1 = time.perf_counter()
            if build:
                for a in (arms.baseline, arms.option) if arms.changed else (arms.baseline,):
                    a.executable()
            built = f" built in {time.perf_counter() - t1:4.1f}s" if build else ""
        except Exception as e:  # a case the compiler rejects is reported, not fatal
            failed = True
            print(f"{case.option:36s} {case.label:36s} FAILED {type(e).__name__}: "
                  f"{str(e).splitlines()[0][:160]}", flush=True)
            continue
        changed[case.option] = changed.get(case.option, False) or arms.changed
        what = "changed" if arms.changed else "UNCHANGED"
        print(f"{case.option:36s} {case.label:36s} {what:9s} [{time.perf_counter() - t0:5.1f}s]"
              f"{built} {arms.values} {arms.variant}", flush=True)
    idle = [f for f in dict.fromkeys(c.option for c in cases) if not changed.get(f)]
    if idle:
        print(f"families that changed no kernel's source: {', '.join(idle)}")
    return 1 if idle or failed else 0


def measure(cases: Sequence[Case], budget_s: float, rounds: int) -> int:
    """Compile, check and time every case within ``budget_s``; write the records."""
    if str(_HERE) not in sys.path:
        sys.path.insert(0, str(_HERE))
    from cuda_common import Recorder

    rec = Recorder("cuda_options")
    t0 = time.perf_counter()
    wrong = False
    skipped: list[str] = []
    try:
        for case in cases:
            elapsed = time.perf_counter() - t0
            if elapsed > budget_s:
                skipped.append(f"{case.option} {case.label}")
                continue
            print(f"[{elapsed:6.1f}s] {case.option}={case.value!r} {case.label}", flush=True)
            common = {"option": case.option, "value": case.value}
            try:
                args = device_args(case)
                arms = compile_arms(case, "cuda", args)
                for a in (arms.baseline, arms.option) if arms.changed else ():
                    a.executable()
            except Exception as e:
                rec.add(case.name, case.shape, case.dtype, None, "model pick", None,
                        **common, changed=None,
                        note=f"compile failed: {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:160]}")
                wrong = True
                continue
            extra = {**common, "changed": arms.changed, "config": arms.values,
                     "pick": arms.pick, "baseline_variant": arms.base,
                     "option_variant": arms.variant}
            if not arms.changed:
                rec.add(case.name, case.shape, case.dtype, None, "model pick", None,
                        **extra, note="the option left the source as it was")
                continue
            ok, info = check(case, arms, args)
            if not ok:
                wrong = True
                rec.add(case.name, case.shape, case.dtype, None, "model pick", None,
                        **extra, **info, right=False, note=f"MISMATCH {info}")
                continue
            if time.perf_counter() - t0 > budget_s:
                skipped.append(f"{case.option} {case.label} (checked, not timed)")
                continue
            med = timed(case, arms, args, rounds)
            rec.add(case.name, case.shape, case.dtype, med["option"], "model pick",
                    med["baseline"], **extra, **info, right=True,
                    torch_ms=med.get("torch"), rounds=rounds,
                    note=f"{case.option}={case.value!r} torch "
                         f"{med['torch']:.3f} ms" if "torch" in med else
                         f"{case.option}={case.value!r}")
    finally:
        if rec.records:
            rec.write()
    if skipped:
        print(f"budget of {budget_s:.0f} s spent; not reached: {'; '.join(skipped)}")
    return 1 if wrong else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=None,
                    help=f"comma-separated options to measure (default all: "
                         f"{', '.join(FAMILIES)})")
    ap.add_argument("--quick", action="store_true", help="one case per family")
    ap.add_argument("--budget-s", type=float, default=240.0,
                    help="start no case past this many seconds (records are still written)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="replay rounds (each: every order of the arms)")
    ap.add_argument("--dry-run", action="store_true",
                    help=f"no GPU: compile for {DRY_TARGET} and say what each option changed")
    ap.add_argument("--build", action="store_true",
                    help="with --dry-run: also build the cubins (NVRTC) and time the builds")
    args = ap.parse_args(argv)
    # no tuning record applies: the baseline is the model's pick, priced here
    os.environ["TILEC_CACHE_DIR"] = os.environ.get("TILEC_CACHE_DIR") or tempfile.mkdtemp()
    cases = selected_cases(args.families, args.quick)
    if args.dry_run:
        return dry_run(cases, build=args.build)
    return measure(cases, args.budget_s, args.rounds)


if __name__ == "__main__":
    raise SystemExit(main())
