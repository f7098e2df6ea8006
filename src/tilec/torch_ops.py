"""tilec kernels as PyTorch custom operators (``tc.torch.custom_op``), usable in ``torch.compile``.

A tilec kernel writes its outputs into arrays passed as arguments; a torch
custom op is functional. ``custom_op`` bridges the two: the registered op takes
the kernel's *input* parameters (tensors, and the scalars named in ``scalars``),
allocates the parameters named in ``outputs`` with ``torch.empty`` on the inputs'
device, runs the compiled kernel on the target for that device and returns the
outputs. Its fake implementation allocates the same outputs and runs nothing, so
``torch.compile`` (dynamo, AOT autograd, inductor) traces through the op and
treats it as opaque.

This module is reached as ``tilec.torch`` (an attribute ``tilec/__init__.py``
imports when first read). It is not named ``tilec/torch.py``: tilec's own modules
``import torch`` (``targets/interop_checks.py``, ``targets/cuda/runtime.py``), and a
sibling module named ``torch`` would shadow the real package wherever the package
directory lands on ``sys.path`` (a script run from inside it, some tools' roots).

Compilation is tilec's: each call asks ``Kernel.compile`` for the specialization
of its arguments and target, which is a dictionary lookup after the first call
with the same dtypes, ranks and extents (the kernel's ``_fast`` cache); a
specialization is captured and built once, and extents are symbolic, so new
shapes reuse the binary. Tensors are passed to tilec without copies (DLPack on the
host, ``data_ptr`` on CUDA); non-contiguous inputs are made contiguous first,
which copies them.

There is no autograd formula: the op's backward raises unless the caller
registers one (``op.register_autograd``; the returned object is torch's
``CustomOpDef``).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    import torch
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("tilec.torch needs PyTorch (pip install 'tilec[torch]'): "
                      f"{e}") from None

from tilec.frontend import DeviceFunction, DType, Kernel
from tilec.ir import ArgumentError

__all__ = ["custom_op", "compiled", "DEFAULT_TARGETS"]

DEFAULT_TARGETS: Mapping[str, str] = {"cpu": "cpu", "cuda": "cuda"}
"""The tilec target for tensors of each torch device type when ``target`` is not given."""

_TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                 "float64": torch.float64, "int8": torch.int8, "int16": torch.int16,
                 "int32": torch.int32, "int64": torch.int64, "bool_": torch.bool,
                 "index": torch.int64}
"""The torch dtype of each tilec DSL dtype (``tc.float32`` ... by name)."""

_SCALAR_SCHEMA = {float: "float", int: "int", bool: "bool"}
"""Schema type of each Python type a scalar input may be declared as."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*")

OutputSpec = str | Callable[..., Any]
"""How one output is allocated: the name of an input whose shape and dtype it takes, or a
callable of the inputs returning ``(shape, dtype)``."""


