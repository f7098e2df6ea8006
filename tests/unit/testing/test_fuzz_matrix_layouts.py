"""The ``matrix`` family's transposed layouts (``gen_matrix.LAYOUTS``): operands drawn as the
``.T`` of the other shape and whole products computed transposed render, capture, and the
reference agrees with the model on them."""

from __future__ import annotations

import collections

from tilec.testing.fuzz import ChoiceStream, generate
from tilec.testing.fuzz.gen_elementwise import Full, View
from tilec.testing.fuzz.gen_matrix import LAYOUTS, Mma, transposed
from tilec.testing.fuzz.gen_windows import Load
from tilec.testing.fuzz.numerics import DTYPES
from tilec.testing.fuzz.program import IndexExpr, Var
from tilec.testing.fuzz.runner import run_program

WEIGHTS = {"matrix": 3, "loops": 1, "windows": 1, "elementwise": 1}


def _mmas(prog) -> list[Mma]:
    return [n for n in prog.nodes() if isinstance(n, Mma)]


def test_transposed_loads_windows_and_cancels_transposes() -> None:
    f32 = DTYPES["f32"]
    w = Load("X0", (IndexExpr((), 0), IndexExpr((), 1)), (3, 5), 0.0, (3, 5), f32)
    t = transposed(w)
    assert t is w and w.tile_t and w.shape == (5, 3)
    assert w.render() == "X0.tile((0, 1), (3, 5), fill=0.0).T"
    assert transposed(w) is w and not w.tile_t and w.shape == (3, 5)
    full = Full((2, 4), f32, 1.0)
    v = transposed(full)
    assert isinstance(v, View) and v.shape == (4, 2) and v.render().endswith(".T")
    assert transposed(v) is full


def test_every_layout_is_drawn_about_one_product_in_four() -> None:
    seen: collections.Counter = collections.Counter()
    for seed in range(200):
        for m in _mmas(generate(ChoiceStream(seed), WEIGHTS)):
            seen[m.layout] += 1
    assert set(seen) == {name for name, _ in LAYOUTS}, seen
    share = 1 - seen["nn"] / sum(seen.values())
    assert 0.12 < share < 0.4, seen


def test_transposed_products_agree_with_the_model_on_the_reference(tmp_path) -> None:
    kinds: collections.Counter = collections.Counter()
    for seed in range(300):
        prog = generate(ChoiceStream(seed), WEIGHTS)
        layouts = {m.layout for m in _mmas(prog)} - {"nn"}
        if not layouts or layouts <= set(kinds):
            continue
        src = prog.source()
        res = run_program(prog, ["reference"], str(tmp_path))
        assert res.outcomes["reference"].kind == "ok", (src, res.outcomes["reference"])
        kinds.update(layouts)
        if "swapped" in layouts:
            assert ".T" in src
    assert set(kinds) == {"tn", "nt", "tt", "swapped"}, kinds


def test_a_transposed_k_loop_stores_the_accumulators_transpose() -> None:
    """A swapped K loop accumulates N x M and binds and stores ``acc.T``, M x N."""
    for seed in range(400):
        prog = generate(ChoiceStream(seed), {"matrix": 1})
        src = prog.source()
        loops = [m for m in _mmas(prog) if m.layout == "swapped" and isinstance(m.c, Var)
                 and f"{m.c.render()} = tc.mma(" in src]
        if loops:
            m = loops[0]
            acc = m.c.render()
            assert f" = {acc}.T\n" in src, src
            assert m.shape == (m.a.shape[0], m.b.shape[1]) == m.c.shape
            return
    raise AssertionError("no swapped K loop among 400 seeds")
