"""Passes and the pass manager.

A pass transforms a module and reports what it did: whether anything changed
and which analyses remain valid (``PassResult``). The ``PassManager`` runs
passes in order over one ``AnalysisManager``, drops the analyses a pass did
not preserve, and, when asked, verifies and prints the module after each
pass so a broken pass is caught at the pass that broke the IR.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TextIO

from .analysis import Analysis, AnalysisManager

__all__ = ["Pass", "PassManager", "PassResult", "PassRecord"]


@dataclass(frozen=True)
class PassResult:
    """What one pass run did."""

    changed: bool
    """True when the pass mutated the IR."""
    preserved: frozenset[type[Analysis]] = field(default_factory=frozenset)
    """Analyses still valid after the pass (ignored when nothing changed: all survive)."""

    def __post_init__(self) -> None:
        if not isinstance(self.preserved, frozenset):
            object.__setattr__(self, "preserved", frozenset(self.preserved))

    @staticmethod
    def unchanged() -> PassResult:
        """Nothing changed; every analysis survives."""
        return PassResult(False)

    @staticmethod
    def modified(preserved: Iterable[type[Analysis]] = ()) -> PassResult:
        """Something changed; only ``preserved`` analyses survive."""
        return PassResult(True, frozenset(preserved))


class Pass:
    """A module transformation; subclasses implement ``run``."""

    name: ClassVar[str] = "pass"
    """A short stable name used in logs and diagnostics (defaults to the class name)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def run(self, module: Any, am: AnalysisManager) -> PassResult:
        """Transform ``module``, reading analyses through ``am``."""
        raise NotImplementedError(f"pass {self.name} does not implement run")

    def __repr__(self) -> str:
        return f"<Pass {self.name}>"


@dataclass(frozen=True)
class PassRecord:
    """One pass execution as the manager saw it."""

    name: str
    """The pass name."""
    changed: bool
    """What the pass reported."""
    seconds: float
    """Wall time of ``run`` (verification and printing excluded)."""
    invalidated: tuple[str, ...]
    """Names of the cached analyses dropped after it."""


class PassManager:
    """Runs passes in order, invalidating, verifying and printing between them."""

    def __init__(self, passes: Sequence[Pass], verify_each: bool = False,
                 print_each: bool = False, form: str = "candidate",
                 out: TextIO | None = None,
                 after: Callable[[Pass, Any], None] | None = None) -> None:
        self.passes = list(passes)
        """The pipeline, in order."""
        self.verify_each = verify_each
        """Verify the module after every pass (a failure names the pass)."""
        self.print_each = print_each
        """Print the module after every pass to ``out``."""
        self.form = form
        """The verifier form to check (``candidate``, ``scheduled``, ``machine``)."""
        self.out = out
        """Where ``print_each`` writes (None: standard output at run time)."""
        self.after = after
        """Called with each pass and the module after it ran (and was verified), e.g. to keep
        a snapshot or to check a form that changes from pass to pass."""
        self.records: list[PassRecord] = []
        """One record per pass executed by the last ``run``."""

    def run(self, module: Any, am: AnalysisManager | None = None) -> bool:
        """Run every pass over ``module``; True when any pass changed it."""
        if am is None:
            am = AnalysisManager(module)
        elif am.root is not module:
            raise ValueError("the analysis manager describes a different module")
        verify = None
        if self.verify_each:
            from .verifier import verify  # written separately; import only when needed
        self.records = []
        changed_any = False
        for p in self.passes:
            start = time.perf_counter()
            result = p.run(module, am)
            elapsed = time.perf_counter() - start
            if not isinstance(result, PassResult):
                raise TypeError(f"pass {p.name} returned {result!r}, not a PassResult")
            dropped: set[type[Analysis]] = set()
            if result.changed:
                changed_any = True
                dropped = am.invalidate(result.preserved)
            self.records.append(PassRecord(p.name, result.changed, elapsed,
                                           tuple(sorted(k.name for k in dropped))))
            if self.print_each:
                stream = self.out if self.out is not None else sys.stdout
                stream.write(f"// ----- IR after {p.name} "
                             f"({'changed' if result.changed else 'unchanged'}) -----\n")
                stream.write(str(module))
            if verify is not None:
                try:
                    verify(module, form=self.form)
                except Exception as e:
                    if hasattr(e, "add_note"):
                        e.add_note(f"(the module no longer verifies after pass {p.name!r})")
                    raise
            if self.after is not None:
                self.after(p, module)
        return changed_any

    def __repr__(self) -> str:
        return f"<PassManager [{', '.join(p.name for p in self.passes)}]>"
