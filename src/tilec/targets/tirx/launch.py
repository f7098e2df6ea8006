"""Running a ``tirx:cuda`` kernel without TVM: its launch record, the call and artifacts.

TVM is needed to *generate* a ``tirx:cuda`` kernel's CUDA source, not to run it. At build
time (``device.build_cuda``) the bridge records everything a launch needs as a
``TirxLaunch``: the self-contained CUDA source (``hostsplit.self_contained``), the device
kernel's symbol and parameters in TVM's order, TVM's host code as a ``hostcode`` program
(the scalars it computes, the ``if`` around the launch, the kernel's arguments and the
grid), the user parameters as the launchers check them, and the host checks
(``kernel_checks.HostChecks``). The record is plain JSON (``to_json``/``from_json``).

``TirxCudaKernel`` calls a record on numpy arrays through tilec's own CUDA runtime: the
arguments are checked as the reference checks them (the launchers' messages, shape
symbols, aliasing), the host checks run, the source is compiled with NVRTC for the
device's architecture (``cuda.compiler.compile_cubin``: cached, ``--fmad=false`` and no
fast math, so a separate multiply and add stay separate and division and square roots are
IEEE), the arrays are copied to the device, the host program gives the kernel's arguments
and grid, the kernel is launched through the driver API (``cuda.cudriver``) and every
writable memory argument is copied back. A freshly built kernel (``device``) and a loaded
one are the same class: one call path.

``save``/``load`` write and read an artifact (one JSON file: the record and a caller's
``meta``), so that a kernel built where TVM is can run where it is not. Nothing here
imports TVM; ``launch_probe`` says whether a record can run here.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import interop_checks as checks
from tilec.targets import numerics as nx
from tilec.targets.interop_checks import InteropError
from tilec.targets.kernel_checks import HostChecks

from .hostcode import FLOATS, INTEGERS, HostCodeError, check_program, evaluate

__all__ = ["SCHEMA", "TARGET", "PACKABLE", "UserParam", "TirxLaunch", "TirxCudaKernel",
           "launch_probe", "save", "load", "ArtifactError"]

SCHEMA = 1
"""The version of ``TirxLaunch.to_json``'s format; a record of another version is refused."""

TARGET = "tirx:cuda"
"""The target a record runs on."""


class ArtifactError(ir.UserError, ValueError):
    """A file or record that is not a ``tirx:cuda`` launch record this tilec reads."""


@dataclass(frozen=True)
class UserParam:
    """One user parameter as a call checks it (the IR's facts, without the IR)."""

    kind: str
    """``mem`` (an array written in place), ``tile`` (an array passed by value) or
    ``scalar``."""
    dtype: str
    """Its (element) type's name (``f32``, ``i64`` ...)."""
    shape: tuple[int | str, ...]
    """Extents of an array: an integer, a shape symbol's name or ``?``."""
    written: bool
    """Whether the kernel writes it."""
    hint: str
    """The parameter's name in the user's code ("" when it has none)."""

    def to_json(self) -> list[Any]:
        """``[kind, dtype, shape, written, hint]``."""
        return [self.kind, self.dtype, list(self.shape), self.written, self.hint]

    @staticmethod
    def from_json(d: Sequence[Any]) -> UserParam:
        """The parameter ``to_json`` wrote."""
        kind, dtype, shape, written, hint = d
        if kind not in ("mem", "tile", "scalar"):
            raise ArtifactError(f"a parameter of kind {kind!r}")
        return UserParam(str(kind), str(dtype), tuple(e if isinstance(e, str) else int(e)
                                                      for e in shape), bool(written), str(hint))

    @property
    def type(self) -> ir.ScalarType:
        """The (element) type."""
        return ir.ScalarType(self.dtype)

    def facts(self, i: int) -> checks.ParamFacts:
        """What ``interop_checks`` reads of it."""
        return checks.ParamFacts(self.hint or f"#{i}", self.type,
                                 tuple(ir.Dim(e) for e in self.shape), self.written)


