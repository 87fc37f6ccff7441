"""Read and run bundles in the MinerU2.5-Pro Core AI port's folder layout (``--engine coreai
--bundle DIR``), so a Mac user with the port's download needs no conversion.

Layout and I/O contract: :mod:`.port_build` (which writes the same layout for tests). The
port's decoder takes token ids and positions and does the embedding and M-RoPE itself, where the
shared host hands a decoder embeddings and cos/sin. The host side stays the shared one anyway
(prompt, sampling knobs, streaming, cancel, continuous batching): :class:`PortText` and
:class:`PortVision` speak the host's interface with *carrier rows* — an embedding row whose
first value is the token id (an image row: vocab_size + slot, and the image's key second) —
and translate each call into the port's inputs (``input_ids``, the ``position_ids`` ramp,
``image_embeds``, ``rope_shift_start`` / ``rope_shift_amount``) and per-sequence states.

Images are fitted to the port's fixed grids before preprocessing (:class:`PortModel`): layout
requests stretched to 1036×1036, every other image letterboxed (aspect kept, white padding,
centred) into 672×896. The checkpoint (``--model``) still supplies the config and tokenizer;
its weights are memory-mapped and not read.
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
from pathlib import Path

import numpy as np

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.coreml.runtime import StateCache
from mineru_tui.engines.qwen2vl.preprocess import each_image
from .port_build import GRIDS, PREFILL, TEXT_ONLY_START

LAYOUT_PROMPT = "Layout Detection"
PIXELS_PER_CELL = 28  # one merged token: 2×2 patches of 14 px
DECODER_INPUTS = ("input_ids", "position_ids", "image_embeds", "rope_shift_start", "rope_shift_amount")
KEEP_IMAGES = 64  # image embeds waiting for their sequence's prefill (more than any batch holds)


def is_port_layout(path: Path) -> bool:
    """Whether ``path`` looks like the port's bundle folder (``decoder/`` with metadata, ``vision/``)."""
    path = Path(path)
    return (path / "decoder" / "metadata.json").is_file() and (path / "vision").is_dir()


def _asset(folder: Path) -> Path:
    """The ``.aimodel`` a port folder's ``metadata.json`` names (``assets.main``)."""
    try:
        meta = json.loads((folder / "metadata.json").read_text())
        name = meta["assets"]["main"]
    except (OSError, ValueError, KeyError, TypeError):
        raise BundleError(f"{folder}: no readable metadata.json naming its asset (assets.main)") from None
    path = folder / str(name)
    if not isinstance(name, str) or "/" in name or not path.is_dir():
        raise BundleError(f"{folder}: the asset {name!r} named by metadata.json is missing")
    return path


