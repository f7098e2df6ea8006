"""The numpy model against hand-computed cases."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilec.testing.fuzz import numerics as nx
from tilec.testing.fuzz.gen_elementwise import Bin
from tilec.testing.fuzz.gen_matrix import mma_model
from tilec.testing.fuzz.gen_reduce import arg_positions, fold
from tilec.testing.fuzz.gen_windows import Load
from tilec.testing.fuzz.numerics import DTYPES, exact
from tilec.testing.fuzz.program import IndexExpr, Param, Program, Store

F32, F16, BF16, I8, I32 = (DTYPES[n] for n in ("f32", "f16", "bf16", "i8", "i32"))


def test_window_fill_at_a_negative_origin_and_store_drops_outside() -> None:
    load = Load("X0", (IndexExpr(((4, "p0"),), -2),), (4,), float("-inf"), (4,), F32)
    prog = Program([Param("X0", "in", F32, (5,)), Param("Y0", "out", F32, (6,))], (2,),
                   [Store("Y0", (IndexExpr(((4, "p0"),), 0),), load)])
    x = np.arange(5, dtype=np.float32)
    y = np.full(6, np.nan, np.float32)
    out = prog.model([x, y])[1]
    # instance 0 reads X[-2:2] -> -inf, -inf, 0, 1; instance 1 reads X[2:6] -> 2, 3, 4, -inf
    assert out.a.tolist() == [-np.inf, -np.inf, 0.0, 1.0, 2.0, 3.0]
    assert not out.e.any()


def test_f16_arithmetic_rounds_once_from_f32() -> None:
    a = exact(np.array([2049.0], np.float16), F16)  # 2048 (f16 spacing 2 above 2048)
    b = exact(np.array([1.0], np.float16), F16)
    r = nx.binary("add", a, b)
    assert r.a.dtype == np.float16 and float(r.a[0]) == 2048.0 + 2.0 * 0 + 0.0 or \
        float(r.a[0]) == float(np.float16(np.float32(a.a[0]) + np.float32(1.0)))
    assert not r.e.any()


def test_bf16_rounding_of_a_constant() -> None:
    v = nx.round_to(np.array([1.0 + 2.0 ** -8 + 2.0 ** -30]), BF16)  # just above a tie
    assert v.dtype == np.dtype(ml_dtypes.bfloat16)
    assert float(v[0]) == 1.0 + 2.0 ** -7


def test_strict_sum_is_the_in_order_fold() -> None:
    x = exact(np.array([[1e8, 1.0, -1e8, 1.0]], np.float32), F32)
    r = fold("add", x, (1,), F32, strict=True)
    # ((((0 + 1e8) + 1) + -1e8) + 1) in f32: 1e8 + 1 rounds to 1e8
    assert r.a.tolist() == [1.0] and not r.e.any()
    tree = fold("add", x, (1,), F32, strict=False)
    assert tree.e[0] > 0 and tree.e[0] >= 1.0  # a regrouping may give 2.0


def test_a_regrouped_product_of_an_infinity_may_be_nan() -> None:
    """In order, inf * 1e-3 * 1e-3 * ... stays infinite; a tree may first multiply the small
    factors to zero (f16) and give inf * 0 = NaN: unknown unless strict (found by the GPU
    campaign of seed 20261208, programs 1496 and 6284, where the model claimed bit-exact)."""
    f16 = DTYPES["f16"]
    small = [np.inf, 0.5] + [1e-3] * 4
    x = exact(np.array([small, [np.inf, 0.5, 2.0, 3.0, 1.0, 1.0]], np.float16), f16)
    tree = fold("mul", x, (1,), f16, strict=False)
    assert np.isinf(tree.a).all()
    assert np.isinf(tree.e[0])  # may be NaN in another order
    assert tree.e[1] == 0  # no grouping of 0.5 * 2 * 3 rounds to zero: inf in every order
    strict = fold("mul", x, (1,), f16, strict=True)
    assert np.isinf(strict.a[0]) and strict.e[0] == 0


def test_max_reduction_is_exact_and_propagates_nan() -> None:
    x = exact(np.array([[1.0, np.nan, 3.0], [-0.0, 0.0, -1.0]], np.float32), F32)
    r = fold("max", x, (1,), F32, strict=False)
    assert np.isnan(r.a[0]) and r.a[1] == 0.0 and not np.signbit(r.a[1])
    assert not r.e.any()


def test_arg_positions_are_numpys_where_the_bounds_decide_them() -> None:
    nan = np.nan
    a = np.array([[1.0, 3.0, 3.0, -1.0],  # exact: the first of the ties
                  [1.0, 3.0, 2.0, nan],  # bounded with a NaN: the NaN, known
                  [1.0, 3.0, 2.5, 0.0],  # bounded, 3 +- 0.1 beyond 2.5 +- 0.1: known
                  [1.0, 3.0, 2.95, 0.0],  # bounded, overlapping: unknown
                  [-0.0, 0.0, -1.0, -2.0]], np.float32)  # exact signed zeros tie
    e = np.zeros(a.shape)
    e[1:4] = 0.1
    got = arg_positions(nx.MV(a, e, F32), (1,), True)
    assert got.a.tolist() == [1, 3, 1, 1, 0]
    assert got.e.tolist() == [0, 0, 0, np.inf, 0]
    low = arg_positions(nx.MV(a, np.zeros(a.shape), F32), (0, 1), False)
    assert int(low.a) == int(a.argmin()) and low.e == 0


def test_integer_floordiv_and_rem_follow_python() -> None:
    a = exact(np.array([-7, 7], np.int32), I32)
    b = exact(np.array([2, -2], np.int32), I32)
    assert nx.binary("floordiv", a, b).a.tolist() == [-4, -4]
    assert nx.binary("rem", a, b).a.tolist() == [1, -1]


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero() -> None:
    x = exact(np.array([2.7, -2.7, 300.0, -300.0, np.nan], np.float32), F32)
    assert nx.cast(x, I8).a.tolist() == [2, -2, 127, -128, 0]


def test_strict_mma_has_no_fused_multiply_add() -> None:
    a = exact(np.array([[1.0 + 2.0 ** -12]], np.float32), F32)
    b = exact(np.array([[1.0 - 2.0 ** -12]], np.float32), F32)
    c = exact(np.array([[-1.0]], np.float32), F32)
    r = mma_model(a, b, c, "exact", strict=True)
    # the product 1 - 2^-24 rounds to 1 - 2^-24 exactly in f32; c + p = -2^-24
    assert float(r.a[0, 0]) == float(np.float32(np.float32(a.a[0, 0] * b.a[0, 0]) - 1.0))
    assert not r.e.any()
    loose = mma_model(a, b, c, "exact", strict=False)
    assert loose.e[0, 0] > 0


def test_tf32_rounds_ties_away_from_zero() -> None:
    x = np.array([1.0 + 2.0 ** -11], np.float32)  # exactly half an ulp of tf32 above 1
    assert float(nx.tf32(x)[0]) == 1.0 + 2.0 ** -10


def test_comparison_of_bounded_values_is_unknown_near_the_decision() -> None:
    x = nx.MV(np.array([1.0], np.float32), np.array([1e-6]), F32)
    y = exact(np.array([1.0000001], np.float32), F32)
    assert np.isinf(nx.compare("lt", x, y).e[0])
    far = exact(np.array([2.0], np.float32), F32)
    assert nx.compare("lt", x, far).e[0] == 0


def test_elementwise_node_models_broadcast() -> None:
    from tilec.testing.fuzz.program import Env, Var

    env = Env(None, {}, {})  # type: ignore[arg-type]
    env.vars["a"] = exact(np.array([[1.0, 2.0]], np.float32), F32)
    env.vars["b"] = exact(np.array([[10.0], [20.0]], np.float32), F32)
    r = Bin("add", Var("a", (1, 2), F32), Var("b", (2, 1), F32), (2, 2), F32).model(env)
    assert r.a.tolist() == [[11.0, 12.0], [21.0, 22.0]]


def test_pow_follows_c99_special_cases() -> None:
    # numpy's power gives NaN and -0.0 here; C99 / IEEE 754 pow (the "f64 result" the docs
    # define transcendental functions by) gives +inf and +0.0
    x = exact(np.array([-np.inf, -0.0, 4.0, -8.0, -2.0], np.float32), F32)
    y = exact(np.array([0.5, 0.5, 0.5, 3.0, 0.5], np.float32), F32)
    r = nx.binary("pow", x, y)
    assert r.a[0] == np.inf and r.a[1] == 0.0 and not np.signbit(r.a[1])
    assert r.a[2] == 2.0 and r.a[3] == -512.0 and np.isnan(r.a[4])
    z = exact(np.array([0.0, -0.0, -0.0], np.float32), F32)
    p = exact(np.array([-1.0, -1.0, -2.0], np.float32), F32)
    assert nx.binary("pow", z, p).a.tolist() == [np.inf, -np.inf, np.inf]  # poles


def test_f64_fma_bound_covers_cancellation() -> None:
    # numpy has no fused f64 multiply-add: the model rounds twice and bounds the difference by
    # the product's magnitude, which under cancellation is far larger than the result's
    f64 = DTYPES["f64"]
    x = exact(np.array([1.0 + 2.0 ** -30]), f64)
    z = exact(np.array([-(1.0 + 2.0 ** -29)]), f64)
    r = nx.fma(x, x, z)
    fused = 2.0 ** -60  # (1 + 2^-30)^2 - (1 + 2^-29), exactly
    assert abs(float(r.a[0]) - fused) <= r.e[0]


def test_a_zero_product_of_a_value_that_may_be_zero_has_no_known_sign() -> None:
    # (a - b) * 0.0 where a - b cancels: -0.0 or +0.0 by the rounding of a - b (the GPU
    # campaign of seed 20261218 found the model claiming the sign)
    x = nx.MV(np.array([-1.5e-8, 2.0, -1.5e-8], np.float32), np.array([3e-8, 1e-6, 0.0]), F32)
    zero = exact(np.array([0.0, 0.0, 0.0], np.float32), F32)
    r = nx.binary("mul", x, zero)
    assert r.e[0] > 0 and r.e[0] < 1e-40                # either zero, nothing else
    assert r.e[1] == 0 and r.e[2] == 0                  # the sign is known: bit-exact
    assert np.signbit(r.a[2])
    # fma: a zero product of unknown sign decides the sum's sign only when z is -0.0
    for z, bounded in ((-0.0, True), (0.0, False), (1.0, False)):
        zz = exact(np.array([z], np.float32), F32)
        got = nx.fma(nx.MV(x.a[:1], x.e[:1], F32), exact(np.array([0.0], np.float32), F32), zz)
        assert (got.e[0] > 0) == bounded, z


# program 607 of the GPU campaign of seed 20261218, shrunk: its output Y0 is
# (fma(..) - full(0.1) @ X3..) * 0.0, where the difference cancels (the choices regenerate it;
# a 0 at index 118 keeps the first matrix product's layout plain, gen_matrix.LAYOUTS)
SEED_20261218_607 = [
    1, 4, 3, 0, 16, 15, 2, 28, 2, 9, 110, 8, 1, 2, 17, 45, 0, 13, 4, 3, 30, 8, 1, 1, 32, 5, 1,
    0, 9, 2, 1, 8, 2, 0, 0, 1, 1, 0, 2, 1, 134, 5, 2, 0, 9, 55, 13, 3, 2, 25, 5, 1, 0, 0, 1, 2,
    1, 6, 0, 5, 0, 0, 1, 7, 2, 1, 4, 2, 2, 2, 3, 27, 1, 0, 1, 24, 1, 1, 11, 0, 12, 2, 0, 0, 1,
    0, 1, 3, 12, 1, 0, 1, 1, 1, 2, 20, 3, 1, 7, 1, 10, 1, 1, 2, 0, 2, 1, 1, 0, 0, 9, 0, 1, 2,
    51, 3, 1, 9, 0, 8, 64, 11, 8, 11, 25, 0, 1, 24, 6, 2, 1, 0, 16, 2, 4, 10, 7, 0, 1, 0, 1, 1,
    20, 25, 2, 0, 1, 2, 5, 5, 2, 0, 0, 3, 1, 23, 12, 2, 0, 6, 1, 6, 3, 100, 2, 7, 0, 7, 1, 14,
    6, 0, 0, 0, 0, 0, 9, 0, 1, 13, 17, 2, 5, 0, 2, 5, 1, 0, 1, 14, 1, 9, 2, 1, 7, 3, 1, 50, 13,
    13, 7, 4, 2, 1, 1, 6, 1, 5, 4, 0, 13, 60, 12, 3, 88, 1, 1, 0, 1, 0, 1, 13, 1, 25, 18, 3, 0,
    20, 1, 1, 63, 11, 1, 1, 6, 80, 5, 2, 1, 0, 0, 0, 29, 3, 2, 0, 1, 8, 7, 1, 0, 3, 63, 30, 17,
    0, 9, 1, 11, 0, 1, 52, 16, 0, 38, 8, 28, 22, 0, 1, 31, 3, 2, 1, 1, 27, 0, 0, 2, 36, 18, 10,
    5, 8, 22, 2, 0, 8, 1, 1, 6, 3, 1, 3, 11, 0, 0, 0, 1, 1, 24, 19288, 2,
]
SEED_20261218_607_WEIGHTS = {"elementwise": 4, "loops": 3, "matrix": 3, "memory": 2,
                             "parallel": 2, "reduce": 3, "windows": 3}


def test_the_zero_sign_case_of_seed_20261218_passes_on_cpu() -> None:
    """The cpu target gives +0.0 where the reference gives -0.0 (a legal regrouping of the
    ``unordered_tree`` mma), as the GPU did; the model no longer claims the sign."""
    from tilec.testing.fuzz.repro import replay_program
    from tilec.testing.fuzz.runner import run_program

    prog = replay_program(SEED_20261218_607, SEED_20261218_607_WEIGHTS)
    res = run_program(prog, ["cpu"])
    assert {p: o.kind for p, o in res.outcomes.items()} == {"reference": "ok", "cpu": "ok"}


def test_tf32_products_allow_a_truncated_operand() -> None:
    """Outside strict_fold a TF32 operand may be truncated (the warpgroup instruction reads
    a shared operand so): the bound covers the product of a truncated A."""
    rng = np.random.default_rng(0)
    av = rng.standard_normal((4, 64)).astype(np.float32)
    bv = rng.standard_normal((64, 4)).astype(np.float32)
    a, b = exact(av, F32), exact(bv, F32)
    c = exact(np.zeros((4, 4), np.float32), F32)
    cut = (av.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    hw = cut.astype(np.float64) @ nx.tf32(bv).astype(np.float64)
    loose = mma_model(a, b, c, "tf32", strict=False)
    assert (np.abs(hw - loose.a) <= loose.e).all()
    strict = mma_model(a, b, c, "tf32", strict=True)
    assert not strict.e.any()  # strict_fold: rounded to nearest on every target
