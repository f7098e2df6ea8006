"""Testing tools built on the public API only: the differential fuzzer (``tilec.testing.fuzz``)
and the machine facts that result records name (``tilec.testing.host``).

Nothing in the compiler imports this package.
"""
