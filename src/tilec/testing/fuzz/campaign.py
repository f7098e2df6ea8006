"""A campaign: generate programs, run them on the paths in worker processes, count outcomes,
shrink each new kind of failure and write it as a file; JSON records of the counts.

Workers are separate processes (a crash in compiled code ends a worker, not
the campaign: the program is counted ``internal`` on the path it was
running). With the ``cuda`` path, workers also compile each program for the
GPU (the compile caches keep the cubins) and one launching process, a child of
the main one, launches them one at a time (``gpu.GpuRunner``: it is replaced
when a program loses its CUDA context, and the table and records count the
replacements).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from tilec.testing.host import cpu_name

from .choices import ChoiceStream
from .generator import generate
from .paths import Outcome, is_gpu
from .runner import FAILURES, ProgramResult, run_program

__all__ = ["Campaign", "PathCounts", "run_campaign", "program_seed", "records"]


def program_seed(seed: int, i: int) -> int:
    """The stream seed of program ``i`` of a campaign seeded ``seed``."""
    return seed * 1_000_003 + i


@dataclass
class PathCounts:
    """Outcome counts of one path."""

    programs: int = 0
    """Programs run on the path."""
    ok: int = 0
    """Matched."""
    mismatch: int = 0
    """Differed from the reference (or, on ``reference``, from the model)."""
    rejected: Counter = field(default_factory=Counter)
    """Rejections by reason."""
    internal: Counter = field(default_factory=Counter)
    """Internal errors by reason."""
    timeout: int = 0
    """Ran past the limit."""
    warned: Counter = field(default_factory=Counter)
    """Warnings by reason (any outcome; a recovered C compiler crash, for example)."""

    def add(self, o: Outcome) -> None:
        """Count one outcome."""
        self.programs += 1
        self.warned.update(o.warned)
        if o.kind == "ok":
            self.ok += 1
        elif o.kind == "mismatch":
            self.mismatch += 1
        elif o.kind == "rejected":
            self.rejected[o.reason] += 1
        elif o.kind == "timeout":
            self.timeout += 1
        else:
            self.internal[o.reason] += 1


@dataclass
class Failure:
    """One failing (program, path)."""

    index: int
    """The program's index in the campaign."""
    path: str
    """Where it failed."""
    outcome: Outcome
    """How."""
    choices: list[int]
    """Its stream."""
    file: str = ""
    """The failure file written for it (the first of its kind, shrunk)."""


