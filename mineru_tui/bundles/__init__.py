"""Core ML bundles of MinerU2.5: build (MIL builder, no torch), verify, load.

* :mod:`.build` — ``build_bundle(model, out, weights=...)``: checkpoint → ``vision.mlpackage`` +
  ``decoder.mlpackage`` (prefill / decode / embed sharing weights) + ``manifest.json``;
* :mod:`.manifest` — the manifest and the checks before a bundle is used;
* :mod:`.runtime` — the forward passes over a bundle (Core ML on macOS, the numpy evaluator
  elsewhere) plugged into the reader's ``Model``;
* :mod:`.evaluate` — numeric evaluation of MIL programs with coremltools' op implementations;
* :mod:`.verify` — bundle vs the numpy engine on the same request.

Importing this package is cheap; coremltools and numpy load in the submodules. See docs/coreml.md.
"""
