"""Progress on the terminal for long work: unrolling, big compiles, simulation, tuning.

``with progress("simulating @k", total=n) as p: ... p.advance()`` shows a transient line
(spinner, description, bar, ``done/total``, elapsed time) on standard error, and only
when a person is watching it:

* ``TILEC_PROGRESS=0`` (or ``false``, ``no``, ``off``): never;
* ``TILEC_PROGRESS=1`` (or ``true``, ``yes``, ``on``): always, on standard error as a
  terminal even when it is not one;
* unset: when standard error is a terminal (not ``TERM=dumb``), outside CI (``$CI``)
  and outside pytest (``$PYTEST_CURRENT_TEST``).

Off, ``progress`` returns ``OFF``, whose methods are one function that does nothing, so a
loop that advances it per iteration pays a method call and nothing else; ``rich`` is
imported only when something is shown. Nested tasks (a static_range unrolled while
tuning builds a candidate) are rows of the one display, which the outermost task owns.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ENV", "OFF", "Task", "enabled", "progress", "to_console"]

ENV = "TILEC_PROGRESS"
"""The environment variable that switches progress on (``1``) or off (``0``)."""

_ON = frozenset({"1", "true", "yes", "on"})
_OFF_VALUES = frozenset({"0", "false", "no", "off"})


def enabled() -> bool:
    """Whether progress is shown now (``TILEC_PROGRESS``, else a watched terminal)."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in _ON:
        return True
    if value in _OFF_VALUES:
        return False
    if os.environ.get("CI") or "PYTEST_CURRENT_TEST" in os.environ \
            or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


def _nothing(*args: Any, **kwargs: Any) -> None:
    pass


class Task:
    """One row of progress: ``advance`` counts work done, ``describe`` renames the row.

    This base class is the disabled row: every method is ``_nothing``."""

    advance = _nothing
    describe = _nothing

    def __enter__(self) -> Task:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


OFF = Task()
"""The row ``progress`` returns when nothing is shown."""

_console_override: Any = None
"""The console ``to_console`` set (a test's fake terminal), else None."""

_lock = threading.Lock()
_display: Any = None  # the rich Progress on screen, shared by nested rows
_depth = 0  # rows open on it


@contextmanager
def to_console(console: Any) -> Iterator[None]:
    """Show progress on ``console`` (a ``rich.console.Console``) instead of standard error
    while the block runs; whether it is shown is still ``enabled()``'s decision."""
    global _console_override
    before, _console_override = _console_override, console
    try:
        yield
    finally:
        _console_override = before


def _start() -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    console = _console_override
    own = console is None
    if own:
        forced = os.environ.get(ENV, "").strip().lower() in _ON
        console = Console(stderr=True, force_terminal=True if forced else None)
    # Prints to a terminal while the display is up go above it. Standard output is taken
    # along only when it is a terminal too: redirected, it keeps its own bytes.
    shown = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                     MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                     transient=True, redirect_stderr=own,
                     redirect_stdout=own and _isatty(sys.stdout))
    shown.start()
    return shown


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Shown(Task):
    """A row on the display."""

    def __init__(self, description: str, total: int | None) -> None:
        self._description = description
        self._total = total
        self._id: Any = None

    def __enter__(self) -> _Shown:
        global _display, _depth
        with _lock:
            if _display is None:
                _display = _start()
            _depth += 1
            self._id = _display.add_task(self._description, total=self._total)
        return self

    def advance(self, n: int = 1) -> None:
        if self._id is not None:
            _display.advance(self._id, n)

    def describe(self, description: str) -> None:
        if self._id is not None:
            _display.update(self._id, description=description)

    def __exit__(self, *exc: object) -> None:
        global _display, _depth
        with _lock:
            if self._id is None:
                return
            _depth -= 1
            if _depth == 0:  # the outermost row: its last state is the display's last frame
                _display.stop()
                _display = None
            else:
                _display.remove_task(self._id)
            self._id = None


def progress(description: str, total: int | None = None, *, minimum: int = 0) -> Task:
    """A row of progress for ``with``: ``total`` units of work (None: unknown), shown only
    when ``enabled()`` and ``total`` is at least ``minimum``; else ``OFF``."""
    if total is not None and total < minimum:
        return OFF
    if not enabled():
        return OFF
    return _Shown(description, total)