@dataclass
class TirxLaunch:
    """Everything a call of one ``tirx:cuda`` kernel needs, without TVM or the IR."""

    name: str
    """The kernel function's name."""
    label: str
    """How the aliasing error names it (``interop_checks.kernel_label``)."""
    params: list[UserParam]
    """The user parameters in order."""
    symbols: list[str]
    """The shape symbols' names, in the order the PrimFunc takes them (after the user
    parameters)."""
    bindings: list[tuple[int, int]]
    """``(user parameter, axis)`` giving each shape symbol's value."""
    kernel: str
    """The device function's symbol in ``source``."""
    kernel_params: list[str]
    """The device function's parameters' dtypes in TVM's order (``handle``: an address)."""
    launch_tags: list[str]
    """The launch extents' names (``blockIdx.x``, ``threadIdx.x``), in the host program's
    order."""
    inputs: list[str]
    """The host program's inputs' dtypes (the PrimFunc's parameters: ``handle`` for an
    array, ``int64``/``float64`` for a scalar or a shape symbol)."""
    host: list[Any]
    """TVM's host code (``hostcode``)."""
    source: str
    """The CUDA C++ (self-contained: NVRTC alone compiles it)."""
    arch: str
    """The architecture it was built (and checked) for; a call compiles for the device's."""
    host_checks: HostChecks
    """The checks evaluated on the arguments around the call."""
    tirx: str = ""
    """The PrimFunc as TVMScript (for reading; not needed to run)."""

    def __post_init__(self) -> None:
        n_user = len(self.params)
        if len(self.inputs) != n_user + len(self.symbols) or \
                len(self.bindings) != len(self.symbols):
            raise ArtifactError(f"@{self.name}: {len(self.inputs)} host inputs for {n_user} "
                                f"parameters and {len(self.symbols)} shape symbols")
        for k, (p, axis) in enumerate(self.bindings):
            if not (0 <= p < n_user and self.params[p].kind == "mem"
                    and 0 <= axis < len(self.params[p].shape)):
                raise ArtifactError(f"@{self.name}: shape symbol {self.symbols[k]} is bound "
                                    f"to ({p}, {axis}), not an axis of a memory parameter")
        self._check_inputs()
        for j, t in enumerate(self.kernel_params):
            if t not in PACKABLE:
                raise ArtifactError(f"@{self.name}: parameter {j} of kernel {self.kernel} has "
                                    f"dtype {t!r}, which a launch cannot pass (it passes "
                                    f"{', '.join(sorted(PACKABLE))})")
        try:
            check_program(self.host)
        except HostCodeError as e:
            raise ArtifactError(f"@{self.name}: {e}") from None
        for s in _launches(self.host):
            if len(s[1]) != len(self.kernel_params) or len(s[2]) != len(self.launch_tags):
                raise ArtifactError(f"@{self.name}: a launch with {len(s[1])} arguments and "
                                    f"{len(s[2])} extents for a kernel of "
                                    f"{len(self.kernel_params)} parameters and tags "
                                    f"{self.launch_tags}")

    def _check_inputs(self) -> None:
        """Each host input's dtype is what ``TirxCudaKernel.launches`` gives the host program
        for its value: ``handle`` (the device address) for an array, a float dtype for a
        float scalar, an integer dtype for an integer scalar and for a shape symbol."""
        for k, p in enumerate(self.params):
            t = self.inputs[k]
            what = f"parameter {k} ('{p.hint}')" if p.hint else f"parameter {k}"
            if p.kind != "scalar":
                if t != "handle":
                    raise ArtifactError(f"@{self.name}: {what} is an array, but its host input "
                                        f"has dtype {t!r}, not 'handle'")
                continue
            try:
                is_float = p.type.is_float
            except ValueError as e:
                raise ArtifactError(f"@{self.name}: {what}: {e}") from None
            want = FLOATS if is_float else INTEGERS
            if t not in want:
                raise ArtifactError(f"@{self.name}: {what} is a {p.dtype} scalar, but its host "
                                    f"input has dtype {t!r}, not one of "
                                    f"{', '.join(sorted(want))}")
        for name, t in zip(self.symbols, self.inputs[len(self.params):]):
            if t not in INTEGERS:
                raise ArtifactError(f"@{self.name}: shape symbol {name}'s host input has dtype "
                                    f"{t!r}, not an integer dtype")

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (``from_json`` reads it back)."""
        return {"schema": SCHEMA, "target": TARGET, "name": self.name, "label": self.label,
                "params": [p.to_json() for p in self.params], "symbols": list(self.symbols),
                "bindings": [list(b) for b in self.bindings], "kernel": self.kernel,
                "kernel_params": list(self.kernel_params),
                "launch_tags": list(self.launch_tags), "inputs": list(self.inputs),
                "host": self.host, "source": self.source, "arch": self.arch,
                "host_checks": self.host_checks.to_json(), "tirx": self.tirx}

    @staticmethod
    def from_json(d: Any) -> TirxLaunch:
        """The record ``to_json`` wrote; ``ArtifactError`` for anything else."""
        if not isinstance(d, dict):
            raise ArtifactError("a launch record is a JSON object")
        if d.get("schema") != SCHEMA or d.get("target") != TARGET:
            raise ArtifactError(f"a record of schema {d.get('schema')!r} for target "
                                f"{d.get('target')!r}; this tilec reads schema {SCHEMA} for "
                                f"{TARGET!r}")
        try:
            return TirxLaunch(
                str(d["name"]), str(d["label"]), [UserParam.from_json(p) for p in d["params"]],
                [str(s) for s in d["symbols"]], [(int(p), int(a)) for p, a in d["bindings"]],
                str(d["kernel"]), [str(t) for t in d["kernel_params"]],
                [str(t) for t in d["launch_tags"]], [str(t) for t in d["inputs"]],
                list(d["host"]), str(d["source"]), str(d["arch"]),
                HostChecks.from_json(d["host_checks"]), str(d.get("tirx", "")))
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, ArtifactError):
                raise
            raise ArtifactError(f"a malformed launch record ({type(e).__name__}: {e})") from None


def _launches(stmts: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    for s in stmts:
        if s[0] == "launch":
            out.append(s)
        elif s[0] == "if":
            out += _launches(s[2]) + _launches(s[3])
    return out


# ------------------------------------------------------------------ arguments


def _what(launch: TirxLaunch, i: int) -> str:
    """How argument errors name parameter ``i`` (the reference's wording)."""
    hint = launch.params[i].hint
    return f"argument {i} ('{hint}') of @{launch.name}" if hint else \
        f"argument {i} of @{launch.name}"


def bind(launch: TirxLaunch, args: Sequence[Any]) -> list[Any]:
    """The entry arguments of a call (arrays, typed scalars, then the shape symbols' values)
    after the checks the reference makes, with its messages (``reference.backend``)."""
    facts = [p.facts(i) for i, p in enumerate(launch.params)]
    checks.check_count(f"@{launch.name}", [checks.ParamFacts(f.name, f.dtype, f.shape, False)
                                          for f in facts], args)
    bound: list[Any] = []
    for i, (p, x) in enumerate(zip(launch.params, args)):
        what = _what(launch, i)
        t = p.type
        if p.kind == "scalar":
            bound.append(nx.from_python(checks.checked_number(x, t, what), nx.np_dtype(t)))
            continue
        a = checks.as_host_array(x, what)
        checks.check_rank(what, a.shape, facts[i])
        want = nx.np_dtype(t)
        if a.dtype != want:
            raise InteropError(f"{what} has dtype {a.dtype}; expected {want} ({t}); "
                               "convert it first (no implicit copies: outputs are written in "
                               "place)")
        if p.kind == "tile":
            for axis, e in enumerate(p.shape):
                if a.shape[axis] != e:
                    raise InteropError(f"{what} has shape {a.shape}; axis {axis} must be {e}")
            bound.append(a.copy())
            continue
        checks.check_static_extents(what, a.shape, facts[i])
        checks.check_writable(what, a.shape, facts[i], not a.flags.writeable, True)
        bound.append(a)
    seen: dict[str, tuple[int, str]] = {}
    for i, (p, a) in enumerate(zip(launch.params, bound)):
        if p.kind != "mem":
            continue
        for axis, e in enumerate(p.shape):
            if not isinstance(e, str) or e == "?":
                continue
            here = (int(a.shape[axis]), f"{_what(launch, i)} axis {axis}")
            prev = seen.setdefault(e, here)
            if prev[0] != here[0]:
                raise InteropError(f"@{launch.name}: shape symbol {e} is {prev[0]} from "
                                   f"{prev[1]} but {here[0]} from {here[1]}")
    symbols = []
    for name, (p, axis) in zip(launch.symbols, launch.bindings):
        v = int(bound[p].shape[axis])
        if name in seen and seen[name][0] != v:
            raise InteropError(f"@{launch.name}: shape symbol {name} is bound to {v} by "
                               f"{_what(launch, p)} axis {axis} but is {seen[name][0]} from "
                               f"{seen[name][1]}")
        symbols.append(np.int64(v))
    checks.check_aliasing(launch.label, facts, [a if p.kind == "mem" else None
                                                for p, a in zip(launch.params, bound)])
    return bound + symbols


# ------------------------------------------------------------------ the device


def launch_probe() -> str | None:
    """None when a ``tirx:cuda`` record can run here (a CUDA device of compute capability 8.0
    or newer, the driver and NVRTC; no TVM), else the reason."""
    from tilec.targets.cuda.backend import probe

    return probe()


_CTYPES: dict[str, Any] = {
    "handle": ctypes.c_uint64, "bool": ctypes.c_bool, "int8": ctypes.c_int8,
    "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64, "float32": ctypes.c_float, "float64": ctypes.c_double,
}
"""How each kernel parameter's dtype is passed (``float16``: its bits, below)."""

PACKABLE = frozenset(_CTYPES) | {"float16"}
"""The kernel parameter dtypes ``pack_arguments`` passes (a record with another is refused
when it is made or loaded)."""


def pack_arguments(dtypes: Sequence[str], values: Sequence[Any]) -> tuple[Any, list[Any]]:
    """The ``void *[]`` of kernel parameters ``cuLaunchKernel`` takes, and the ctypes values
    it points to (to keep alive for the launch)."""
    keep: list[Any] = []
    for t, v in zip(dtypes, values, strict=True):
        if t == "float16":
            keep.append(ctypes.c_uint16(int(np.array(v, np.float16).view(np.uint16))))
        elif t in ("float32", "float64"):
            keep.append(_CTYPES[t](float(v)))
        elif t in _CTYPES:
            keep.append(_CTYPES[t](int(v)))
        else:
            raise HostCodeError(f"a kernel parameter of dtype {t}")
    params = (ctypes.c_void_p * max(len(keep), 1))(*[ctypes.addressof(k) for k in keep])
    return params, keep


def _device_arch(cc: tuple[int, int]) -> str:
    from tilec.targets.cuda.compiler import arch_for

    return arch_for(cc, "a" if cc == (9, 0) else "")


def grid_of(tags: Sequence[str], extents: Sequence[int]) -> tuple[tuple[int, int, int],
                                                                  tuple[int, int, int]]:
    """``(grid, block)`` of a launch's tagged extents (an untagged axis is 1); a launch CUDA
    cannot make is a ``LaunchError``."""
    from tilec.targets.cuda.launcher import LaunchError

    ext = dict(zip(tags, extents, strict=True))
    grid = tuple(int(ext.get(f"blockIdx.{a}", 1)) for a in "xyz")
    block = tuple(int(ext.get(f"threadIdx.{a}", 1)) for a in "xyz")
    if min(grid + block) <= 0 or grid[0] >= 2**31 or max(grid[1:]) > 65535 \
            or block[0] * block[1] * block[2] > 1024:
        raise LaunchError(f"grid {grid} with blocks {block} is not a CUDA launch")
    return grid, block  # type: ignore[return-value]


@dataclass
class _Loaded:
    """A record's kernel loaded on one device."""

    context: int
    """The device's primary context."""
    function: int
    """The ``CUfunction``."""
    arch: str
    """The architecture it was compiled for."""
    image: Any = field(repr=False, default=None)
    """The cubin's bytes (kept while the module is loaded)."""


class TirxCudaKernel:
    """A ``tirx:cuda`` kernel run through tilec's CUDA runtime: call it with the user
    arguments (numpy arrays, copied to the device and back; scalars)."""

    target = TARGET
    """The target name."""

    def __init__(self, launch: TirxLaunch, meta: dict[str, Any] | None = None) -> None:
        self.launch = launch
        """The launch record."""
        self.meta = dict(meta or {})
        """What the artifact's writer kept beside the record (``save``)."""
        self._loaded: dict[int, _Loaded] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The kernel's name."""
        return self.launch.name

    @property
    def source(self) -> str:
        """The CUDA C++ (what NVRTC compiles)."""
        return self.launch.source

    @property
    def arch(self) -> str:
        """The architecture it was built for."""
        return self.launch.arch

    @property
    def tirx(self) -> str:
        """The PrimFunc as TVMScript ("" when the record does not keep it)."""
        return self.launch.tirx

    @property
    def host_checks(self) -> HostChecks:
        """Checks evaluated on the arguments around the call."""
        return self.launch.host_checks

    @property
    def runnable(self) -> bool:
        """Whether a GPU is here (else ``Compiled.run`` raises ``TargetUnavailable``)."""
        return launch_probe() is None

    def launches(self, entry: Sequence[Any], addresses: Sequence[int]) -> list[Any]:
        """The host program's launches for the entry arguments ``entry`` (``bind``) with the
        arrays at device ``addresses`` (one per user parameter; 0 for a scalar)."""
        rec = self.launch
        n_user = len(rec.params)
        inputs: list[Any] = []
        for k, (t, v) in enumerate(zip(rec.inputs, entry, strict=True)):
            if t == "handle":
                inputs.append(int(addresses[k]) if k < n_user else 0)
            elif t in FLOATS:  # the value at the host program's own type
                inputs.append(FLOATS[t](v))
            else:
                inputs.append(int(v))
        return evaluate(rec.host, inputs, rec.inputs)

    def _load(self, device: int) -> _Loaded:
        from tilec.targets.cuda import cudriver
        from tilec.targets.cuda.backend import device_capability
        from tilec.targets.cuda.compiler import compile_cubin
        from tilec.targets.cuda.launcher import load_function

        got = self._loaded.get(device)
        if got is not None:
            return got
        cc = device_capability(device)
        if cc is None:
            raise RuntimeError(f"target {TARGET!r} is unavailable here: {launch_probe()}")
        arch = _device_arch(cc)
        cub = compile_cubin(self.launch.source, arch, self.launch.kernel)
        one = load_function(cudriver.driver(), device, cub.data, self.launch.kernel)
        got = _Loaded(int(one.context), int(one.function), arch, one.image)
        self._loaded[device] = got
        return got

    def __call__(self, *args: Any) -> None:
        why = launch_probe()
        if why is not None:  # Compiled.run raises TargetUnavailable before this
            raise RuntimeError(f"target {TARGET!r} is unavailable here: {why}")
        entry = bind(self.launch, args)
        self.host_checks.run(entry, "before")
        with self._lock:
            self._run(entry, args)
        self.host_checks.run(entry, "after")

    def _run(self, entry: list[Any], args: Sequence[Any]) -> None:
        from tilec.targets.cuda import cudriver
        from tilec.targets.cuda.launcher import check

        rec = self.launch
        loaded = self._load(0)
        d = cudriver.driver()
        check(d.cuCtxSetCurrent(loaded.context), "making device 0 current")
        n_user = len(rec.params)
        addresses = [0] * n_user
        work: list[tuple[int, np.ndarray, np.ndarray, int]] = []  # (k, caller's, copy, addr)
        try:
            for k, p in enumerate(rec.params):
                if p.kind == "scalar":
                    continue
                a = entry[k]
                host = np.ascontiguousarray(a)
                if host.nbytes:
                    ptr = int(check(d.cuMemAlloc(host.nbytes),
                                     f"allocating argument {k} of {rec.kernel}"))
                    addresses[k] = ptr
                    work.append((k, a, host, ptr))
                    check(d.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes),
                           f"copying argument {k} of {rec.kernel} to the device")
            for one in self.launches(entry, addresses):
                grid, block = grid_of(rec.launch_tags, one.extents)
                params, keep = pack_arguments(rec.kernel_params, one.arguments)
                check(d.cuLaunchKernel(loaded.function, *grid, *block, 0, 0,
                                        ctypes.addressof(params), 0),
                       f"launching {rec.kernel} (grid {grid}, block {block})")
                check(d.cuStreamSynchronize(0), f"{rec.kernel} (synchronized)")
                del keep
            for k, a, host, ptr in work:
                if rec.params[k].kind != "mem" or not a.flags.writeable:
                    continue
                check(d.cuMemcpyDtoH(host.ctypes.data, ptr, host.nbytes),
                       f"copying argument {k} of {rec.kernel} back")
                if host is not a:
                    a[...] = host
        finally:
            for _, _, _, ptr in work:
                d.cuMemFree(ptr)

    def __repr__(self) -> str:
        return f"<TirxCudaKernel @{self.name} ({TARGET}, built for {self.arch})>"


