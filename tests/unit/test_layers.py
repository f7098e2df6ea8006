"""The import rules of docs/design/architecture.md: every ``tilec`` import, module level or
inside a function, goes down the layers, never up, and none reaches around the registry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

# Each layer, and the layers it may import (its own is always allowed). Targets are the
# packages under ``tilec.targets``; ``tilec.targets`` itself holds what they share.
ALLOWED: dict[str, set[str]] = {
    "tilec.support": set(),
    "tilec.ir": set(),
    "tilec.exec": {"tilec.ir"},
    "tilec.plan": {"tilec.ir", "tilec.exec"},
    "tilec.lower": {"tilec.ir", "tilec.exec", "tilec.plan"},
    "tilec.targets.shared": {"tilec.ir"},
    "tilec.targets.reference": {"tilec.ir", "tilec.exec", "tilec.targets.shared"},
    "tilec.targets.cpu": {"tilec.ir", "tilec.exec", "tilec.targets.shared"},
    "tilec.targets.cuda": {"tilec.ir", "tilec.exec", "tilec.targets.shared"},
    # Metal specializes the CUDA emitter's SIMT machinery (register arrays, the access
    # writer, the tile and memory printers) rather than copying it; never the other way.
    "tilec.targets.metal": {"tilec.ir", "tilec.exec", "tilec.targets.shared",
                            "tilec.targets.cuda"},
    # the TIRx bridge exports Candidate TileIR to TVM, binds a call's arguments as the
    # reference interpreter does (its MemRef views), checks TVM's Metal source with the
    # Metal target's checker (its header of MSL builtins); its GPU routes read the
    # planner's distributions from the Scheduled form (the lowering's schedule stage) and
    # run TVM's CUDA source through the CUDA target's runtime (NVRTC, driver, launcher)
    "tilec.targets.tirx": {"tilec.ir", "tilec.exec", "tilec.plan", "tilec.lower",
                           "tilec.targets.shared", "tilec.targets.reference",
                           "tilec.targets.metal", "tilec.targets.cuda"},
    "tilec.runtime": {"tilec.ir", "tilec.exec"},
    "tilec.driver": {"tilec.ir", "tilec.exec", "tilec.plan", "tilec.lower", "tilec.runtime"},
    "tilec.frontend": {"tilec.ir", "tilec.exec", "tilec.plan", "tilec.driver", "tilec.runtime",
                       "tilec.targets.reference"},
}
"""Layers below the public facade. ``tilec`` (the facade), ``tilec.cli``, ``tilec.demo``,
``tilec.lib``, ``tilec.testing``, ``tilec.torch_ops`` (``tc.torch``) and ``tilec.tuning`` sit on
top and may import any of them."""
# ``tilec.support`` (the cache location, terminal progress) imports nothing of tilec and
# every layer but the IR may use it: the IR stays self-contained.
for _layer, _allowed in ALLOWED.items():
    if _layer not in ("tilec.support", "tilec.ir"):
        _allowed.add("tilec.support")

TOP = {"tilec", "tilec.cli", "tilec.demo", "tilec.lib", "tilec.testing", "tilec.torch_ops",
       "tilec.tuning"}


def layer(module: str) -> str:
    """The layer a module belongs to."""
    parts = module.split(".")
    if parts[:2] == ["tilec", "targets"]:
        if len(parts) > 2 and (SRC / "tilec" / "targets" / parts[2]).is_dir():
            return ".".join(parts[:3])
        return "tilec.targets.shared"
    if len(parts) == 1:
        return "tilec"
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports() -> list[tuple[str, str, int]]:
    """Every (importer, imported, line) of a ``tilec`` module, at any nesting."""
    out = []
    for path in sorted((SRC / "tilec").rglob("*.py")):
        mod = _module_name(path)
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                    names = [target] if node.module else [f"{target}.{a.name}"
                                                           for a in node.names]
                else:
                    names = [node.module or ""]
                    if node.module in ("tilec", "tilec.targets"):
                        names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name == "tilec" or name.startswith("tilec."):
                    out.append((mod, name, node.lineno))
    return out


def test_every_import_goes_down_the_layers() -> None:
    bad = []
    for src, dst, line in imports():
        a, b = layer(src), layer(dst)
        if a == b or a in TOP:
            continue
        if b in TOP or b not in ALLOWED.get(a, set()):
            bad.append(f"{src}:{line} imports {dst} ({a} -> {b})")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_the_rules_cover_every_module() -> None:
    layers = {layer(m) for m, _, _ in imports()}
    assert layers <= set(ALLOWED) | TOP, sorted(layers - set(ALLOWED) - TOP)


@pytest.mark.parametrize("src, dst, ok", [
    ("tilec.ir.core", "tilec.lower.atoms", False),
    ("tilec.lower.machine", "tilec.targets.cuda.emitter", False),
    ("tilec.lower.machine", "tilec.ir.ranges", True),
    ("tilec.lower.machine", "tilec.targets.kernel_checks", False),
    ("tilec.plan.extract", "tilec.targets.cuda.profile", False),
    ("tilec.exec.profiles", "tilec.targets.cuda.profile", False),
    ("tilec.targets.cuda.profile", "tilec.exec.profiles.base", True),
    ("tilec.targets.reference.simt", "tilec", False),
    ("tilec.driver", "tilec.frontend.jit", False),
    ("tilec.frontend.jit", "tilec.driver", True),
    ("tilec.targets.compile_cache", "tilec.support.paths", True),
    ("tilec.targets.reference.simt", "tilec.support", True),
    ("tilec.ir.core", "tilec.support", False),
    ("tilec.targets.metal.emitter", "tilec.targets.cuda.emitter", True),
    ("tilec.targets.cuda.emitter", "tilec.targets.metal.emitter", False),
    ("tilec.targets.metal.backend", "tilec.runtime", False),
    ("tilec.support.terminal", "tilec.runtime.log", False),
])
def test_the_rule_itself(src: str, dst: str, ok: bool) -> None:
    a, b = layer(src), layer(dst)
    assert (a == b or (b not in TOP and b in ALLOWED.get(a, set()))) is ok
