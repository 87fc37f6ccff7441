"""The OpenVINO engine whole: MinerU2.5 as OpenVINO models built from the checkpoint (opset13;
no torch, no optimum).

``vision.py`` and ``text.py`` build the graphs, ``ops.py`` their shared pieces (int8 weights per
output channel), ``runtime.py`` the forward passes the host's generation loop drives,
``bundle.py`` the saved IR bundles, ``verify.py`` their check against the numpy engine and
``engine.py`` the engine adapter (``--engine openvino``). See ``docs/openvino.md``.
"""