# ------------------------------------------------------------------ artifacts


def save(kernel: TirxCudaKernel | TirxLaunch, path: str | os.PathLike[str],
         meta: dict[str, Any] | None = None) -> Path:
    """Write ``kernel``'s record (and ``meta``, any JSON object the caller wants back) into
    ``path`` as one JSON file, atomically; returns the path."""
    from tilec.support.files import publish

    launch = kernel.launch if isinstance(kernel, TirxCudaKernel) else kernel
    body = {"artifact": "tilec tirx:cuda kernel", "record": launch.to_json(),
            "meta": dict(meta or {})}
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    publish(out, json.dumps(body, indent=1, allow_nan=False) + "\n")
    return out


def load(path: str | os.PathLike[str]) -> TirxCudaKernel:
    """The kernel ``save`` wrote (its ``meta`` on ``.meta``); ``ArtifactError`` for a file
    that is not one. No TVM is imported."""
    try:
        body = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ArtifactError(f"{path}: not a readable JSON file ({e})") from None
    if not isinstance(body, dict) or body.get("artifact") != "tilec tirx:cuda kernel":
        raise ArtifactError(f"{path}: not a tilec tirx:cuda kernel artifact")
    try:
        launch = TirxLaunch.from_json(body.get("record"))
    except ArtifactError as e:
        raise ArtifactError(f"{path}: {e}") from None
    meta = body.get("meta")
    return TirxCudaKernel(launch, meta if isinstance(meta, dict) else {})
