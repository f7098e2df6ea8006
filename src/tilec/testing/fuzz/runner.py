"""One program on the requested paths: the oracle check first, then every path against the
reference (or, when the reference itself failed, against the model).

The reference's result is compared with the model; a disagreement is a
failure on the ``reference`` path. Each other path's outputs are compared
with the reference's under twice the model's bounds. Every run starts from
freshly poisoned outputs.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .compare import compare_arrays
from .numerics import MV
from .paths import Outcome, execute, is_gpu
from .program import Program, load_kernel

__all__ = ["ProgramResult", "run_program", "FAILURES", "judge", "compile_only"]

FAILURES = ("mismatch", "internal", "timeout")
"""Outcome kinds that are failures."""


@dataclass
class ProgramResult:
    """What one program did on each path."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    """Per path."""
    unknown: int = 0
    """Elements the model could not bound (skipped), over every output."""
    exact: int = 0
    """Elements compared bit for bit (against the model)."""
    elements: int = 0
    """Output elements in all."""
    features: list[str] = field(default_factory=list)
    """The program's feature tags."""
    source: str = ""
    """The kernel source."""
    model_error: str = ""
    """Set when the model itself raised (a fuzzer bug; counted as internal on reference)."""
    deferred: Any = None
    """With ``defer_gpu``: ``(reference outputs or None, model)`` for the launch that follows."""


def _fresh(args: Sequence[Any]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else copy.copy(a) for a in args]


def run_program(prog: Program, paths: Sequence[str], workdir: str | None = None,
                timeout: float | None = 120.0, keep_file: bool = False,
                gpu_runner: Any = None, progress: Any = None,
                defer_gpu: bool = False) -> ProgramResult:
    """Run ``prog`` on ``paths`` (``reference`` is always run first, for the comparisons).

    ``gpu_runner(kernel, args, file, path)`` runs the GPU paths (``cuda``, and ``cuda`` with
    a plan variant: ``paths.is_gpu``) when given; with ``defer_gpu`` they are only compiled
    here (outcome ``pending``) and ``deferred`` keeps what their launches are compared
    with.
    """
    src = prog.source()
    res = ProgramResult(source=src, features=sorted(prog.features()))
    kernel, path = load_kernel(src, workdir)
    try:
        base = prog.make_args()
        outs = prog.outputs()
        try:
            model = prog.model(_fresh(base))
        except Exception as e:  # a bug of the fuzzer's model: never hidden
            res.model_error = f"{type(e).__name__}: {e}"
            res.outcomes["reference"] = Outcome("internal", f"model: {type(e).__name__}",
                                                res.model_error)
            return res
        for i in outs:
            m = model[i]
            res.elements += m.a.size
            res.unknown += int(np.isinf(m.e).sum())
            res.exact += int((m.e == 0).sum())
        ref_out: dict[int, np.ndarray] | None = None
        order = ["reference"] + [p for p in paths if p != "reference"]
        for p in order:
            args = _fresh(base)
            if progress is not None:
                progress(p)
            if is_gpu(p) and defer_gpu:
                out = compile_only(p, kernel, args, path)
                if out.kind == "pending":
                    res.deferred = (ref_out, model)
                res.outcomes[p] = out
                continue
            if is_gpu(p) and gpu_runner is not None:
                out = gpu_runner(kernel, args, path, p)
            else:
                out = execute(p, kernel, args, path, timeout)
            if out.kind == "ran":
                got = {i: args[i] for i in outs}
                warned = out.warned
                if p == "reference":
                    out = _judge(got, model, None, "reference vs model")
                    if out.kind == "ok":
                        ref_out = got
                else:
                    out = _judge(got, model, ref_out, f"{p} vs reference" if ref_out is not None
                                 else f"{p} vs model (the reference failed)")
                out.warned = warned
            if p in paths or p == "reference":
                res.outcomes[p] = out
        _attribute(res)
        return res
    finally:
        if not keep_file:
            try:
                os.unlink(path)
            except OSError:
                pass


def compile_only(path: str, kernel: Any, args: list[Any], file: str) -> Outcome:
    """Capture, lower and compile for ``path``'s target (and plan variant) without running:
    ``pending`` or the error."""
    import tilec as tc

    from .paths import classify, split_path

    target, variant = split_path(path)
    try:
        tc.compile(kernel, *args, target=target, variant=variant).executable()
    except Exception as e:  # classified like a run's failure
        return classify(e, file)
    return Outcome("pending")


def judge(got: dict[int, np.ndarray], model: dict[int, MV], ref: dict[int, np.ndarray] | None,
          path: str) -> Outcome:
    """Compare a path's outputs with the reference's (or the model's when there is none)."""
    return _judge(got, model, ref, f"{path} vs reference" if ref is not None
                  else f"{path} vs model (the reference failed)")


def _judge(got: dict[int, np.ndarray], model: dict[int, MV], ref: dict[int, np.ndarray] | None,
           what: str) -> Outcome:
    details = []
    kinds: set[str] = set()
    for i, g in got.items():
        m = model[i]
        want = ref[i] if ref is not None else m.a
        v = compare_arrays(g, want, m.e, 2.0 if ref is not None else 1.0)
        if not v.ok:
            details.append(f"output {i}: {v.detail}")
            kinds.update(v.kinds)
    if details:
        # the broken rules are part of the reason, so a shrink keeps the same kind of failure
        return Outcome("mismatch", f"{what} ({', '.join(sorted(kinds))})", "; ".join(details))
    return Outcome("ok")


def _attribute(res: ProgramResult) -> None:
    """When the oracle check failed, say which side another path agrees with."""
    ref = res.outcomes.get("reference")
    if ref is None or ref.kind != "mismatch":
        return
    agree = [p for p, o in res.outcomes.items() if p != "reference" and o.kind == "ok"]
    if agree:
        ref.detail += f" [the reference is the odd one out: {', '.join(agree)} agree with the " \
                      "model]"
    else:
        ref.detail += " [no other path agrees with the model: the model may be wrong]"
