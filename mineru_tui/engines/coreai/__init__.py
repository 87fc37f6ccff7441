"""Core AI (Apple's successor to Core ML for neural networks, macOS 27+): bundles and the engine.

* :mod:`.authoring` — ``coreai-core`` imported on demand (the optional extra ``coreai``);
* :mod:`.ops`, :mod:`.text`, :mod:`.vision` — the decoder and vision tower written with
  ``coreai.authoring`` straight from the checkpoint's weights (no torch);
* :mod:`.build` — ``mineru-tui bundle build --target coreai``; :mod:`.manifest` — its checks;
* :mod:`.runner` — functions of an ``.aimodel`` run by ``coreai.runtime`` (the OS framework on
  macOS 27, the wheel's local runtime on Linux), plugged into the Core ML bundle's host side;
* :mod:`.verify` — ``bundle verify`` for Core AI bundles; :mod:`.engine` — ``--engine coreai``;
* :mod:`.port` — the folder layout of the published MinerU2.5-Pro Core AI port.

Importing this package is cheap: coreai-core and numpy load in the submodules. See docs/coreai.md.
"""