@dataclass
class Campaign:
    """Counts and failures of a campaign."""

    paths: list[str]
    """The paths run."""
    seed: int
    """The campaign seed."""
    weights: dict[str, int]
    """Feature family weights."""
    counts: dict[str, PathCounts] = field(default_factory=dict)
    """Per path."""
    failures: list[Failure] = field(default_factory=list)
    """Every failure, in program order."""
    programs: int = 0
    """Programs generated."""
    unknown: int = 0
    """Output elements the model left unbounded (not compared)."""
    exact: int = 0
    """Output elements compared bit for bit."""
    elements: int = 0
    """Output elements in all."""
    features: Counter = field(default_factory=Counter)
    """Programs per feature tag."""
    seconds: float = 0.0
    """Wall time."""
    commit: str | None = None
    """The checkout's commit when the campaign started (the code it ran)."""
    gpu_restarts: Counter = field(default_factory=Counter)
    """Replacements of the GPU launching process (``gpu.GpuRunner.restarts``), by the reason
    of the outcome that caused each (a lost CUDA context, a death, a hang), runs and shrinking
    together; empty without a GPU path."""

    def add(self, index: int, choices: list[int], res: ProgramResult) -> list[Failure]:
        """Count one program's result; returns its failures."""
        self.programs += 1
        self.unknown += res.unknown
        self.exact += res.exact
        self.elements += res.elements
        self.features.update(res.features)
        new = []
        for p, o in res.outcomes.items():
            self.counts.setdefault(p, PathCounts()).add(o)
            if o.kind in FAILURES:
                f = Failure(index, p, o, choices)
                self.failures.append(f)
                new.append(f)
        return new

    def failed(self) -> bool:
        """True when any path had a failure."""
        return bool(self.failures)

    def table(self) -> str:
        """The summary table: programs per path and their outcomes."""
        rows = [("path", "programs", "ok", "mismatch", "rejected", "internal", "timeout")]
        for p in self.paths:
            c = self.counts.get(p, PathCounts())
            rows.append((p, str(c.programs), str(c.ok), str(c.mismatch),
                         str(sum(c.rejected.values())), str(sum(c.internal.values())),
                         str(c.timeout)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                           for i, (v, w) in enumerate(zip(r, widths))) for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        for p in self.paths:
            c = self.counts.get(p, PathCounts())
            for what, counter in (("rejected", c.rejected), ("internal", c.internal),
                                  ("warned", c.warned)):
                for reason, n in counter.most_common():
                    lines.append(f"  {p} {what} {n}x: {reason}")
        if any(is_gpu(p) for p in self.paths):
            lines.append(f"GPU launching process restarts: {sum(self.gpu_restarts.values())} "
                         "(a lost CUDA context, a crash or a hang; later programs ran in a "
                         "fresh process)")
            for reason, n in self.gpu_restarts.most_common():
                lines.append(f"  restarted {n}x after: {reason}")
        frac = self.unknown / self.elements if self.elements else 0.0
        lines.append(f"{self.programs} programs, {self.elements} output elements "
                     f"({self.exact} bit-exact, {self.unknown} unbounded = {frac:.1%}), "
                     f"{self.seconds:.0f} s")
        return "\n".join(lines)


# ---------------------------------------------------------------------- workers


def _worker(conn: Connection, workdir: str) -> None:
    """A worker process: answer tasks until told to stop."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        kind = task["kind"]
        try:
            if kind == "run":
                conn.send(("done", _run_task(task, workdir, conn)))
            elif kind == "shrink":
                conn.send(("done", _shrink_task(task, workdir)))
        except Exception as e:  # report, never hide
            conn.send(("error", f"{type(e).__name__}: {e}"))


def _run_task(task: dict[str, Any], workdir: str, conn: Connection | None) -> Any:
    s = ChoiceStream(task["stream_seed"])
    prog = generate(s, task["weights"])
    choices = list(s.record)

    def progress(path: str) -> None:
        if conn is not None:
            conn.send(("path", path))

    res = run_program(prog, task["paths"], workdir, task["timeout"], progress=progress,
                      defer_gpu=task.get("defer_gpu", False))
    return task["index"], choices, res


def _signature(o: Outcome, path: str) -> tuple[str, str, str]:
    """How a failure is the same failure: path, outcome and reason (for a mismatch, the
    comparison and the rules it broke)."""
    return (path, o.kind, o.reason)


def _shrink_task(task: dict[str, Any], workdir: str) -> Any:
    from .shrink import shrink, spans_of

    weights = task["weights"]
    path = task["path"]
    want = tuple(task["signature"])

    def fails(c: list[int]) -> bool:
        prog = generate(ChoiceStream.replay(c), weights)
        res = run_program(prog, [path], workdir, task["timeout"])
        o = res.outcomes.get(path)
        return o is not None and _signature(o, path) == want

    r = shrink(task["choices"], fails, spans_of(lambda s: generate(s, weights)),
               task["max_trials"], task["max_seconds"])
    prog = generate(ChoiceStream.replay(r.choices), weights)
    res = run_program(prog, [path], workdir, task["timeout"])
    return r, prog.source(), res.outcomes.get(path)


class _Pool:
    """Worker processes with one task each at a time; a dead worker is replaced."""

    def __init__(self, n: int, workdir: str) -> None:
        self.ctx = mp.get_context("spawn")
        self.workdir = workdir
        self.workers: list[list[Any]] = []  # [process, conn, task, current path]
        for _ in range(n):
            self.workers.append(self._spawn())

    def _spawn(self) -> list[Any]:
        a, b = self.ctx.Pipe()
        p = self.ctx.Process(target=_worker, args=(b, self.workdir), daemon=True)
        p.start()
        b.close()
        return [p, a, None, ""]

    def idle(self) -> list[int]:
        return [i for i, w in enumerate(self.workers) if w[2] is None]

    def submit(self, i: int, task: dict[str, Any]) -> None:
        self.workers[i][2] = task
        self.workers[i][3] = ""
        self.workers[i][1].send(task)

    def busy(self) -> bool:
        return any(w[2] is not None for w in self.workers)

    def collect(self, timeout: float) -> list[tuple[dict[str, Any], str, Any]]:
        """Finished tasks: ``(task, status, payload)``; status ``done``, ``error`` or ``died``."""
        conns = [w[1] for w in self.workers if w[2] is not None]
        out = []
        for c in wait(conns, timeout):
            i = next(k for k, w in enumerate(self.workers) if w[1] is c)
            w = self.workers[i]
            try:
                msg = c.recv()
            except (EOFError, OSError):
                w[0].join(1)
                code = w[0].exitcode
                out.append((w[2], "died", (w[3], code)))
                self.workers[i] = self._spawn()
                continue
            if msg[0] == "path":
                w[3] = msg[1]
                continue
            out.append((w[2], msg[0], msg[1]))
            w[2] = None
        return out

    def close(self) -> None:
        for w in self.workers:
            try:
                w[1].send(None)
            except (OSError, BrokenPipeError):
                pass
        for w in self.workers:
            w[0].join(5)
            if w[0].is_alive():
                w[0].terminate()


# --------------------------------------------------------------------- campaign


def run_campaign(n: int | None, seed: int, paths: Sequence[str], weights: dict[str, int],
                 minutes: float | None = None, out_dir: str = "fuzz-failures", jobs: int = 1,
                 timeout: float = 120.0, shrink_trials: int = 150,
                 shrink_seconds: float = 240.0, max_shrinks: int = 6,
                 progress: Callable[[Campaign], None] | None = None,
                 progress_every: float = 30.0) -> Campaign:
    """Run programs ``0 .. n-1`` (or until ``minutes`` pass) of campaign ``seed``."""
    camp = Campaign(list(paths), seed, dict(weights), commit=_commit())
    t0 = time.monotonic()
    deadline = t0 + minutes * 60 if minutes else None
    gpu = any(is_gpu(p) for p in paths)
    gpu_runner = None
    if gpu:
        from .gpu import GpuRunner

        gpu_runner = GpuRunner(timeout)
    workdir = tempfile.mkdtemp(prefix="tilec-fuzz-")
    pool = _Pool(max(1, jobs), workdir)
    shrunk: set[tuple[str, str, str]] = set()
    pending_shrinks: list[Failure] = []
    next_index = 0
    last_report = time.monotonic()

    def more() -> bool:
        if n is not None and next_index >= n:
            return False
        return deadline is None or time.monotonic() < deadline

    def handle(f: Failure) -> None:
        sig = _signature(f.outcome, f.path)
        if sig not in shrunk and len(shrunk) < max_shrinks:
            shrunk.add(sig)
            pending_shrinks.append(f)

    try:
        while True:
            for i in pool.idle():
                if pending_shrinks:
                    f = pending_shrinks.pop(0)
                    if is_gpu(f.path):  # this process holds the launching child
                        _shrink_gpu(camp, f, gpu_runner, out_dir, workdir, timeout,
                                    shrink_trials, shrink_seconds)
                        continue
                    pool.submit(i, {"kind": "shrink", "choices": f.choices, "path": f.path,
                                    "signature": _signature(f.outcome, f.path),
                                    "weights": camp.weights, "timeout": timeout,
                                    "max_trials": shrink_trials, "max_seconds": shrink_seconds,
                                    "failure": f.index})
                elif more():
                    pool.submit(i, {"kind": "run", "index": next_index,
                                    "stream_seed": program_seed(seed, next_index),
                                    "paths": list(paths), "weights": camp.weights,
                                    "timeout": timeout, "defer_gpu": gpu})
                    next_index += 1
            if not pool.busy() and not pending_shrinks:
                break
            for task, status, payload in pool.collect(1.0):
                if task["kind"] == "run":
                    if status == "done":
                        idx, choices, res = payload
                        for p in [q for q in res.outcomes if is_gpu(q)]:
                            if gpu_runner is not None and res.outcomes[p].kind == "pending":
                                res.outcomes[p] = gpu_runner.finish(choices, camp.weights, res,
                                                                    p)
                    else:
                        idx = task["index"]
                        choices = _regenerated(task["stream_seed"], camp.weights)
                        res = _crashed(task, status, payload)
                    for f in camp.add(idx, choices, res):
                        handle(f)
                else:
                    _record_shrink(camp, task, status, payload, out_dir)
            if gpu_runner is not None:
                camp.gpu_restarts = Counter(gpu_runner.restart_causes)
            if progress is not None and time.monotonic() - last_report >= progress_every:
                camp.seconds = time.monotonic() - t0
                progress(camp)
                last_report = time.monotonic()
    finally:
        pool.close()
        if gpu_runner is not None:
            gpu_runner.close()
            camp.gpu_restarts = Counter(gpu_runner.restart_causes)
    camp.seconds = time.monotonic() - t0
    return camp


def _regenerated(stream_seed: int, weights: dict[str, int]) -> list[int]:
    """The choices of the program a worker died running: generation is deterministic, so
    the failure file regenerates that program (a fresh stream has recorded nothing)."""
    stream = ChoiceStream(stream_seed)
    try:
        generate(stream, weights)
    except Exception:  # the generator itself failed: the worker's report says so
        return []
    return list(stream.record)


def _crashed(task: dict[str, Any], status: str, payload: Any) -> ProgramResult:
    """A program whose worker died or raised: internal on the path it was running."""
    res = ProgramResult()
    if status == "died":
        path, code = payload
        res.outcomes[path or "reference"] = Outcome(
            "internal", f"the process died (exit code {code})",
            f"the worker died with exit code {code} while running {path or 'the generator'}")
    else:
        res.outcomes["reference"] = Outcome("internal", f"fuzzer: {payload[:80]}", payload)
    return res


def _record_shrink(camp: Campaign, task: dict[str, Any], status: str, payload: Any,
                   out_dir: str) -> None:
    from .repro import write_repro

    f = next((x for x in camp.failures if x.index == task["failure"]
              and x.path == task["path"]), None)
    if f is None:
        return
    if status != "done":
        source = generate(ChoiceStream.replay(f.choices), camp.weights).source()
        choices, outcome = f.choices, f.outcome
        note = f" (not shrunk: {status} {payload})"
    else:
        r, source, outcome = payload
        choices = r.choices
        note = f" (shrunk in {r.trials} trials)"
        if outcome is None or outcome.kind not in FAILURES:
            outcome = f.outcome
    name = f"{f.path.replace(':', '_')}-{f.outcome.kind}-{camp.seed}-{f.index}"
    f.file = write_repro(out_dir, name, source, choices, f.path, camp.weights, outcome.kind,
                         outcome.reason + note, outcome.detail)


def _shrink_gpu(camp: Campaign, f: Failure, gpu_runner: Any, out_dir: str, workdir: str,
                timeout: float, trials: int, seconds: float) -> None:
    """GPU failures shrink in the main process, which holds the launching child: each trial
    runs in a live CUDA context (a trial that loses it gets the child replaced), so the
    shrunk program fails by itself, not because an earlier trial killed the context."""
    from .repro import write_repro
    from .shrink import shrink, spans_of

    want = _signature(f.outcome, f.path)

    def fails(c: list[int]) -> bool:
        prog = generate(ChoiceStream.replay(c), camp.weights)
        res = run_program(prog, [f.path], workdir, timeout, gpu_runner=gpu_runner.run)
        o = res.outcomes.get(f.path)
        return o is not None and _signature(o, f.path) == want

    r = shrink(f.choices, fails, spans_of(lambda s: generate(s, camp.weights)), trials, seconds)
    prog = generate(ChoiceStream.replay(r.choices), camp.weights)
    name = f"{re.sub(r'[^A-Za-z0-9_]+', '_', f.path)}-{f.outcome.kind}-{camp.seed}-{f.index}"
    f.file = write_repro(out_dir, name, prog.source(), r.choices, f.path, camp.weights,
                         f.outcome.kind, f.outcome.reason + f" (shrunk in {r.trials} trials)",
                         f.outcome.detail)


# ------------------------------------------------------------------------ records


def _commit() -> str | None:
    """The tree's short commit: ``TILEC_COMMIT`` when set (a copy whose git metadata is
    absent or stale), else git's."""
    if os.environ.get("TILEC_COMMIT"):
        return os.environ["TILEC_COMMIT"]
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _device(paths: Sequence[str]) -> str:
    if any(is_gpu(p) for p in paths):
        try:
            import torch

            return torch.cuda.get_device_name(0)
        except Exception:
            pass
    return cpu_name()


