"""Failure files: the shrunk kernel, the choices that regenerate it and its seeded inputs,
and a ``__main__`` that reproduces the failure (``python FILE``)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence

from .choices import ChoiceStream

__all__ = ["write_repro", "main", "replay_program"]


def replay_program(choices: Sequence[int], weights: dict[str, int]):  # type: ignore[no-untyped-def]
    """The program a stream of choices generates."""
    from .generator import generate

    return generate(ChoiceStream.replay(list(choices)), weights)


def write_repro(directory: str, name: str, source: str, choices: Sequence[int], path: str,
                weights: dict[str, int], kind: str, reason: str, detail: str) -> str:
    """Write a failure file; returns its path."""
    os.makedirs(directory, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]
    file = os.path.join(directory, f"{safe}.py")
    doc = (f'"""Fuzzer failure on {path}: {kind}: {reason}\n\n'
           + _wrap(detail[:2000]).replace('"""', "'''").replace("\\", "\\\\") +
           '\n\nRun this file to reproduce (the choices regenerate this kernel and its seeded'
           '\ninputs; the outputs are poisoned before every run).\n"""\n')
    text = (doc + source + "\n\n" + f"CHOICES = {json.dumps(list(choices))}\n"
            f"PATH = {path!r}\nWEIGHTS = {json.dumps(weights, sort_keys=True)}\n\n"
            "if __name__ == \"__main__\":\n"
            "    from tilec.testing.fuzz.repro import main\n\n"
            "    raise SystemExit(main(CHOICES, PATH, WEIGHTS))\n")
    with open(file, "w") as f:
        f.write(text)
    return file


def _wrap(text: str, width: int = 96) -> str:
    out, line = [], ""
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width and line:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return "\n".join(out)


def main(choices: Sequence[int], path: str, weights: dict[str, int]) -> int:
    """Regenerate the program, run it on the reference and ``path``, print what happened;
    1 while it still fails."""
    from .runner import FAILURES, run_program

    prog = replay_program(choices, weights)
    res = run_program(prog, [path])
    failed = False
    for p, o in res.outcomes.items():
        print(f"{p}: {o.kind} {o.reason}")
        if o.detail and o.kind != "ok":
            print(f"    {o.detail[:2000]}")
        failed |= o.kind in FAILURES
    return 1 if failed else 0
