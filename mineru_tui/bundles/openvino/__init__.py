"""MinerU2.5 as OpenVINO models built from the checkpoint (opset13; no torch, no optimum).

``vision.py`` and ``text.py`` build the graphs, ``ops.py`` their shared pieces (int8 weights per
output channel), ``runtime.py`` the forward passes the numpy engine's host loop drives,
``bundle.py`` the saved IR bundles and ``verify.py`` their check against the numpy engine.
See ``docs/openvino.md``.
"""