def _max_context(folder: Path, default: int = 4096) -> int:
    try:
        return int(json.loads((folder / "metadata.json").read_text())["language"]["max_context_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def load_runner(folder: Path, functions: list[str], preference: str):
    """A runner for a port folder's model. On macOS 27 its ahead-of-time compiled
    ``<name>.<arch>.aimodelc`` files are tried first (the port made them with ``xcrun coreai-build
    --expect-frequent-reshapes`` because a raw load of its dynamic decoder wedged; one loads only
    on its own Mac architecture and raises elsewhere), then the ``.aimodel`` it names."""
    from .runner import CoreAIRunner, os_framework

    asset = _asset(folder)
    if os_framework():
        for compiled in sorted(folder.glob("*.aimodelc")):
            try:
                return CoreAIRunner(compiled, functions, preference=preference)
            except (RuntimeError, BundleError):  # another Mac's architecture
                continue
    return CoreAIRunner(asset, functions, preference=preference)


class _Grid:
    """One of the port's grids: its vision and decoder runners, merged rows × cols."""

    def __init__(self, base: Path, rows: int, cols: int, preference: str):
        self.rows, self.cols, self.n = rows, cols, rows * cols
        self.vision = load_runner(base / "vision", ["main"], preference)
        self.decoder = load_runner(base / "decoder", ["main", "prefill"], preference)
        self.max_context = _max_context(base / "decoder")
        vdesc = self.vision.desc["main"]
        self.patches_input = vdesc.input_names[0]  # "patches" in the port's export; taken as it is named
        want, got = self.n * 4, vdesc.input_descriptor(self.patches_input).shape[0]
        if got != want:
            raise BundleError(f"{base / 'vision'}: takes {got} patches, the {rows}x{cols} grid needs {want}")
        missing = [n for n in DECODER_INPUTS if n not in self.decoder.desc["main"].input_names]
        if missing:
            raise BundleError(f"{base / 'decoder'}: not the port's decoder (no input {missing[0]!r}; it has "
                              f"{', '.join(self.decoder.desc['main'].input_names)})")


class _Row:
    """One sequence's state: the two cache arrays, its image and where it starts."""

    def __init__(self, arrays: dict):
        self.arrays = arrays
        self.grid: _Grid | None = None
        self.image: np.ndarray | None = None
        self.image_start = TEXT_ONLY_START


class PortVision:
    """``VisionTower``-compatible: each image (already at a port grid) runs in its grid's vision
    function; the host gets carrier rows (``vocab + slot``, the image's key) and the embeddings
    wait in :attr:`images` for the decoder."""

    def __init__(self, grids: list[_Grid], cfg, vocab_size: int, hidden: int):
        self.grids, self.cfg, self.vocab, self.hidden = grids, cfg, vocab_size, hidden
        self.images: dict[int, tuple[_Grid, np.ndarray]] = {}
        self._keys = itertools.count(1)
        self._lock = threading.Lock()

    def __call__(self, pixel_values_NK, grid_thws, check=None, capture=None) -> np.ndarray:
        m = self.cfg.spatial_merge_size
        out = []
        for (t, h, w), px in each_image(pixel_values_NK, grid_thws, check):
            grid = next((gr for gr in self.grids if (t, h // m, w // m) == (1, gr.rows, gr.cols)), None)
            if grid is None:
                raise BundleError(f"the port's bundles read {', '.join(f'{g.cols * 28}x{g.rows * 28}' for g in self.grids)}"
                                  f" images; this one is {w * 14}x{h * 14}")
            out_name = grid.vision.desc["main"].output_names[0]
            emb = np.asarray(grid.vision.predict("main", {grid.patches_input: px})[out_name], np.float32)
            with self._lock:
                key = next(self._keys)
                self.images[key] = (grid, emb)
                while len(self.images) > KEEP_IMAGES:  # a cancelled request never claims its image
                    self.images.pop(next(iter(self.images)))
            rows = np.zeros((grid.n, self.hidden), np.float32)
            rows[:, 0] = self.vocab + np.arange(grid.n)
            rows[:, 1] = key
            out.append(rows)
        return np.concatenate(out, axis=0)


class PortText:
    """``TextForward`` over the port's decoder (see the module docstring): ``prefill`` for
    64-token chunks, ``main`` per token, a state per sequence."""

    def __init__(self, grids: list[_Grid], vision: PortVision, cfg):
        self.config = cfg
        self.grids, self.vision = grids, vision
        self.text_grid = grids[0]  # text-only requests: zero image rows of the first grid
        self.fixed_chunk = PREFILL
        self.max_context = min(g.max_context for g in grids)

    def new_cache(self, batch: int, ctx: int) -> StateCache:
        cfg = self.config
        shape = (cfg.num_hidden_layers, 1, cfg.num_key_value_heads, self.max_context, cfg.head_dim)
        desc = self.text_grid.decoder.desc["main"]
        from coreai.runtime import NDArray

        from .runner import _np_dtype

        rows = []
        for _ in range(batch):
            rows.append(_Row({s: NDArray(np.zeros(shape, _np_dtype(desc.state_descriptor(s).dtype)))
                              for s in desc.state_names}))
        return StateCache(rows, self.max_context)

    def embed(self, input_ids_BS: np.ndarray) -> np.ndarray:
        ids = np.asarray(input_ids_BS)
        out = np.zeros(ids.shape + (self.config.hidden_size,), np.float32)
        out[..., 0] = ids
        return out

    def step(self, inputs_embeds_BSH, cos_BSD, sin_BSD, mask_BST, write_pos: int, cache: StateCache,
             logits="last"):
        B, S, _ = inputs_embeds_BSH.shape
        if logits == "all" or S not in (1, PREFILL) or cache.batch != B:
            raise BundleError(f"the port's decoder takes 1 or {PREFILL} tokens per call, not {S}")
        outs = []
        for b in range(B):
            row: _Row = cache.states[b]
            allowed = np.flatnonzero(np.asarray(mask_BST[b, 0]) > -1e30)
            first = int(allowed[0]) if allowed.size else write_pos  # the slot the sequence starts at
            seq = write_pos - first
            if seq == 0:  # a new sequence in this state
                row.grid, row.image, row.image_start = None, None, TEXT_ONLY_START
            carrier = np.asarray(inputs_embeds_BSH[b])
            ids = np.rint(carrier[:, 0]).astype(np.int64)
            img_rows = np.flatnonzero(ids >= self.config.vocab_size)
            if img_rows.size and row.image is None:
                key = int(round(float(carrier[img_rows[0], 1])))
                with self.vision._lock:
                    row.grid, row.image = self.vision.images.pop(key)
                row.image_start = seq + int(img_rows[0]) - int(ids[img_rows[0]] - self.config.vocab_size)
            grid = row.grid or self.text_grid
            image = row.image if row.image is not None else np.zeros((grid.n, self.config.hidden_size), np.float32)
            amount = grid.n - max(grid.rows, grid.cols)
            feeds = {
                "input_ids": ids.astype(np.int32)[None],
                "position_ids": np.arange(seq + S, dtype=np.int32)[None],
                "image_embeds": image,
                "rope_shift_start": np.array([row.image_start + grid.n if row.image is not None else TEXT_ONLY_START],
                                             np.int32),
                "rope_shift_amount": np.array([amount], np.int32),
            }
            fn = "main" if S == 1 else "prefill"
            out = grid.decoder.predict(fn, feeds, row.arrays)["logits"]
            if logits != "none":
                last = S - 1 if logits == "last" else int(logits)
                outs.append(np.asarray(out[:, last:last + 1], np.float32))
        return None if logits == "none" else np.concatenate(outs, axis=0)


def fit_to_grid(image, prompt: str, grids: dict[str, tuple[int, int]]):
    """The image as the port reads it: stretched to the layout grid for a layout prompt,
    letterboxed (aspect kept, white, centred) into the recognition grid otherwise (PIL)."""
    from PIL import Image

    from mineru_tui.engines.qwen2vl.preprocess import load_image

    img = load_image(image).convert("RGB")
    if LAYOUT_PROMPT in prompt and "layout" in grids:
        rows, cols = grids["layout"]
        return img.resize((cols * PIXELS_PER_CELL, rows * PIXELS_PER_CELL), Image.BICUBIC)
    rows, cols = grids[""]
    W, H = cols * PIXELS_PER_CELL, rows * PIXELS_PER_CELL
    if img.size == (W, H):
        return img
    scale = min(W / img.width, H / img.height)
    size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
    canvas = Image.new("RGB", (W, H), "white")
    canvas.paste(img.resize(size, Image.BICUBIC), ((W - size[0]) // 2, (H - size[1]) // 2))
    return canvas


def open_port_model(bundle: Path, model: str | None, *, preference: str = "default"):
    """A ``Model`` reading with the port's bundles at ``bundle`` (see the module docstring)."""
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model
    from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer

    bundle = Path(bundle).expanduser()
    model_dir = resolve_model(model)
    checkpoint = load_checkpoint(model_dir)
    cfg = checkpoint.config
    found = {k: v for k, v in GRIDS.items() if ((bundle / k) if k else bundle).joinpath("decoder").is_dir()}
    try:
        grids = [_Grid((bundle / k) if k else bundle, r, c, preference) for k, (r, c) in found.items()]
    except (BundleError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - the runtime's errors are multi-line RuntimeErrors
        why = " ".join(str(e).split())[:160] or type(e).__name__
        raise BundleError(f"{bundle}: the port's bundle cannot be loaded ({type(e).__name__}: {why})") from None
    for g in grids:
        d = g.decoder.desc["main"]
        vocab = int(d.output_descriptor("logits").shape[-1])
        hidden = int(d.input_descriptor("image_embeds").shape[-1])
        if (vocab, hidden) != (cfg.text.vocab_size, cfg.text.hidden_size):
            raise BundleError(f"{bundle}: the port's decoder has vocabulary {vocab} and width {hidden}, "
                              f"{checkpoint.path} has {cfg.text.vocab_size} and {cfg.text.hidden_size}; "
                              "pass the checkpoint it was converted from with --model")
    vision = PortVision(grids, cfg.vision, cfg.text.vocab_size, cfg.text.hidden_size)
    text = PortText(grids, vision, cfg.text)
    return _port_model_class()(checkpoint, Tokenizer.from_dir(model_dir), vision=vision, text=text, grids=found)


@functools.cache
def _port_model_class():
    """``PortModel``: the shared ``Model`` whose images are fitted to the port's grids first
    (made on first use: the model code loads only when a port bundle is opened)."""
    from mineru_tui.engines.errors import ImageError
    from mineru_tui.engines.qwen2vl.model import Model

    class PortModel(Model):
        def __init__(self, *args, grids: dict[str, tuple[int, int]], **kwargs):
            super().__init__(*args, **kwargs)
            self.grids = grids

        def prepare(self, image, prompt: str):
            if image is not None:
                try:
                    image = fit_to_grid(image, prompt, self.grids)
                except ImageError:
                    raise
                except Exception as e:  # noqa: BLE001 - unreadable image bytes: the request's own error
                    raise ImageError(f"cannot read the image ({type(e).__name__})") from None
            return super().prepare(image, prompt)

    return PortModel
