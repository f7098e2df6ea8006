"""The launch of a bound signature, specialized into straight-line Python.

A call whose argument signature was bound before (``runtime._Plan``) re-checks what
depends on addresses, writes them into the parameter slots and launches. For the common
plan (every user parameter an array, a fixed launch configuration, no device checks, host
checks that depend on the signature alone, torch tensors) that work is the same sequence
of steps for every call, so ``make_fast`` writes it out once as a function with the plan's
constants in it (``exec`` of generated source, as ``dataclasses`` does): each array's
address is read once into a local, the element and 16-byte alignment checks and the
output-overlap checks become one condition over those locals, the tensor maps are
re-encoded only when an address moved, then ``Launcher.start`` makes the context current
and enqueues the kernel on the caller's stream. The checks are the same as
``CUDAExecutable._recheck``'s; when one fails the function returns False before anything is
written and the caller binds the slow way, which raises the full error. A call asking for
synchronization (``sync`` or ``TILEC_CUDA_SYNC=1``) takes the general path too.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from tilec.support.env import getenv

__all__ = ["make_fast"]


def make_fast(plan: Any) -> Callable[..., bool] | None:
    """The specialized launch of ``plan`` (``fast(args, handle) -> bool``: False when a
    re-check fails or the call wants synchronization), or None when the plan is not of the
    common kind (scalars, a grid that depends on them, device checks, host checks per
    call, split-K workspaces). A call without a stream takes the general path unless the
    arguments are torch tensors (whose current stream the plan reads)."""
    launcher = plan.launcher
    if any(plan.scalar) or plan.config is False or plan.config is None or not plan.checked \
            or launcher.record or plan.workspaces:
        return None
    arrays = plan.arrays
    nb, isz = plan.nbytes, plan.itemsize
    lines = ["def fast(args, handle):"]
    for i in arrays:
        lines.append(f"    p{i} = args[{i}].data_ptr()")
    bad: list[str] = []
    for i in arrays:
        if nb[i]:  # an empty array is never accessed: any address does
            bad.append(f"p{i} == 0" if isz[i] <= 1 else f"p{i} == 0 or p{i} % {isz[i]}")
    bad += [f"p{i} % 16" for i in plan.aligned16 if nb[i]]
    for i in plan.written:
        if not nb[i]:
            continue
        for j in arrays:
            if j != i and nb[j]:
                bad.append(f"(p{i} < p{j} + {nb[j]} and p{j} < p{i} + {nb[i]})")
    if bad:
        lines.append("    if " + " or ".join(bad) + ":")
        lines.append("        return False")
    lines.append("    if getenv('TILEC_CUDA_SYNC') == '1':")
    lines.append("        return False")
    lines.append("    if handle is None:")
    if plan.current_stream is None:  # not torch's: the general path finds the stream
        lines.append("        return False")
    else:
        lines.append("        handle = current_stream()")
    lines.append("    with lock:")
    for i in arrays:
        lines.append(f"        slots[{i}] = p{i}")
    for j, (_, u, addr, _p, _s) in enumerate(plan.tmaps):
        lines.append(f"        if done[{j}] != p{u}:")
        lines.append(f"            memmove({addr}, maps.get(tk[{j}], tp[{j}], p{u}, ts[{j}]), "
                     "128)")
        lines.append(f"            done[{j}] = p{u}")
    lines.append("        start(config, handle, params)")
    lines.append("    return True")
    env = {
        "getenv": getenv, "current_stream": plan.current_stream, "lock": launcher.lock,
        "slots": plan.slots, "done": plan.tmap_ptrs, "memmove": ctypes.memmove,
        "maps": launcher.tensor_maps, "tk": [t[0] for t in plan.tmaps],
        "tp": [t[3] for t in plan.tmaps], "ts": [t[4] for t in plan.tmaps],
        "start": launcher.start, "config": plan.config, "params": plan.params,
    }
    ns: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<tilec fast launch of {launcher.source.kernel}>", "exec"),
         env, ns)
    fast = ns["fast"]
    fast.__doc__ = "\n".join(lines)  # the generated source, for inspection
    return fast