@dataclass
class _TilecOp:
    """What ``custom_op`` registered under one name."""

    name: str
    """``namespace::opname``."""
    kernel: Kernel
    """The tilec kernel."""
    params: list[str]
    """The kernel's runtime parameters, in order (inputs and outputs)."""
    inputs: list[str]
    """The op's arguments: runtime parameters not in ``outputs``, in parameter order."""
    scalars: dict[str, type]
    """Inputs that are scalars, with their Python type; the others are tensors."""
    outputs: dict[str, OutputSpec]
    """Output parameter name -> allocation spec, in the op's return order."""
    targets: Mapping[str, str] | str
    """One target for every device, or one per torch device type."""
    constexprs: dict[str, Any]
    """Constexpr values fixed at registration (tunables not fixed are resolved per call)."""
    checked: set[int] = field(default_factory=set)
    """``id`` of each ``Compiled`` whose written parameters were checked."""
    op: Any = None
    """torch's ``CustomOpDef`` for this op."""

    def target_for(self, device: torch.device) -> str:
        """The tilec target that runs the op for tensors on ``device``."""
        if isinstance(self.targets, str):
            return self.targets
        got = self.targets.get(device.type)
        if got is None:
            raise ArgumentError(f"{self.name}: no tilec target for tensors on {device} (targets "
                                f"by device type: {dict(self.targets)}); pass target= to "
                                "tc.torch.custom_op")
        return got

    def device_of(self, args: Sequence[Any]) -> torch.device:
        """The one device of the tensor arguments (an error when they are on several)."""
        devices = {a.device for a in args if isinstance(a, torch.Tensor)}
        if len(devices) != 1:
            raise ArgumentError(f"{self.name}: the tensor arguments are on "
                                f"{sorted(map(str, devices))}; pass tensors of one device")
        return devices.pop()

    def allocate(self, args: Sequence[Any], device: torch.device) -> list[torch.Tensor]:
        """Empty outputs of the shapes and dtypes ``outputs`` gives for ``args``."""
        by_name = dict(zip(self.inputs, args))
        out = []
        for name, spec in self.outputs.items():
            if isinstance(spec, str):
                like = by_name[spec]
                shape, dtype = tuple(like.shape), like.dtype
            else:
                shape, dtype = _shape_dtype(self.name, name, spec(*args))
            out.append(torch.empty(shape, dtype=dtype, device=device))
        return out

    def kernel_args(self, args: Sequence[Any], outs: Sequence[torch.Tensor]) -> list[Any]:
        """The kernel's runtime arguments: inputs (detached, contiguous, 16-byte aligned) and
        outputs."""
        by_name: dict[str, Any] = {}
        for name, a in zip(self.inputs, args):
            if isinstance(a, torch.Tensor):
                a = a.detach().contiguous()
                if a.data_ptr() % 16:  # a view at an odd offset: CUDA kernels copy 16-byte
                    a = a.clone()      # chunks (cp.async) and refuse it, so copy it
            by_name[name] = a
        by_name.update(zip(self.outputs, outs))
        return [by_name[p] for p in self.params]

    def compile(self, kargs: Sequence[Any], target: str) -> Any:
        """The kernel compiled for ``kargs`` on ``target`` (tilec's cache: built once per
        specialization), checked once to write only the outputs."""
        import tilec as tc

        c = tc.compile(self.kernel, *kargs, target=target, **self.constexprs)
        if id(c) not in self.checked:
            from tilec.targets.interop_checks import written_parameters

            fn = c.module.lookup(c.fn_name)
            written = {self.params[i] for i in written_parameters(fn) if i < len(self.params)}
            bad = sorted(written - set(self.outputs))
            if bad:
                raise ArgumentError(f"{self.name}: @{c.fn_name} writes its input "
                                    f"{', '.join(bad)}; a custom op may not modify its inputs "
                                    "(name every parameter the kernel writes in outputs=)")
            self.checked.add(id(c))
        return c

    def run(self, *args: Any) -> Any:
        """The real implementation: allocate, launch, return the outputs."""
        device = self.device_of(args)
        outs = self.allocate(args, device)
        kargs = self.kernel_args(args, outs)
        self.compile(kargs, self.target_for(device))(*kargs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def fake(self, *args: Any) -> Any:
        """The fake (meta) implementation: the outputs' shapes and dtypes, nothing run."""
        outs = self.allocate(args, self.device_of(args))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def schema(self) -> str:
        """The op's schema: ``(Tensor A, Tensor B) -> Tensor``."""
        args = ", ".join(f"{_SCALAR_SCHEMA[self.scalars[n]]} {n}" if n in self.scalars
                         else f"Tensor {n}" for n in self.inputs)
        rets = "Tensor" if len(self.outputs) == 1 else \
            "(" + ", ".join("Tensor" for _ in self.outputs) + ")"
        return f"({args}) -> {rets}"


_OPS: dict[str, _TilecOp] = {}
"""Every op registered by ``custom_op`` in this process, by name."""


def _shape_dtype(op: str, name: str, got: Any) -> tuple[tuple[Any, ...], torch.dtype]:
    """``got`` (an output spec's result) checked as ``(shape, dtype)``."""
    what = f"{op}: outputs[{name!r}] returned {got!r}"
    if not (isinstance(got, (tuple, list)) and len(got) == 2
            and isinstance(got[0], (tuple, list, torch.Size))):
        raise ArgumentError(f"{what}; an output callable returns (shape, dtype), e.g. "
                            "((A.shape[0], B.shape[1]), torch.float32)")
    shape, dtype = got
    if isinstance(shape, torch.Size):
        shape = tuple(shape)
    if not (isinstance(shape, (tuple, list))
            and all(isinstance(e, (int, torch.SymInt)) and not isinstance(e, bool)
                    for e in shape)):
        raise ArgumentError(f"{what}; its shape must be a tuple of ints (or SymInts)")
    if isinstance(dtype, DType):
        dtype = _TORCH_DTYPES[dtype.name]
    if not isinstance(dtype, torch.dtype):
        raise ArgumentError(f"{what}; its dtype must be a torch dtype or a tc dtype")
    return tuple(shape), dtype


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ArgumentError(f"tc.torch.custom_op: name {name!r} must be 'namespace::opname' "
                            "(identifiers, no overload name), e.g. 'mylib::matmul'")
    if name in _OPS:
        raise ArgumentError(f"tc.torch.custom_op: {name!r} is already registered (by tilec); "
                            "torch would silently replace it: pick another name")
    ns, op = name.split("::")
    if hasattr(getattr(torch.ops, ns), op):
        raise ArgumentError(f"tc.torch.custom_op: torch already has an operator {name!r}; "
                            "pick another name")


def _check_kernel(kernel: Any) -> Kernel:
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, DeviceFunction):
        raise ArgumentError(f"tc.torch.custom_op: {kernel.fn.__name__} is a @tc.func helper; "
                            "register a @tc.kernel function")
    what = getattr(kernel, "__name__", type(kernel).__name__)
    raise ArgumentError(f"tc.torch.custom_op: {what} is not a tilec kernel; decorate it with "
                        "@tc.kernel")


