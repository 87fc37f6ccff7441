"""The OpenVINO engine: MinerU2.5 on a CPU (or an Intel GPU / NPU) through OpenVINO.

It is the host's ``Model`` and engine (``engines/qwen2vl/``) — the same preprocessing, prompt,
M-RoPE, sampling knobs, streaming events, cancel and batch code as the numpy engine — with its two
forward passes run by OpenVINO models built from the checkpoint (this folder). Linear weights are int8 per output channel and
activations bf16 where the CPU has it (AMX / AVX-512-BF16), f32 elsewhere; ``precision=f32``
runs f32 weights and f32 arithmetic (the numpy engine's tokens).

Options (``EngineOptions.extra``): ``precision`` (default | f32 | int4: the decoder's layers
group-wise int4, faster decode, less exact), ``device`` (CPU; GPU and NPU
are OpenVINO's Intel devices, untested here), ``bundle`` (an IR bundle folder; default the cache
folder's bundle of the model and precision, built there on first use), ``max_batch``,
``decoder_activations`` (int8: the default, the decoder's activations quantized to int8 at its
int8 matmuls — faster decode; bf16: the device default, faster prefill; split: both, from two
compilations of the decoder, ≈ 0.5 GB more memory), ``vision_activations`` (auto: the default,
int8 on a CPU with VNNI and no AMX (or AMX kept from oneDNN by
``ONEDNN_MAX_CPU_ISA``) — the vision tower's activations quantized to int8 at its
int8-weight matmuls —, bf16 elsewhere; int8 or bf16 force one).
OpenVINO releases the GIL while it computes, so the engine runs in the caller's process.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mineru_tui.engines.base import EngineError, EngineOptions
from mineru_tui.engines.qwen2vl.engine import HostEngine, model_spec

DEFAULT_MAX_BATCH = 8
DEVICES = ("CPU", "GPU", "NPU")


def installed() -> bool:
    """True when the ``openvino`` package can be imported (without importing it)."""
    return importlib.util.find_spec("openvino") is not None


class OpenVINOEngine(HostEngine):
    """The host's request handling over a ``Model`` whose forward passes run in OpenVINO."""

    name = "openvino"


def open_engine(options: EngineOptions) -> OpenVINOEngine:
    """The OpenVINO engine for ``options`` (EngineError with one line when it cannot run)."""
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.console import one_line
    from mineru_tui.engines.errors import ModelError

    if not installed():
        raise EngineError("the openvino engine needs the openvino package (pip install openvino); "
                          "or use --engine numpy")
    from mineru_tui.engines.openvino.runtime import PRECISIONS, VISION_ACTIVATIONS

    extra = dict(options.extra)
    precision = extra.get("precision", "default")
    if precision not in PRECISIONS:
        raise EngineError(f"openvino engine: unknown precision {precision!r} ({', '.join(PRECISIONS)})")
    device = extra.get("device", "CPU").upper()
    if device.split(".")[0] not in DEVICES:
        raise EngineError(f"openvino engine: unknown device {device!r} (CPU, GPU or NPU)")
    try:
        max_batch = int(extra.get("max_batch", DEFAULT_MAX_BATCH))
    except ValueError:
        raise EngineError(f"max_batch must be a whole number, got {extra['max_batch']!r}") from None
    acts = extra.get("decoder_activations", "int8")
    if acts not in ("int8", "bf16", "split"):
        raise EngineError(f"openvino engine: unknown decoder_activations {acts!r} (int8, bf16 or split)")
    vision_acts = extra.get("vision_activations", "auto")
    if vision_acts not in VISION_ACTIVATIONS:
        raise EngineError(f"openvino engine: unknown vision_activations {vision_acts!r} (auto, int8 or bf16)")
    spec = model_spec(options)
    bundle = Path(extra["bundle"]).expanduser() if extra.get("bundle") else None
    try:
        from mineru_tui.engines.openvino.bundle import open_openvino_model

        # no progress lines: the watch app owns the terminal while engines open
        model = open_openvino_model(spec, bundle=bundle, precision=precision, device=device, save=True,
                                    decoder_activations=acts, vision_activations=vision_acts)
    except (BundleError, ModelError) as e:
        raise EngineError(one_line(str(e))) from None
    except RuntimeError as e:  # OpenVINO's own errors (a device that is not there, a bad IR)
        raise EngineError(f"openvino engine: {one_line(str(e)).splitlines()[0][:300]}") from None
    return OpenVINOEngine(model, spec, max_batch)
