"""Logging: the ``tilec`` logger and ``TILEC_LOG``.

Every module logs through a child of the ``tilec`` logger (``logging.getLogger(__name__)``),
so an application configures tilec as any library: ``logging.getLogger("tilec")``. Without
that, ``TILEC_LOG`` switches on a handler on standard error:

* ``TILEC_LOG=info``: each compile stage of each kernel with its time (``@matmul plan for
  cpu: 2.1 ms``), and each tuning run's outcome;
* ``TILEC_LOG=debug``: also the disk-cache hits and misses of the compilers.

A value that is not a level is reported once and ignored. Nothing is logged by default
(the logger is left at warnings).
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["LEVELS", "configure_from_env", "logger"]

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR}
"""The values ``TILEC_LOG`` takes."""

logger = logging.getLogger("tilec")
"""The root of tilec's loggers."""

_HANDLER_NAME = "tilec-env"


def configure_from_env(value: str | None = None) -> logging.Handler | None:
    """Apply ``TILEC_LOG`` (or ``value``): set the ``tilec`` logger's level and attach one
    standard-error handler (replacing an earlier one from here). Returns the handler, or
    None when the variable is unset or not a level."""
    value = os.environ.get("TILEC_LOG") if value is None else value
    if not value:
        return None
    level = LEVELS.get(value.strip().lower())
    for h in list(logger.handlers):
        if h.get_name() == _HANDLER_NAME:
            logger.removeHandler(h)
    if level is None:
        print(f"tilec: TILEC_LOG={value!r} is not a level; use one of "
              f"{', '.join(LEVELS)}", file=sys.stderr)
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter("tilec %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler
