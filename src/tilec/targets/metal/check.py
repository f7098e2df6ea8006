"""Type-check emitted MSL without Apple's toolchain: libclang over the source as C++17.

``check_msl`` parses the text with libclang (the ``libclang`` wheel's ``clang.cindex``)
against ``check_header.INCLUDES`` in place of ``<metal_stdlib>`` and the tensor and MPP headers
(all in-memory files: no
system header is read). Every error, and every warning except an unknown attribute that
MSL defines (``check_header.METAL_ATTRIBUTES``), fails the check with the diagnostics, the
source lines around the first one and the TileIR operation that line came from
(docs/design/metal.md says what this does and does not establish).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilec.ir import UserError
from tilec.targets.metal.check_header import INCLUDES, METAL_ATTRIBUTES

__all__ = ["MSLCheckError", "Diagnostic", "check_msl", "checker_unavailable"]

_MAIN = "/tilec_msl/kernel.metal"
_INCLUDE = "/tilec_msl/include"
_ARGS = ["-x", "c++", "-std=c++17", "-fsyntax-only", "-nostdinc", "-nostdinc++",
         f"-I{_INCLUDE}", "-Wall", "-Wno-unused-variable", "-Wno-unused-function",
         "-Wno-unused-but-set-variable", "-Wno-unknown-pragmas"]
_UNKNOWN_ATTR = re.compile(r"unknown attribute '(\w+)' ignored")
_SCOPED = "automatic variable qualified with an address space"
_KERNEL_SCOPE_DECL = re.compile(r"  threadgroup \w+ tc_\w+\[\d+\];.*")
"""MSL declares threadgroup variables in a kernel's outermost scope, which C++ address
spaces do not allow for automatic variables: the one diagnostic that is MSL's rule, not an
error, on exactly such a declaration."""


@dataclass(frozen=True)
class Diagnostic:
    """One libclang diagnostic of the emitted source."""

    severity: str
    """``warning``, ``error`` or ``fatal``."""
    line: int
    """Line in the emitted source (0 when it is in the header)."""
    message: str
    """Clang's text."""

    def __str__(self) -> str:
        return f"line {self.line}: {self.severity}: {self.message}"


class MSLCheckError(UserError, RuntimeError):
    """Emitted MSL failed the check; the message shows the diagnostics and where they came
    from. This is a compiler bug (the emitter printed bad MSL), not a user error, but it is
    reported with the same care."""

    __module__ = "tilec"

    def __init__(self, message: str, diagnostics: list[Diagnostic]) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
        """Every failing diagnostic."""


def _cindex() -> Any:
    import clang.cindex as cindex

    return cindex


def checker_unavailable() -> str | None:
    """None when libclang can be loaded here, else why not."""
    try:
        _cindex().Index.create()
    except Exception as e:  # ImportError, or the shared library failing to load
        return f"libclang is not available ({type(e).__name__}: {e}); pip install libclang"
    return None


_SEVERITY = {2: "warning", 3: "error", 4: "fatal"}


def diagnostics(text: str) -> list[Diagnostic]:
    """Every failing diagnostic of ``text`` (empty: it passes)."""
    cindex = _cindex()
    tu = cindex.Index.create().parse(
        _MAIN, args=_ARGS,
        unsaved_files=[(_MAIN, text), *((f"{_INCLUDE}/{name}", body)
                                         for name, body in INCLUDES.items())])
    out = []
    lines = text.splitlines()
    for d in tu.diagnostics:
        sev = _SEVERITY.get(d.severity)
        if sev is None:
            continue
        m = _UNKNOWN_ATTR.fullmatch(d.spelling)
        if sev == "warning" and m is not None and m.group(1) in METAL_ATTRIBUTES:
            continue
        f = d.location.file
        line = d.location.line if f is not None and f.name == _MAIN else 0
        if d.spelling == _SCOPED and line and _KERNEL_SCOPE_DECL.fullmatch(lines[line - 1]):
            continue
        out.append(Diagnostic(sev, line, d.spelling))
    return out


def check_msl(text: str, origin_of_line: Callable[[int], Any] | None = None,
              kernel: str = "kernel") -> None:
    """Raise ``MSLCheckError`` unless ``text`` passes; ``origin_of_line`` (the emitter
    buffer's ``origin_of_line``) names the TileIR operation behind the first bad line."""
    diags = diagnostics(text)
    if not diags:
        return
    lines = text.splitlines()
    first = next((d.line for d in diags if d.line), 0)
    parts = [f"emitted MSL of {kernel} fails the check ({len(diags)} diagnostics):"]
    parts += [f"  {d}" for d in diags[:12]]
    if first:
        parts.append(f"generated source around line {first}:")
        for n in range(max(1, first - 3), min(len(lines), first + 2) + 1):
            parts.append(f"{'>' if n == first else ' '} {n:5d} | {lines[n - 1]}")
        origin = origin_of_line(first) if origin_of_line is not None else None
        if origin is not None:
            parts.append(f"emitted for TileIR {origin}")
    raise MSLCheckError("\n".join(parts), diags)
