"""The GPU path in a campaign: workers compile, one launching process runs one at a time.

Workers capture, lower and compile each program for ``cuda``
(``runner.compile_only``), which leaves the cubin in the compile cache; here
the same program is regenerated from its choices and its kernel file written,
and a child process (``gpu_child``) that owns the CUDA context imports it,
compiles it again (a cache hit for the cubin) and launches it on torch CUDA
tensors; the outputs come back and are compared with the reference's outputs
the worker sent back.

The child is there because a sticky CUDA error (an illegal instruction, an
illegal or misaligned address, an unspecified launch failure) kills the
context of the process that met it. After a launch that ended ``internal`` or
``timeout``, or whose message names a CUDA error, the runner asks the child to
probe its context; when the probe fails, or the child died or hung past the
program's limit, the child is replaced by a fresh one before the next program
and ``restarts`` counts it. The program that lost the context keeps its own
outcome (internal with the error, or timeout); the programs after it, and
every trial of the shrinker, run in a live context.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import numpy as np

from .choices import ChoiceStream
from .generator import generate
from .gpu_child import EXECUTOR, PROBE, ChildLost, LaunchProcess
from .paths import Outcome, gpu_available
from .program import KERNEL_NAME, load_kernel
from .runner import ProgramResult, _fresh, judge

__all__ = ["GpuRunner", "CUDA_ERROR"]

CUDA_ERROR = re.compile(r"CUDA[ _]error|cudaError|illegal (instruction|memory access|address)|"
                        r"misaligned address|unspecified launch failure|launch timed out|"
                        r"device-side assert", re.IGNORECASE)
"""Words of the messages that may mean a lost context (torch's ``CUDA error: ...``, the
driver's ``CUDA_ERROR_...`` names); any outcome that holds one has the context probed."""


class GpuRunner:
    """Launches programs on the GPU in a child process, replacing it when its CUDA context is
    lost."""

    def __init__(self, timeout: float | None = 120.0, workdir: str | None = None,
                 executor: str = EXECUTOR, probe: str = PROBE, grace: float = 30.0,
                 start_limit: float = 300.0, check_device: bool = True) -> None:
        if check_device:  # up front, before a child is started
            why = gpu_available()
            if why is not None:
                raise RuntimeError(f"the cuda path cannot run here: {why}")
        self.timeout = timeout
        """Per-launch time limit (the child's own; the parent kills it ``grace`` later)."""
        self.workdir = workdir
        """Where kernel files are written."""
        self.executor = executor
        """``"module:function"`` the child runs a path with (``paths.execute``'s signature);
        tests name a fake one."""
        self.probe = probe
        """``"module:function"`` the child checks its context with: None when it works."""
        self.grace = grace
        """Seconds past ``timeout`` before the parent kills a child that has not answered
        (a hung kernel is out of reach of the child's own alarm)."""
        self.start_limit = start_limit
        """Seconds a new child may take to import and create its context."""
        self.restarts = 0
        """Children replaced: lost contexts, deaths and hangs."""
        self.restart_causes: Counter = Counter()
        """Restarts by the reason of the outcome that caused them."""
        self._child = LaunchProcess(executor, probe)  # starts while the workers compile

    def run(self, kernel: Any, args: list[Any], file: str, path: str = "cuda") -> Outcome:
        """Run one kernel on the GPU path ``path`` (``run_program``'s ``gpu_runner``): the
        child imports ``kernel`` by name from ``file``, and ``args``' arrays get the values
        the launch left in them."""
        child = self._live()
        name = getattr(kernel, "__name__", KERNEL_NAME)
        limit = None if self.timeout is None else self.timeout + self.grace
        t0 = time.perf_counter()
        try:
            _, out, got = child.ask(("run", file, name, args, path, self.timeout), limit)
        except ChildLost as e:
            if e.hung:
                out = Outcome("timeout", "timeout", f"ran past {limit:.0f} s: the launching "
                              "process did not answer and was killed")
            else:
                out = Outcome("internal", f"the launching process died (exit code "
                              f"{e.exitcode})", f"the launching process died while running "
                              f"{path}: {e.why}")
            out.seconds = time.perf_counter() - t0
            self._restart(out.reason)
            return out
        if got is not None:
            for a, g in zip(args, got):
                if isinstance(a, np.ndarray):
                    np.copyto(a, g)
        if out.kind in ("internal", "timeout") or CUDA_ERROR.search(f"{out.reason} {out.detail}"):
            why = self._probe(child)
            if why is not None:
                out.detail += f" [the CUDA context was lost ({why}); the launching process " \
                              "was restarted]"
                self._restart(out.reason or out.kind)
        return out

    def finish(self, choices: list[int], weights: dict[str, int], res: ProgramResult,
               path: str = "cuda") -> Outcome:
        """Launch a program a worker compiled for GPU path ``path`` and compare it with what
        the worker computed."""
        import os

        prog = generate(ChoiceStream.replay(choices), weights)
        kernel, file = load_kernel(prog.source(), self.workdir)
        try:
            args = _fresh(prog.make_args())
            out = self.run(kernel, args, file, path)
            if out.kind != "ran":
                return out
            ref, model = res.deferred
            judged = judge({i: args[i] for i in prog.outputs()}, model, ref, path)
            judged.warned = out.warned
            return judged
        finally:
            try:
                os.unlink(file)
            except OSError:
                pass

    def close(self) -> None:
        """Stop the child."""
        self._child.stop()

    def __enter__(self) -> GpuRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _live(self) -> LaunchProcess:
        """The child, ready. A fresh one that cannot start gets a second chance (the driver
        may still be tearing down the context of the one it replaces); then the device is
        unusable, which no later program could change, and this raises."""
        if self._child.ready and not self._child.alive():
            self._restart("the launching process died between programs")
        for attempt in range(2):
            if self._child.ready:
                return self._child
            why = self._child.start(self.start_limit)
            if why is None:
                return self._child
            if attempt == 0:
                self._child.kill()
                self._child = LaunchProcess(self.executor, self.probe)
        raise RuntimeError(f"the GPU launching process cannot run programs: {why}")

    def _probe(self, child: LaunchProcess) -> str | None:
        """None when the child's context still works, else why not."""
        limit = self.grace if self.timeout is None else min(self.timeout, self.grace)
        try:
            _, why = child.ask(("probe",), max(limit, 1.0))
        except ChildLost as e:
            return e.why
        return why

    def _restart(self, cause: str) -> None:
        """Replace the child (the new one starts while the campaign goes on)."""
        self._child.kill()
        self.restarts += 1
        self.restart_causes[cause] += 1
        self._child = LaunchProcess(self.executor, self.probe)
