"""``kernel_checks``: which checks the host evaluates, how, and the shared error."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ir_samples
import tilec as tc
import tilec.ir as ir
from tilec.targets.kernel_checks import (
    CheckInfo,
    HostChecks,
    KernelAssertionError,
    decode_bits,
    encode_bits,
    format_value,
    host_check_ops,
)


def _checked() -> ir.Function:
    fn = ir_samples.sample_checks().lookup("checked")
    assert fn is not None
    return fn


def test_host_checks_are_the_top_level_checks_on_parameters() -> None:
    fn = _checked()
    phases = host_check_ops(fn)
    assert [op.attr("message") for op in phases["before"]] == ["N <= n"]
    assert phases["after"] == []
    device = [op for op in fn.walk() if op.name == "check" and op.parent is not fn.entry]
    assert [op.attr("message") for op in device] == ["the program starts inside x"]


def test_host_checks_evaluate_with_the_reference_numerics() -> None:
    checks = HostChecks(_checked())
    checks.run([None, None, np.int32(10), np.int64(10)])  # N <= n holds
    with pytest.raises(KernelAssertionError) as info:
        checks.run([None, None, 9, 10])
    e = info.value
    assert str(e).startswith("checked.py:")
    assert e.message == "N <= n" and e.values == (("N", "10"), ("n", "9"))
    assert "assertion failed in @checked: N <= n (N = 10, n = 9)" in str(e)


@tc.kernel
def after_nest(X, Y, n):
    M = X.shape[0]
    for p in tc.parallel(1):
        Y.tile((p,), (4,)).store(X.tile((p,), (4,), fill=0.0))
    assert n // M >= 0


def test_a_check_after_a_nest_is_a_host_check_after_it() -> None:
    v = tc.array((None,), np.float32)
    fn = tc.compile(after_nest, v, v, tc.int32, target="reference").module.lookup("after_nest")
    phases = host_check_ops(fn)
    assert phases["before"] == [] and len(phases["after"]) == 1
    checks = HostChecks(fn)
    checks.run([None, None, 3, 0, 0])  # nothing before the nest
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        checks.run([None, None, 3, 0, 0], "after")
    with pytest.raises(KernelAssertionError, match=r"n // M >= 0 \(n // M = -1\)"):
        checks.run([None, None, -3, 4, 4], "after")


@pytest.mark.parametrize("t,value", [(ir.f32, -0.25), (ir.f64, math.pi), (ir.f16, 1.5),
                                     (ir.index, -(2**63)), (ir.i32, 7), (ir.i1, True),
                                     (ir.f32, float("inf"))])
def test_values_survive_the_64_bit_record(t: ir.ScalarType, value: float) -> None:
    assert format_value(decode_bits(encode_bits(value, t), t), t) == format_value(value, t)


def test_values_are_printed_as_their_type() -> None:
    assert format_value(np.float32(0.1), ir.f32) == "0.1"
    assert format_value(np.int64(-3), ir.index) == "-3"
    assert format_value(np.bool_(False), ir.i1) == "false"


def test_the_error_names_the_assert_and_survives_pickling() -> None:
    import pickle

    loc = ir.Location("k.py", 12, 4)
    info = CheckInfo(1, loc, "K == B.shape[0]", ("K", "B.shape[0]"), (ir.index, ir.index))
    e = info.failure("mm", [50, 40])
    assert isinstance(e, AssertionError)
    assert str(e).startswith("k.py:12:5: error: assertion failed in @mm: K == B.shape[0] "
                             "(K = 50, B.shape[0] = 40)")
    again = pickle.loads(pickle.dumps(e))
    assert str(again) == str(e) and again.values == e.values
