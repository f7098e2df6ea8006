"""The process that launches a campaign's GPU programs, and the parent's handle on it.

A sticky CUDA error (an illegal instruction or address, a misaligned access, an unspecified
launch failure) leaves the CUDA context of the process that met it unusable: every later
launch in that process fails with the same error. A campaign that launched in its own process
counted one bad program and then every later one as the same internal error, and its shrinker
"shrank" the failure in the dead context to a program that does not fail. So the campaign's
process never launches: one child process owns the context, and the parent (``gpu.GpuRunner``)
replaces it when the context is lost.

The child is started with ``spawn`` (it inherits no CUDA state) and answers one request at a
time over a pipe:

* at start it resolves its executor and probe (``"module:name"``, importable in a fresh
  process) and runs the probe once, which creates the context: ``("ready", None)``, or
  ``("ready", why)`` and it exits;
* ``("run", file, name, args, path, timeout)``: import kernel ``name`` from ``file`` (the
  file the parent wrote, so that messages name the same file), run
  ``executor(path, kernel, args, file, timeout)`` (``paths.execute`` by default) and answer
  ``("ran", outcome, args)`` with the arrays as the launch left them;
* ``("probe",)``: run the probe (a tiny CUDA operation and a synchronize by default) and
  answer ``("probe", None)`` when the context works, else ``("probe", why)``;
* ``None`` (or a closed pipe): exit.

Nothing CUDA-specific is in the protocol: tests stand in for the executor and the probe
with functions of their own, so it is exercised on machines without a GPU.
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing as mp
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from .paths import Outcome, classify

__all__ = ["EXECUTOR", "PROBE", "ChildLost", "LaunchProcess", "cuda_probe", "serve"]

EXECUTOR = "tilec.testing.fuzz.paths:execute"
"""The child's default executor: the fuzzer's ordinary path runner."""
PROBE = "tilec.testing.fuzz.gpu_child:cuda_probe"
"""The child's default health probe."""


def cuda_probe() -> str | None:
    """None when this process's CUDA context works (a tiny torch operation on the device and
    a synchronize), else what failed."""
    try:
        import torch

        x = torch.ones(4, device="cuda")
        (x + 1).sum().item()
        torch.cuda.synchronize()
    except Exception as e:  # a lost context raises here: the answer, not an error
        return f"{type(e).__name__}: {e}"
    return None


def resolve(name: str) -> Callable[..., Any]:
    """The function that ``"module:attribute"`` names."""
    module, sep, attr = name.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"expected 'module:function', got {name!r}")
    return getattr(importlib.import_module(module), attr)


# ------------------------------------------------------------------------ the child


def serve(conn: Connection, executor: str, probe: str) -> None:
    """The child's loop: get ready, then answer requests until told to stop."""
    try:
        run, check = resolve(executor), resolve(probe)
        why = check()
    except Exception as e:  # reported to the parent, which decides
        why = f"{type(e).__name__}: {e}"
    conn.send(("ready", why))
    if why is not None:
        return
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if msg[0] == "probe":
            try:
                why = check()
            except Exception as e:
                why = f"{type(e).__name__}: {e}"
            conn.send(("probe", why))
            continue
        _, file, name, args, path, timeout = msg
        out = _launch(run, file, name, args, path, timeout)
        try:
            conn.send(("ran", out, args))
        except Exception as e:  # arrays that do not pickle: the outcome still goes back
            conn.send(("ran", Outcome("internal", f"the launching process could not send the "
                                      f"outputs: {type(e).__name__}", str(e)), None))


def _launch(run: Callable[..., Outcome], file: str, name: str, args: list[Any], path: str,
            timeout: float | None) -> Outcome:
    """Import the kernel from the parent's file and run it (the arrays change in place)."""
    modname = os.path.splitext(os.path.basename(file))[0]
    try:
        spec = importlib.util.spec_from_file_location(modname, file)
        assert spec is not None and spec.loader is not None, f"no module at {file}"
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod  # capture looks the source up through the module
        spec.loader.exec_module(mod)
        kernel = getattr(mod, name)
    except Exception as e:
        sys.modules.pop(modname, None)
        return Outcome("internal", f"the launching process could not import the kernel: "
                       f"{type(e).__name__}", f"{type(e).__name__}: {e}")
    try:
        return run(path, kernel, args, file, timeout)
    except Exception as e:  # an executor that raises is classified like a path's error
        return classify(e, file)
    finally:
        sys.modules.pop(modname, None)  # one module per program would pile up otherwise


# ----------------------------------------------------------------------- the parent


class ChildLost(Exception):
    """The child died, broke the pipe or did not answer in time (it is then killed)."""

    def __init__(self, why: str, hung: bool = False, exitcode: int | None = None) -> None:
        super().__init__(why)
        self.why = why
        """What happened, for an outcome's detail."""
        self.hung = hung
        """True when the child did not answer within its limit."""
        self.exitcode = exitcode
        """The child's exit code when it died (negative: the signal that ended it)."""


class LaunchProcess:
    """One child process and the parent's end of its pipe (``spawn``ed at construction; not
    waited for until ``start``)."""

    def __init__(self, executor: str = EXECUTOR, probe: str = PROBE) -> None:
        ctx = mp.get_context("spawn")
        self._conn, theirs = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(theirs, executor, probe), daemon=True,
                                   name="tilec-fuzz-gpu")
        """The child."""
        self.process.start()
        theirs.close()  # so that the child's death reads as the end of the pipe
        self.ready = False
        """True once the child has created its context and waits for requests."""

    def start(self, limit: float | None) -> str | None:
        """Wait until the child is ready: None, or why it cannot be (it is then stopped)."""
        try:
            _, why = self._receive(limit)
        except ChildLost as e:
            return f"it did not start: {e.why}"
        if why is not None:
            self.stop()
            return f"its probe failed: {why}"
        self.ready = True
        return None

    def ask(self, msg: tuple[Any, ...], limit: float | None) -> tuple[Any, ...]:
        """Send one request and return the answer; raises ``ChildLost`` (a child that does
        not answer within ``limit`` seconds is killed first)."""
        try:
            self._conn.send(msg)
        except (OSError, ValueError) as e:  # BrokenPipeError is an OSError
            raise self._died(f"the pipe broke ({type(e).__name__})") from None
        return self._receive(limit)

    def _receive(self, limit: float | None) -> tuple[Any, ...]:
        if not self._conn.poll(limit):  # true too at the end of the pipe, which recv reports
            self.kill()
            raise ChildLost(f"no answer within {limit:.0f} s", hung=True)
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            raise self._died("the pipe ended") from None

    def _died(self, what: str) -> ChildLost:
        self.process.join(5)
        code = self.process.exitcode
        if code is None:  # alive but the pipe is gone: it is of no further use
            self.kill()
        return ChildLost(f"{what}; exit code {code}", exitcode=code)

    def alive(self) -> bool:
        """Whether the child process still runs."""
        return self.process.is_alive()

    def kill(self) -> None:
        """End the child now (a hung launch does not answer a polite request)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(10)
        self._conn.close()

    def stop(self) -> None:
        """Ask the child to exit; kill it if it does not."""
        if self.process.is_alive():
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self.process.join(5)
        self.kill()
