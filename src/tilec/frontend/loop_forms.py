"""The call forms of the counted loops: serial, range, pipeline and static_range.

Each loop takes ``(n)`` or ``(lo, hi, step=1)`` like Python's ``range``, plus its
keyword options; ``LOOP_SIGNATURES`` spells the forms docs/guide/dsl.md documents, and
every error names them. Bounds are positional; ``step`` may also be a keyword except
for ``range``, which takes no keywords (as in Python).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tiles import CallSite

__all__ = ["LOOP_SIGNATURES", "bind_loop"]

LOOP_SIGNATURES = {
    "tc.serial": "tc.serial(n, *, unroll=None) or tc.serial(lo, hi, step=1, *, unroll=None)",
    "range": "range(n) or range(lo, hi, step)",
    "tc.pipeline": "tc.pipeline(n, *, stages=None, window=None) or "
                   "tc.pipeline(lo, hi, step=1, *, stages=None, window=None)",
    "tc.static_range": "tc.static_range(n) or tc.static_range(lo, hi, step=1)",
}
"""How the user spelled the loop -> its accepted forms, as error messages write them."""

_OPTIONS = {"tc.serial": ("unroll",), "range": (), "tc.pipeline": ("stages", "window"),
            "tc.static_range": ()}
"""The keyword options of each loop besides ``step``."""


def bind_loop(site: CallSite) -> tuple[list[tuple[Any, int | str]], dict[str, Any]]:
    """Bind a loop call to ``lo, hi, step`` and its keyword options.

    Returns ``[(value, where)]`` for ``lo``, ``hi`` and ``step`` (``where`` is the
    positional index or keyword that locates the value in the call; a default is located
    at the last bound written) and the options given. A form outside
    ``LOOP_SIGNATURES`` is a located ``TileSyntaxError``.
    """
    name, forms = site.name, LOOP_SIGNATURES[site.name]
    for k in site.kwargs:
        if k in _OPTIONS[name] or (k == "step" and name != "range"):
            continue
        if name == "range":
            raise site.error(f"range() takes no keyword arguments (got {k!r}); write {forms}",
                             k)
        raise site.error(f"{name}() got an unexpected keyword argument {k!r}; it takes {forms}",
                         k)
    args = site.args
    if not 1 <= len(args) <= 3:
        raise site.error(f"{name}() takes 1 to 3 positional bounds, got {len(args)}; "
                         f"write {forms}")
    opts = {k: v for k, v in site.kwargs.items() if k != "step"}
    if "step" in site.kwargs:
        if len(args) == 3:
            raise site.error(f"{name}() got multiple values for argument 'step'", "step")
        if len(args) == 1:
            raise site.error(f"{name}(n) takes no step; write {name}(0, n, step=...)", "step")
        return [(args[0], 0), (args[1], 1), (site.kwargs["step"], "step")], opts
    if len(args) == 1:
        return [(0, 0), (args[0], 0), (1, 0)], opts
    step = (args[2], 2) if len(args) == 3 else (1, 1)
    return [(args[0], 0), (args[1], 1), step], opts
