"""Testing tools built on the public API only: the differential fuzzer (``tilec.testing.fuzz``).

Nothing in the compiler imports this package.
"""
