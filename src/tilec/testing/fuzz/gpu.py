"""The GPU path in a campaign: workers compile, the main process launches one at a time.

Workers capture, lower and compile each program for ``cuda``
(``runner.compile_only``), which leaves the cubin in the compile cache; here
the same program is regenerated from its choices, compiled again (a cache
hit for the cubin) and launched on torch CUDA tensors, and its outputs are
compared with the reference's outputs the worker sent back.
"""

from __future__ import annotations

from typing import Any

from .choices import ChoiceStream
from .generator import generate
from .paths import Outcome, execute
from .program import load_kernel
from .runner import ProgramResult, _fresh, judge

__all__ = ["GpuRunner"]


class GpuRunner:
    """Launches programs on the GPU in this process."""

    def __init__(self, timeout: float | None = 120.0, workdir: str | None = None) -> None:
        from .paths import gpu_available

        why = gpu_available()
        if why is not None:
            raise RuntimeError(f"the cuda path cannot run here: {why}")
        self.timeout = timeout
        """Per-launch time limit."""
        self.workdir = workdir
        """Where kernel files are written."""

    def run(self, kernel: Any, args: list[Any], file: str, path: str = "cuda") -> Outcome:
        """Run one kernel on the GPU path ``path`` (``run_program``'s ``gpu_runner``)."""
        return execute(path, kernel, args, file, self.timeout)

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
