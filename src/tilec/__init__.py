"""tilec: a tile-level kernel compiler for Python.

The public API lives here and nowhere else.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
