"""OpenVINO bundles: the two models saved as OpenVINO IR, built once per checkpoint.

    <cache>/bundles/<model>.openvino-int8/    (``mineru-tui bundle build --target openvino``)
        vision.xml / vision.bin      the vision tower + merger
        decoder.xml / decoder.bin    the decoder (prefill and decode, KV cache on the host)
        manifest.json                what it was built from (checkpoint identity), sizes, sha256

``--precision f32`` builds ``.openvino-f32`` (f32 weights: the exact mode). Loading compiles the
IR with OpenVINO's compiled-model cache on (``<cache>/openvino/``), so only the first load of a
bundle pays for compilation. Without a bundle the engine builds the same graphs in memory from
the checkpoint (slower start; nothing written).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from mineru_tui.engines.bundle_files.building import building, peak_rss_gib
from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.locations import cache_root, default_bundle_dir
from mineru_tui.engines.bundle_files.manifest import check_built_for, checkpoint_identity, file_digest, read_manifest_json, write_manifest
from .runtime import (OVTextForward, OVVision, compile_config, core, release_mapped_files, vision_activations_for,
                      vision_weights_for, weights_for)

FORMAT = "mineru-tui-openvino-bundle"
FORMAT_VERSION = 3  # 2: vision cos/sin in the padded batch order (RoPE fusion); 3: the decoder's one mask input, the vision tower's unpadded, unmasked part
MANIFEST = "manifest.json"
FILES = ("vision.xml", "vision.bin", "decoder.xml", "decoder.bin")


def openvino_bundle_dir(model: str | os.PathLike[str] | None, precision: str = "default") -> Path:
    """The cache folder of a model's OpenVINO bundle, beside its Core ML bundle."""
    base = default_bundle_dir(model)
    return base.with_name(f"{base.name}.openvino-{weights_for(precision)}")


def compiled_cache_dir() -> Path:
    """OpenVINO's compiled-model cache (CACHE_DIR): one folder per compile setting below it."""
    return cache_root() / "openvino"


def with_cache_dir(config: dict[str, str]) -> dict[str, str]:
    """``config`` plus a CACHE_DIR of its own: OpenVINO 2026.4's cache key leaves out the
    precision hint, so a model compiled with ``INFERENCE_PRECISION_HINT=f32`` (int8 activations)
    and then with the device default would load the first blob for the second — NaNs in the
    vision tower (measured on the tiny checkpoint). A folder per hint keeps the blobs apart."""
    name = "hint-" + config["INFERENCE_PRECISION_HINT"] if "INFERENCE_PRECISION_HINT" in config else "device-default"
    return {**config, "CACHE_DIR": str(compiled_cache_dir() / name)}


@dataclass
class OVManifest:
    model: str
    checkpoint_id: str
    weights: str  # int8 | f32 (the decoder's linear weights; names the precision)
    vision_weights: str  # int8 | f16 | f32 (the vision tower's)
    hidden_size: int
    layers: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    vision_out: int
    openvino_version: str
    files: dict[str, list] = field(default_factory=dict)  # name -> [size, sha256]
    build: dict[str, object] = field(default_factory=dict)
    format: str = FORMAT
    format_version: int = FORMAT_VERSION

    def write(self, bundle: Path) -> None:
        write_manifest(bundle, asdict(self))


