"""tilec: a tile-level kernel compiler for Python.

The public API lives here and nowhere else: ``@tilec.kernel``, ``tilec.compile``,
``tilec.interpret``, the dtypes and the DSL builtins (see ``docs/guide/dsl.md``).
"""

from .frontend import *  # noqa: F403
from .frontend import __all__ as _frontend_all
from .runtime import available_targets, default_target

__version__ = "0.1.0"

__all__ = ["__version__", "available_targets", "default_target", *_frontend_all]
