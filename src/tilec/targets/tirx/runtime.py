"""Calling a ``tirx:llvm`` kernel: arguments as DLPack tensors, failures as kernel errors.

The arguments are checked exactly as the reference interpreter checks them
(``reference.backend.bind_arguments``: the launchers' wording, shape symbols from the
arrays, aliasing), the host checks run first (``kernel_checks.HostChecks``), and arrays that
are not C-contiguous are replaced by contiguous copies for the call and written back after
it. Each array goes to TVM as a DLPack tensor over the caller's memory (``bf16`` viewed
as ``uint16``, ``bool`` as ``uint8``; no copy). A kernel failure writes the status record
and leaves through a TVM assertion; the record becomes the same ``KernelFailure`` every
target raises.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.targets import numerics as nx
from tilec.targets.clike import UnsupportedError
from tilec.targets.kernel_checks import HostChecks, decode_bits

from .exporter import ERR_REINDEX, TARGET, Export

__all__ = ["TirxExecutable", "build_prim_func", "TirxKernelError"]


class TirxKernelError(ir.UserError, RuntimeError):
    """TVM's compiled function failed for a reason other than a kernel failure."""


def build_prim_func(export: Export, fn: ir.Function) -> Any:
    """``tvm.compile`` of the PrimFunc for ``llvm`` (built once per PrimFunc text, in this
    process and on disk: ``cache``): the callable packed function."""
    from .cache import build_cached

    try:
        return build_cached(export.prim_func, export.name, export.text)
    except Exception as e:  # a TVM failure is the bridge's: report it without TVM's stack
        first = str(e).strip().splitlines()
        reason = first[-1] if first else type(e).__name__
        raise UnsupportedError(TARGET, None, f"TVM could not compile @{fn.name}: "
                                             f"{reason}") from None


_VIEW = {np.dtype(np.bool_): np.uint8, np.dtype(nx.BF16): np.uint16}


def _tensor(a: np.ndarray) -> Any:
    import tvm_ffi

    view = _VIEW.get(a.dtype)
    a = a if view is None else a.view(view)
    if a.size == 0:  # numpy exports zero strides for an empty array; TVM wants compact ones
        strides = [a.itemsize] * a.ndim
        for k in range(a.ndim - 2, -1, -1):
            strides[k] = strides[k + 1] * max(a.shape[k + 1], 1)
        a = np.lib.stride_tricks.as_strided(np.zeros(1, a.dtype), a.shape, tuple(strides))
    return tvm_ffi.from_dlpack(a, require_alignment=0)


class TirxExecutable:
    """A ``tirx:llvm`` kernel: call it with the user arguments (arrays written in place)."""

    def __init__(self, module: ir.Module, fn: ir.Function, export: Export, entry: Any) -> None:
        self.module = module
        """The Candidate module."""
        self.function = fn
        """The entry function."""
        self.export = export
        """The PrimFunc and its failure reports."""
        self.entry = entry
        """TVM's compiled function."""
        self.host_checks = HostChecks(fn)
        """Checks evaluated on the arguments before the call."""

    @property
    def name(self) -> str:
        """The kernel's name."""
        return self.function.name

    @property
    def source(self) -> str:
        """The PrimFunc as TVMScript (this target's generated source)."""
        return self.export.text

    @property
    def tirx(self) -> str:
        """The same TVMScript text."""
        return self.export.text

    def __call__(self, *args: Any) -> Any:
        from tilec.targets.reference.backend import bind_arguments, contiguous_arguments
        from tilec.targets.reference.memref import MemRef

        fn = self.function
        entry = bind_arguments(fn, args)
        self.host_checks.run(entry)
        n_user = len(fn.args) - len(fn.shape_symbols)
        status = np.zeros(2 + max(self.export.n_values, 2), np.int64)
        results = [np.zeros(() if isinstance(t, ir.ScalarType) else
                            tuple(int(d) for d in t.shape), nx.np_dtype(
                                t if isinstance(t, ir.ScalarType) else t.dtype))
                   for t in fn.result_types]
        with contiguous_arguments(entry) as work:
            argv: list[Any] = []
            keep: list[Any] = []
            for p, v in zip(fn.args[:n_user], work[:n_user]):
                if isinstance(v, MemRef):
                    keep.append(v.root)
                    argv.append(_tensor(v.root))
                elif isinstance(v, np.ndarray):  # a tile argument (a private copy)
                    c = np.ascontiguousarray(v)
                    keep.append(c)
                    argv.append(_tensor(c))
                else:
                    argv.append(float(v) if p.type.is_float else int(v))
            argv += [int(s) for s in work[n_user:]]
            argv.append(_tensor(status))
            argv += [_tensor(r.reshape(-1) if r.ndim == 0 else r) for r in results]
            try:
                self.entry(*argv)
            except Exception as e:  # TVM's error: the status record says what failed
                if status[0]:
                    raise self._failure(status) from None
                raise TirxKernelError(f"kernel @{self.name} failed in TVM: "
                                      f"{str(e).strip().splitlines()[-1]}") from None
        if not results:
            return None
        outs = [r[()] if r.ndim == 0 else r for r in results]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _failure(self, status: np.ndarray) -> Exception:
        code, op_id = int(status[0]), int(status[1])
        if code == ERR_REINDEX:
            read = self.export.reads.get((op_id, int(status[3])))
            if read is not None:
                return read.failure(self.name, [int(status[2])])
        info = self.export.checks.get(op_id)
        if info is not None:
            return info.failure(self.name, [decode_bits(int(status[2 + k]), t)
                                            for k, t in enumerate(info.types)])
        return TirxKernelError(f"kernel @{self.name} failed with status {code} at operation "
                               f"#{op_id}")

    def __repr__(self) -> str:
        return f"<TirxExecutable @{self.name} (tirx:llvm)>"
