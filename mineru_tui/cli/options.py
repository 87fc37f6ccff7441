"""The options several commands share (``parse``, ``watch``, ``serve``, ``bundle``, ``generate``).

Each is defined once here: its flag, its type and its help. A command module takes them as
defaults of its parameters (``model: Optional[str] = model_option()``). Only Typer and the
engine names (which import nothing) are imported.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV


class Format(str, Enum):
    md = "md"
    json = "json"


class MineruFormat(str, Enum):
    """Which MinerU version's output set ``-o`` writes (their file names do not collide)."""
    v3 = "3"
    v4 = "4"
    both = "both"


class Precision(str, Enum):
    """The openvino engine's precisions (``bundle build --target openvino`` builds one of each)."""

    default = "default"
    f32 = "f32"
    int4 = "int4"


PRECISION_CHOICES = "|".join(p.value for p in Precision)


class EngineName(str, Enum):
    auto = "auto"
    numpy = "numpy"
    coreml = "coreml"
    coreai = "coreai"
    openvino = "openvino"
    http = "http"
    llama_cpp = "llama-cpp"


class Mode(str, Enum):
    two_stage = "two-stage"
    text = "text"


class Effort(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"


def engine_option(default: EngineName = EngineName.auto, *flags: str, says_which: str = "-v says which"):
    """``--engine``: what runs the model. ``says_which`` names where the command tells
    what auto picked ("" for a command without ``-v``)."""
    which = f"; {says_which}" if says_which else ""
    return typer.Option(default, "--engine", *flags,
                        help="What runs the MinerU2.5 model for PDFs and images "
                             "(auto: Core AI on macOS 27+ or Core ML on a Mac with a bundle, "
                             f"else OpenVINO when installed, else numpy{which}).")


def model_option():
    """``--model`` / ``-m`` (env ``MINERU_TUI_MODEL``): a checkpoint folder or a hub repo id."""
    return typer.Option(None, "--model", "-m", envvar=MODEL_ENV, metavar="DIR|REPO",
                        help=f"Checkpoint directory or Hugging Face repo id (env {MODEL_ENV}; "
                             f"default {DEFAULT_MODEL}).")


def mode_option():
    """``--mode``: MinerU's two stages, or one plain-text pass per page."""
    return typer.Option(Mode.two_stage, "--mode",
                        help="two-stage: layout, then every block read (MinerU's way); "
                             "text: one plain-text pass per page, faster.")


def effort_option():
    """``--effort``: how much of a PDF the model reads."""
    return typer.Option(Effort.medium, "--effort",
                        help="PDFs: medium uses a page's own text layer for text blocks when it "
                             "is usable; high has the model read every block; low reads only the "
                             "text layer (no model).")


def image_analysis_option():
    """``--image-analysis``."""
    return typer.Option(False, "--image-analysis",
                        help="Also describe pictures and charts with the model.")


def max_new_tokens_option():
    """``--max-new-tokens``: a cap on every model answer."""
    return typer.Option(None, "--max-new-tokens", metavar="N",
                        help="Cap every model answer at N tokens (quick trials; env "
                             "MINERU_TUI_MAX_NEW_TOKENS).")


def server_url_option():
    """``--server-url``, as ``parse`` and ``watch`` take it."""
    return typer.Option([], "--server-url", metavar="URL[,URL...]",
                        help="OpenAI-compatible servers for --engine http (vLLM, llama-server, "
                             "mineru-tui serve); implies it.")


def concurrency_option():
    """``--concurrency``, as ``parse`` and ``watch`` take it."""
    return typer.Option(0, "--concurrency", metavar="N",
                        help="Requests in flight per server (http: 8; llama-cpp: its 4 slots).",
                        show_default=False)


def device_option():
    """``--device``, as ``parse`` and ``watch`` take it (the openvino engine's device)."""
    return typer.Option(None, "--device", metavar="CPU|GPU|NPU",
                        help="OpenVINO device for --engine openvino (default CPU; GPU and NPU "
                             "are Intel's, untested by this project); for --engine coreai the "
                             "preferred compute unit on macOS 27 (NPU: the Neural Engine).")


def precision_option():
    """``--precision``, as ``parse`` and ``watch`` take it (the openvino engine's arithmetic)."""
    return typer.Option(None, "--precision", metavar=PRECISION_CHOICES,
                        help="--engine openvino: default (int8 weights, bf16 where the CPU has "
                             "it), f32 (the numpy engine's tokens, slower) or int4 (the decoder's "
                             "layers in int4: faster decode, less exact).")


def bundle_option():
    """``--bundle``: the compiled bundle folder an engine runs (coreml, coreai)."""
    return typer.Option(None, "--bundle", envvar="MINERU_TUI_BUNDLE", metavar="DIR",
                        help="Bundle folder for --engine coreml / coreai (default: the model's "
                             "bundle in the cache folder); coreai also takes the MinerU2.5-Pro "
                             "Core AI port's folder.")


def check_max_new_tokens(value: Optional[int], flag: str = "--max-new-tokens") -> None:
    """A usage error (exit 2) for a cap below 1."""
    if value is not None and value < 1:
        raise typer.BadParameter("must be at least 1", param_hint=flag)


def engine_fields(engine: EngineName, model: Optional[str], server_url: List[str],
                  concurrency: int, device: Optional[str] = None,
                  precision: Optional[str] = None, bundle: Optional[Path] = None) -> dict:
    """The ``EngineOptions`` fields the engine options give (``parse`` and ``watch`` alike)."""
    if precision is not None and precision not in {p.value for p in Precision}:
        raise typer.BadParameter(f"choose one of {', '.join(p.value for p in Precision)}", param_hint="--precision")
    if device is not None and device.upper().split(".")[0] not in ("CPU", "GPU", "NPU"):
        raise typer.BadParameter("choose CPU, GPU or NPU", param_hint="--device")
    extra = tuple((k, v) for k, v in (("device", device and device.upper()), ("precision", precision),
                                      ("bundle", bundle and str(bundle))) if v)
    return {"engine": engine.value, "model": model, "server_urls": tuple(server_url),
            "concurrency": max(concurrency, 0), "extra": extra}


def reading_fields(mode: Mode, effort: Effort, image_analysis: bool,
                   max_new_tokens: Optional[int]) -> dict:
    """The ``ConvertOptions`` fields the reading options give (``parse`` and ``watch`` alike)."""
    return {"mode": mode.value, "effort": effort.value, "image_analysis": image_analysis,
            "extra": {"max_new_tokens": max_new_tokens} if max_new_tokens else {}}


def engine_error_line(error: str, model: Optional[str] = None, server: bool = False) -> str:
    """The one ``error:`` line of a command whose engine did not open: when the model is only
    not downloaded yet, what ``parse`` says (its size and ``mineru-tui model fetch``) instead
    of the hub's connection error; any other failure (a wrong folder, a server, a runtime)
    in the engine's own words."""
    from mineru_tui.model_needed import is_cached, reason_and_hint
    from mineru_tui.model_store import model_spec

    spec = model_spec(model)
    if server or Path(spec).expanduser().exists() or is_cached(spec):
        return f"error: {error}"  # the model is here: the engine's words say what is wrong
    reason, hint = reason_and_hint(error, kind="image", text_layer=False, model=spec)
    return f"error: {reason}: {hint}"