def _check_targets(target: Any) -> Mapping[str, str] | str:
    from tilec.runtime import check_target_name

    if target is None:
        return DEFAULT_TARGETS
    names = [target] if isinstance(target, str) else \
        list(target.values()) if isinstance(target, Mapping) else None
    if names is None:
        raise ArgumentError(f"tc.torch.custom_op: target must be a target name or a mapping "
                            f"from torch device type to target name, got {target!r}")
    for t in names:
        check_target_name(t)  # TargetUnavailable naming the known targets
    return target if isinstance(target, str) else dict(target)


def custom_op(name: str, kernel: Any, *, outputs: Mapping[str, OutputSpec],
              target: str | Mapping[str, str] | None = None,
              scalars: Mapping[str, type] | None = None,
              constexprs: Mapping[str, Any] | None = None) -> Any:
    """Register ``kernel`` as the functional torch operator ``name`` (``"namespace::opname"``).

    ``outputs`` names the kernel parameters the op allocates and returns (in this
    order): each maps to the name of an input whose shape and dtype it takes, or to
    a callable of the op's arguments returning ``(shape, dtype)`` (a torch or tc
    dtype). Every other runtime parameter is an argument of the op, in parameter
    order: a tensor, or a scalar when ``scalars`` gives its type (``float``, ``int``,
    ``bool``) or the kernel annotates it with a tc dtype. ``target``: one tilec
    target for every device, or a mapping from torch device type to target; default
    ``DEFAULT_TARGETS`` (cpu tensors on ``cpu``, cuda tensors on ``cuda``).
    ``constexprs`` fixes constexpr parameters; tunables left out are resolved per call
    as a direct call resolves them. Returns torch's ``CustomOpDef`` (callable; also
    ``torch.ops.namespace.opname``).
    """
    _check_name(name)
    k = _check_kernel(kernel)
    targets = _check_targets(target)
    runtime = [p for p in k.params if not p.constexpr]
    params = [p.name for p in runtime]
    cx_names = {p.name for p in k.params if p.constexpr}
    where = f"tc.torch.custom_op({name!r}, {k.__name__})"

    if not isinstance(outputs, Mapping) or not outputs:
        raise ArgumentError(f"{where}: outputs must be a non-empty mapping from output "
                            f"parameter names to specs, e.g. {{'C': lambda A, B: "
                            f"((A.shape[0], B.shape[1]), torch.float32)}}; got {outputs!r}")
    for out, spec in outputs.items():
        if out not in params:
            kind = "a constexpr parameter" if out in cx_names else "not a parameter"
            raise ArgumentError(f"{where}: output {out!r} is {kind} of the kernel; outputs are "
                                f"among its runtime parameters ({', '.join(params)})")
        if isinstance(spec, str):
            if spec not in params or spec in outputs:
                raise ArgumentError(f"{where}: outputs[{out!r}] = {spec!r} must name an input "
                                    "parameter (the output takes its shape and dtype)")
        elif not callable(spec):
            raise ArgumentError(f"{where}: outputs[{out!r}] must be an input's name or a "
                                f"callable returning (shape, dtype), got {spec!r}")
    inputs = [p for p in params if p not in outputs]
    if not inputs:
        raise ArgumentError(f"{where}: every runtime parameter is an output; the op needs an "
                            "input tensor (its device chooses the target)")

    declared = dict(scalars or {})
    types: dict[str, type] = {}
    for p in runtime:
        if p.dtype is not None and p.name in inputs:
            types[p.name] = bool if p.dtype.name == "i1" else \
                float if p.dtype.is_float else int
    for n, t in declared.items():
        if n not in inputs:
            raise ArgumentError(f"{where}: scalars names {n!r}, which is not an input parameter "
                                f"({', '.join(inputs)})")
        if t not in _SCALAR_SCHEMA:
            raise ArgumentError(f"{where}: scalars[{n!r}] must be float, int or bool, got {t!r}")
        types[n] = t
    for out, spec in outputs.items():
        if isinstance(spec, str) and spec in types:
            raise ArgumentError(f"{where}: outputs[{out!r}] = {spec!r} names a scalar input; "
                                "name a tensor input or give a callable")
    if not any(n not in types for n in inputs):
        raise ArgumentError(f"{where}: the op needs at least one tensor input (its device "
                            "chooses the target)")
    bad = [n for n in (*inputs, *outputs) if keyword.iskeyword(n)]
    if bad:
        raise ArgumentError(f"{where}: parameter names {bad} cannot be schema arguments")

    fixed = dict(constexprs or {})
    for n in fixed:
        if n not in cx_names:
            kind = "a runtime parameter" if n in params else "not a parameter"
            raise ArgumentError(f"{where}: constexprs names {n!r}, which is {kind} of the "
                                "kernel")

    entry = _TilecOp(name, k, params, inputs, types, dict(outputs), targets, fixed)
    op = torch.library.custom_op(name, entry.run, mutates_args=(), schema=entry.schema())
    op.register_fake(entry.fake)
    entry.op = op
    _OPS[name] = entry
    return op


def compiled(op: Any, *args: Any) -> Any:
    """The tilec ``Compiled`` that ``op`` (a name or the object ``custom_op`` returned) runs
    for the arguments ``args`` (its ``.source``, ``.plan``, ``.selection``); builds nothing
    that a call would not."""
    entry = _OPS.get(op) if isinstance(op, str) else \
        next((e for e in _OPS.values() if e.op is op), None)
    if entry is None:
        raise ArgumentError(f"tc.torch.compiled: {op!r} is not an op registered by "
                            "tc.torch.custom_op")
    device = entry.device_of(args)
    kargs = entry.kernel_args(args, entry.allocate(args, device))
    return entry.compile(kargs, entry.target_for(device))
