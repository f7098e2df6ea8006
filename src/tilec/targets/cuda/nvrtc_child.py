"""NVRTC in a child process: ``python nvrtc_child.py`` serves compile requests.

NVRTC runs in-process in its caller, so a crash of NVRTC itself (NVVM's optimizer
has segfaulted on generated kernels) would kill the user's Python process. The
CUDA target therefore compiles here, in a child that lives as long as its parent
(one per process, started on the first build that is not cached), and learns of a
crash when the child dies (``compiler.compile_cubin`` starts another and retries at
a lower NVVM level).

Protocol: one JSON object per line on stdin, ``{"id", "source", "arch", "name",
"options"}``; one JSON object per line on stdout, ``{"id", "cubin": base64, "log"}``
when built or ``{"id", "error"}`` with NVRTC's message when the source was rejected
(``id`` echoes the request's). End of input ends the child.

This file is run as a script, not imported through ``tilec`` (importing the
package costs more than the compile it guards): it imports only cuda-core or
cuda-bindings.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    sys.path.pop(0)  # this folder: its modules must not shadow the standard library

import base64
import io
import json

__all__ = ["compile_in_process", "NVRTCFailed", "serve"]


class NVRTCFailed(Exception):
    """NVRTC's own failure text."""


def _compile_core(source: str, arch: str, name: str) -> tuple[bytes, str]:
    from cuda.core import Program, ProgramOptions

    opts = ProgramOptions(arch=arch, std="c++17", fma=False, ptxas_options="-v", name=name)
    logs = io.StringIO()
    try:
        obj = Program(source, "c++", opts).compile("cubin", logs=logs)
    except Exception as e:
        raise NVRTCFailed(str(e)) from None
    return bytes(obj.code), logs.getvalue()


def _compile_bindings(source: str, arch: str, name: str, options: list[str]
                      ) -> tuple[bytes, str]:
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    if int(err) != 0:
        raise NVRTCFailed(f"nvrtcCreateProgram: {err}")
    try:
        opts = [o.encode() for o in options] + [f"-arch={arch}".encode()]
        (cerr,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        buf = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, buf)
        log = buf.decode(errors="replace").rstrip("\0")
        if int(cerr) != 0:
            raise NVRTCFailed(f"{cerr}, compilation log:\n{log}")
        _, n = nvrtc.nvrtcGetCUBINSize(prog)
        cubin = b" " * n
        (gerr,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        if int(gerr) != 0:
            raise NVRTCFailed(f"nvrtcGetCUBIN: {gerr}")
        return cubin, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def compile_in_process(source: str, arch: str, name: str, options: list[str]
                       ) -> tuple[bytes, str]:
    """The cubin and NVRTC's log (cuda-core when it loads and the options are the fixed
    three, which it spells itself; else cuda-bindings, which take any)."""
    plain = all(o in ("--std=c++17", "--fmad=false", "--ptxas-options=-v") for o in options)
    try:
        import cuda.core  # noqa: F401
        use_core = plain
    except ImportError:
        use_core = False
    if use_core:
        return _compile_core(source, arch, name)
    return _compile_bindings(source, arch, name, options)


def serve() -> int:
    """Answer requests until the end of input."""
    for line in sys.stdin:
        req = json.loads(line)
        try:
            cubin, log = compile_in_process(req["source"], req["arch"], req["name"],
                                            list(req["options"]))
            reply = {"id": req.get("id"), "cubin": base64.b64encode(cubin).decode(),
                     "log": log}
        except NVRTCFailed as e:
            reply = {"id": req.get("id"), "error": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve())
