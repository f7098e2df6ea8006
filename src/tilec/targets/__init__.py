"""Backends: one package per target (``reference``, ``c``, ``cuda``, ...), loaded lazily.

Nothing is imported here, so importing ``tilec`` never pulls in a toolchain;
``tilec.runtime.targets`` names each backend's module and factory.
"""
