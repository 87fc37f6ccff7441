"""The Core ML engine whole: bundles of MinerU2.5 built with MIL (no torch), verified, run.

* :mod:`.build` — ``build_bundle(model, out, weights=...)``: checkpoint → ``vision.mlpackage`` +
  ``decoder.mlpackage`` (prefill / decode / embed sharing weights) + ``manifest.json``;
  :mod:`.mil_ops`, :mod:`.mil_text`, :mod:`.mil_vision` — the MIL programs;
* :mod:`.runtime` — the forward passes over a bundle (Core ML on macOS, the numpy evaluator
  elsewhere) plugged into the host's ``Model``; :mod:`.evaluate` — numeric evaluation of MIL
  programs with coremltools' op implementations;
* :mod:`.verify` — bundle vs the numpy engine on the same request;
* :mod:`.engine` — the engine adapter (``--engine coreml``).

Manifests, locations and errors are shared with OpenVINO (``engines/bundle_files/``).
Importing this package is cheap; coremltools and numpy load in the submodules. See docs/coreml.md.
"""
