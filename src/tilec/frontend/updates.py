"""Ancestor updates inside ``tc.parallel``: ``acc[i * BM:(i + 1) * BM] = t``, ``acc = update(...)``.

A tile declared outside a parallel nest may be updated in parts by each instance of
the nest, once, at the top level of the nest's body; the update is recorded on the
nest (payload and origin) and assembled when the nest closes (``regions``). These
are the methods of ``Capture`` that check and record one such update.
"""

from __future__ import annotations

import ast
from typing import Any

from . import tiles, views
from .regions import _Slot
from .values import Elem, TileVal, Undefined, ViewTile, describe

__all__ = ["UpdateCapture"]


class UpdateCapture:
    """Ancestor-update methods mixed into ``Capture`` (they use its state and helpers)."""

    def _update_slot(self, where: ast.AST, name: str) -> _Slot:
        slot = self._slot(name)
        if slot is None:
            raise self.error(where, f"partial assignment to {name}: tiles are values; only a "
                             f"tile declared outside a tc.parallel nest can be updated in parts "
                             f"from inside it")
        if self.pars[-1].slots.get(name) is not slot:
            raise self.error(where, f"{name} belongs to an outer parallel nest; update it at the "
                             f"top level of that nest")
        if self.depth != slot.depth:
            raise self.error(where, f"the update of {name} must be a top-level statement of the "
                             f"parallel nest's body (not inside a loop or an if)")
        if slot.update is not None:
            line = self.src.position(slot.where)[0]  # type: ignore[arg-type]
            raise self.error(where, f"{name} is already updated by this instance at line {line};"
                             f" an instance may update each ancestor tile once")
        return slot

    def _record_update(self, where: ast.AST, slot: _Slot, payload: Any,
                       origin: list[Any], shape: tuple[int, ...] | None) -> None:
        init_t = slot.entry.type
        rank = init_t.rank  # type: ignore[attr-defined]
        if len(origin) != rank:
            raise self.error(where, f"the update of {slot.name} needs {rank} origin coordinates, "
                             f"got {len(origin)}")
        if shape is not None:
            payload = tiles.as_tileish(self, where, payload)
            pshape = tiles.tile_shape(self, where, payload) if isinstance(
                payload, (TileVal, ViewTile, Elem)) else None
            if pshape is not None and pshape != shape:
                if len(pshape) < len(shape) and tuple(e for e in shape if e != 1) == pshape:
                    payload = views.reshape(self, where, payload, shape)
                else:
                    payload = views.broadcast_to(self, where, payload, shape)
            elif pshape is None:
                payload = views.broadcast_to(self, where, payload, shape)
        payload = tiles.cast_value(self, where, payload, init_t.dtype)  # type: ignore
        tile = tiles.as_tile(self, where, payload, "a tile patch")
        if len(tile.shape) != rank:
            raise self.error(where, f"the patch for {slot.name} is {describe(tile)}; a rank-"
                             f"{rank} patch is needed")
        for e, full in zip(tile.shape, init_t.shape):  # type: ignore[attr-defined]
            if e > int(full):
                raise self.error(where, f"the patch {describe(tile)} is larger than "
                                 f"{slot.name} ({init_t})")
        ovals = [tiles.as_index(self, where, o, "an update origin").value for o in origin]
        if tile.value.name_hint is None:
            tile.value.name_hint = f"{slot.name}_patch"
        slot.update = (tile.value, ovals)
        slot.where = where
        line = self.src.position(where)[0]
        self.env[slot.name] = Undefined(
            f"{slot.name} was updated by this parallel instance at line {line}; the updated "
            f"tile exists only after the nest (read the patch instead)")

    def _slice_update(self, target: ast.Subscript, value: Any, stmt: ast.stmt) -> None:
        if not isinstance(target.value, ast.Name):
            raise self.error(target, "slice assignment needs a named tile: acc[...] = patch")
        name = target.value.id
        slot = self._update_slot(target, name)
        items = self._subscript_items(target)
        full = [int(e) for e in slot.entry.type.shape]  # type: ignore[attr-defined]
        if len(items) != len(full):
            raise self.error(target, f"{name} has rank {len(full)}; index every axis "
                             f"(use : for whole axes)")
        origin: list[Any] = []
        shape: list[int] = []
        for it, ext in zip(items, full):
            if isinstance(it, slice):
                start, size, step = views.slice_extent(self, target, it, ext)
                if step != 1:
                    raise self.error(target, "updates need unit-step slices")
                origin.append(start)
                shape.append(size)
            elif it is None or it is Ellipsis:
                raise self.error(target, "None and ... are not allowed in an update target")
            else:
                origin.append(it)
                shape.append(1)
        self._record_update(target, slot, value, origin, tuple(shape))

    def _update_call(self, stmt: ast.Assign, name: str, call: ast.Call) -> None:
        site = self._call_site(call, "tc.update")
        a = site.bind(["tile", "origin", "patch"])
        if not (isinstance(call.args[0], ast.Name) and call.args[0].id == name) \
                if call.args else True:
            raise site.error(f"write {name} = tc.update({name}, origin, patch): the updated tile "
                             f"must be assigned back to itself", 0)
        slot = self._update_slot(call, name)
        origin = a["origin"] if isinstance(a["origin"], tuple) else (a["origin"],)
        self._record_update(call, slot, a["patch"], list(origin), None)

    # ------------------------------------------------------------------- reduction
