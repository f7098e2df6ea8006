"""The ``tirx:llvm`` target: a bridge from TileIR to Apache TVM's ``tvm.tirx``.

Modules: ``scalars`` (TileIR's scalar semantics as ``tvm.tirx`` expressions), ``values``
(the forms tiles and memories take while exporting), ``threads`` (which
``parallel`` runs on TVM's threads), ``exporter`` (the walk that builds a
PrimFunc through TVM's IR builder), ``ops`` (one translation per opcode), ``runtime``
(``tvm.compile`` for LLVM and the callable kernel) and ``backend`` (``make_backend``,
``probe``). TVM is an optional extra (``pip install 'tilec[tvm]'``); nothing here imports
it until a kernel is exported. ``docs/design/tirx.md`` describes the mapping.
"""
