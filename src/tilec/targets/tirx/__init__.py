"""The ``tirx:llvm``, ``tirx:cuda`` and ``tirx:metal`` targets: a bridge from TileIR to
Apache TVM's ``tvm.tirx``.

Modules: ``scalars`` (TileIR's scalar semantics as ``tvm.tirx`` expressions), ``values``
(the forms tiles and memories take while exporting), ``threads`` (which
``parallel`` runs on TVM's threads), ``gpu`` (the one-launch GPU form), ``exporter`` (the
walk that builds a PrimFunc through TVM's IR builder), ``ops`` (one translation per
opcode), ``cache`` (``tvm.compile`` for LLVM, once per PrimFunc), ``runtime`` (the callable
CPU kernel), ``device`` (the CUDA build and call, the Metal source) and ``backend``
(``make_backend``, the probes). TVM is an optional extra (``pip install 'tilec[tvm]'``);
nothing here imports it until a kernel is exported. ``docs/design/tirx.md`` describes the
mapping.
"""