def records(camp: Campaign, command: Sequence[str], minutes: float | None) -> list[dict]:
    """The JSON records of a campaign: one object per path, in the shape of
    ``benchmarks/results/``. ``gpu_restarts`` (and ``gpu_restarts_by_reason``) count the
    replacements of the GPU launching process (``Campaign.gpu_restarts``), shared by every
    GPU path of the campaign; 0 on the other paths."""
    date = time.strftime("%Y-%m-%d")
    commit = camp.commit or _commit()
    device = _device(camp.paths)
    out = []
    for p in camp.paths:
        c = camp.counts.get(p, PathCounts())
        out.append({
            "benchmark": "fuzz", "kernel": "fuzz", "target": p, "device": device,
            "date": date, "commit": commit, "command": " ".join(command), "seed": camp.seed,
            "minutes": minutes, "programs": c.programs, "ok": c.ok, "mismatch": c.mismatch,
            "rejected": sum(c.rejected.values()), "rejected_by_reason": dict(c.rejected),
            "internal": sum(c.internal.values()), "internal_by_reason": dict(c.internal),
            "timeout": c.timeout, "warned": sum(c.warned.values()),
            "warned_by_reason": dict(c.warned),
            "gpu_restarts": sum(camp.gpu_restarts.values()) if is_gpu(p) else 0,
            "gpu_restarts_by_reason": dict(camp.gpu_restarts) if is_gpu(p) else {},
            "features": camp.weights,
            "output_elements": camp.elements, "bit_exact_elements": camp.exact,
            "unbounded_elements": camp.unknown, "wall_s": round(camp.seconds, 1),
            "failure_files": sorted({os.path.basename(f.file) for f in camp.failures
                                     if f.path == p and f.file}),
            "python": sys.version.split()[0],
        })
    return out


def write_json(path: str, recs: list[dict]) -> None:
    """Write records (a list of objects), making the file's folder if it is missing."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(recs, f, indent=1)
        f.write("\n")