def is_openvino_bundle(bundle: Path) -> bool:
    """Whether ``bundle`` holds an OpenVINO manifest; a damaged or hostile one (wrong shape,
    nested past the parser's depth) is not, and the Core ML path then refuses it in one line."""
    try:
        return json.loads((Path(bundle) / MANIFEST).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def read_manifest(bundle: Path) -> OVManifest:
    bundle = Path(bundle)
    raw = read_manifest_json(bundle, FORMAT, FORMAT_VERSION, kind="OpenVINO",
                             build="mineru-tui bundle build --target openvino")
    try:
        return OVManifest(**raw)
    except TypeError as e:
        raise BundleError(f"{bundle / MANIFEST}: malformed manifest ({e}); rebuild the bundle") from None


def check_openvino_bundle(bundle: Path, checkpoint=None, *, full: bool = False) -> OVManifest:
    """The manifest of a usable bundle, else BundleError (one line): files present with their
    sizes (and sha256 with ``full``), built from ``checkpoint`` (identity and shapes)."""
    bundle = Path(bundle)
    man = read_manifest(bundle)
    for rel in FILES:
        if rel not in man.files:
            raise BundleError(f"{bundle}: the manifest does not list {rel} (an interrupted build?); rebuild the bundle")
        size, digest = man.files[rel]
        p = bundle / rel
        if not p.is_file():
            raise BundleError(f"{bundle}: damaged bundle, {rel} is missing; rebuild it with `mineru-tui bundle build --target openvino`")
        if p.stat().st_size != size:
            raise BundleError(f"{bundle}: damaged bundle, {rel} has {p.stat().st_size} bytes, the manifest says {size}; rebuild it")
        if full and file_digest(p) != digest:
            raise BundleError(f"{bundle}: damaged bundle, {rel} does not match its checksum; rebuild it")
    if checkpoint is not None:
        check_built_for(bundle, man, checkpoint, "mineru-tui bundle build --target openvino")
    return man


def build_openvino_bundle(model: str | None, out: Path, *, precision: str = "default", progress=None) -> OVManifest:
    """Build both models from the checkpoint and save them as IR into ``out`` (written to a
    temporary sibling, renamed at the end). Returns the manifest."""
    import openvino as ov

    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model

    from .text import build_text
    from .vision import build_vision

    say = progress or (lambda s: None)
    wformat, vformat = weights_for(precision), vision_weights_for(precision)
    t0 = time.perf_counter()
    model_dir = resolve_model(model)
    ck = load_checkpoint(model_dir)
    out = Path(out)
    with building(out) as tmp:
        times = {}
        for name, fmt, build in (("vision", vformat, lambda: build_vision(ck.weights, ck.config.vision, vformat)),
                                 ("decoder", wformat, lambda: build_text(ck.weights, ck.config.text, wformat))):
            t = time.perf_counter()
            say(f"{name}: building the graph ({fmt} weights)")
            graph = build()
            ov.save_model(graph, str(tmp / f"{name}.xml"), compress_to_fp16=False)
            del graph
            times[f"{name}_s"] = round(time.perf_counter() - t, 1)
            say(f"{name}: saved in {times[f'{name}_s']} s (peak memory {peak_rss_gib():.1f} GiB)")
        t, v = ck.config.text, ck.config.vision
        man = OVManifest(
            model=str(model or model_dir), checkpoint_id=checkpoint_identity(ck), weights=wformat, vision_weights=vformat,
            hidden_size=t.hidden_size, layers=t.num_hidden_layers, kv_heads=t.num_key_value_heads,
            head_dim=t.head_dim, vocab_size=t.vocab_size, vision_out=v.hidden_size,
            openvino_version=ov.get_version(),
            files={rel: [(tmp / rel).stat().st_size, file_digest(tmp / rel)] for rel in FILES},
            build={**times, "total_s": round(time.perf_counter() - t0, 1), "peak_rss_gib": round(peak_rss_gib(), 2)},
        )  # fmt: skip
        man.write(tmp)
    say(f"bundle written: {out} ({time.perf_counter() - t0:.0f} s)")
    return man


def _cached_bundle(model, ck, precision: str, save: bool, say) -> Path | None:
    """The cache folder's usable bundle for the model, built there first when ``save``."""
    cached = openvino_bundle_dir(model, precision)
    try:
        check_openvino_bundle(cached, ck)
        return cached
    except BundleError:
        if not save:
            return None
    try:
        say(f"openvino: building the bundle once into {cached}")
        build_openvino_bundle(model, cached, precision=precision)
        check_openvino_bundle(cached, ck)
        return cached
    except (OSError, BundleError):  # a read-only cache, a build racing another process
        return None


def open_openvino_model(model: str | None, *, bundle: Path | None = None, precision: str = "default",
                        device: str = "CPU", full_check: bool = False, save: bool = False, progress=None,
                        decoder_activations: str = "int8", vision_activations: str = "auto"):
    """A ``reader``-style ``Model`` (numpy engine host side) whose forward passes run in OpenVINO.

    ``bundle``: an IR bundle to load (checked against the checkpoint); None: the cache folder's
    bundle for this model and precision when it is usable, else — with ``save`` — one is built
    there first (once per checkpoint; a stale one is replaced), else the graphs are built in
    memory. ``decoder_activations``, ``vision_activations`` (auto: int8 on a CPU with VNNI and no
    AMX, else bf16): see ``runtime.compile_config``.
    """
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model
    from mineru_tui.engines.qwen2vl.model import Model
    from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer

    say = progress or (lambda s: None)
    model_dir = resolve_model(model)
    ck = load_checkpoint(model_dir)
    wformat = weights_for(precision)
    if bundle is None:
        bundle = _cached_bundle(model, ck, precision, save, say)
    vision_acts = vision_activations_for(vision_activations, device)
    config = compile_config(precision, device, vision_activations=vision_acts)
    text_config = compile_config(precision, device, "decoder", decoder_activations)
    # "split": prefill chunks in a bf16 compilation of the same decoder (only where it differs)
    prefill_config = compile_config(precision, device, "decoder", "bf16")
    split = decoder_activations == "split" and prefill_config != text_config
    prefill_c = None
    c = core()
    config, text_config, prefill_config = (with_cache_dir(x) for x in (config, text_config, prefill_config))
    if bundle is not None:
        man = check_openvino_bundle(bundle, ck, full=full_check)
        if man.weights != wformat:
            raise BundleError(f"{bundle}: an {man.weights} bundle, precision {precision} needs {wformat} weights; "
                              f"build one with `mineru-tui bundle build --target openvino --precision {precision}`")
        vision_c = c.compile_model(str(Path(bundle) / "vision.xml"), device, config)
        text_c = c.compile_model(str(Path(bundle) / "decoder.xml"), device, text_config)
        if split:
            prefill_c = c.compile_model(str(Path(bundle) / "decoder.xml"), device, prefill_config)
    else:
        from .text import build_text
        from .vision import build_vision

        say(f"openvino: no bundle for this model; building the graphs in memory ({wformat} weights) — "
            f"`mineru-tui bundle build --target openvino` makes later starts fast")
        graph = build_text(ck.weights, ck.config.text, wformat)
        text_c = c.compile_model(graph, device, text_config)
        if split:
            prefill_c = c.compile_model(graph, device, prefill_config)
        del graph
        vision_c = c.compile_model(build_vision(ck.weights, ck.config.vision, vision_weights_for(precision)),
                                   device, config)
    embed = np.asarray(ck.weights["model.embed_tokens.weight"])
    vision, text = OVVision(vision_c, ck.config.vision), OVTextForward(text_c, ck.config.text, embed, prefill_c)
    vision.activations = "f32" if precision == "f32" else vision_acts  # what ran (benchmarks record it)
    if bundle is not None:  # one model at a time: its first inference repacks the weights
        mapped = [compiled_cache_dir(), Path(bundle)]
        warm_up_vision(vision)
        release_mapped_files(mapped)
        warm_up_text(text)
        release_mapped_files(mapped)
    return Model(ck, Tokenizer.from_dir(model_dir), vision=vision, text=text)


def warm_up_vision(vision: OVVision) -> None:
    """One 2×2-patch image through the vision model (its weights are repacked on first use)."""
    m = vision.cfg.spatial_merge_size
    vision(np.zeros((m * m, vision.cfg.patch_dim), np.float32), [(1, m, m)])


def warm_up_text(text: OVTextForward) -> None:
    """A two-token prefill chunk and a one-token decode step over an empty cache."""
    c = text.config
    cache = text.new_cache(1, 3)
    for S, pos in ((2, 0), (1, 2)):
        text.step(np.zeros((1, S, c.hidden_size), np.float32), np.ones((1, S, c.head_dim), np.float32),
                  np.zeros((1, S, c.head_dim), np.float32), np.zeros((1, S, pos + S), np.float32), pos, cache)
