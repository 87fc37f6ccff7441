"""An OpenAI chat-completions body -> one engine :class:`Request` (or a clear 4xx).

We accept what MinerU's http client sends (``serving-and-scale-out.md`` §2.1) and the usual
OpenAI variants: one user turn whose content is a string or a list of ``text`` and at most one
``image_url`` part (a ``data:`` URI — we never fetch URLs), the penalties, ``max_tokens`` /
``max_completion_tokens``, ``vllm_xargs.no_repeat_ngram_size``, ``stream`` and
``stream_options.include_usage``. Decoding is always greedy: temperature / top_p / top_k are
accepted and ignored (MinerU sends 0 / 0.01 / 1, i.e. greedy). The system turn is MinerU's
fixed one and is not used (the checkpoint's chat template adds it).
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import warnings
from dataclasses import dataclass
from typing import Any

from mineru_tui.engines.base import Request
from mineru_tui.engines.params import SamplingParams


# Pixels of one image: a page rendered as MinerU renders it is at most 3500 px on its long
# edge (12 MP); beyond this, decoding alone costs seconds and hundreds of MB per request.
MAX_IMAGE_PIXELS = 40_000_000


class BadRequest(ValueError):
    """The body is not a request we can run; the message is one sentence for the client."""


@dataclass(frozen=True)
class ChatRequest:
    """What one chat-completions call asks for."""

    request: Request
    stream: bool
    include_usage: bool
    model: str | None


def _number(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRequest(f"'{key}' must be a number")
    return float(value)


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"'{key}' must be an integer")
    return value


def _image(url: Any) -> bytes:
    if not isinstance(url, str):
        raise BadRequest("'image_url.url' must be a string")
    if not url.startswith("data:"):
        raise BadRequest("only data: image URLs are accepted (this server fetches nothing)")
    header, sep, payload = url.partition(",")
    if not sep or ";base64" not in header:
        raise BadRequest("the image data URL must be base64 (data:image/png;base64,...)")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("the image data URL is not valid base64") from None
    if not data:
        raise BadRequest("the image is empty")
    from PIL import Image, UnidentifiedImageError

    try:  # a cheap header check, so one bad image fails alone and not its whole batch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # refused below
            with Image.open(io.BytesIO(data)) as im:
                width, height = im.size
                if width * height <= MAX_IMAGE_PIXELS:
                    im.verify()
    except Image.DecompressionBombError:  # a header claiming billions of pixels
        width = height = None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise BadRequest("the image cannot be read (not a PNG/JPEG/... image, or corrupt)") from None
    if width is None or width * height > MAX_IMAGE_PIXELS:
        size = "more" if width is None else f"{width} x {height} = {width * height:,}"
        raise BadRequest(f"the image has {size} pixels; at most {MAX_IMAGE_PIXELS:,} are accepted")
    return data


def _user_content(messages: Any) -> tuple[bytes | None, str]:
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list")
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if any(not isinstance(m, dict) or not isinstance(m.get("role"), str) for m in messages):
        raise BadRequest("every message must be an object with a 'role'")
    if len(users) != 1:
        raise BadRequest(f"exactly one user message is supported, got {len(users)}")
    content = users[0].get("content")
    if isinstance(content, str):
        return None, content
    if not isinstance(content, list):
        raise BadRequest("the user message's 'content' must be a string or a list of parts")
    image: bytes | None = None
    texts: list[str] = []
    for part in content:
        if not isinstance(part, dict):
            raise BadRequest("each content part must be an object")
        kind = part.get("type")
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise BadRequest("a text part needs a string 'text'")
            texts.append(part["text"])
        elif kind == "image_url":
            if image is not None:
                raise BadRequest("one image per request is supported")
            ref = part.get("image_url")
            image = _image(ref.get("url") if isinstance(ref, dict) else ref)
        else:
            raise BadRequest(f"unsupported content part type {kind!r} (use text or image_url)")
    return image, "".join(texts)


def parse_chat_request(body: Any, default_max_tokens: int | None) -> ChatRequest:
    """Validate a decoded JSON body (BadRequest with one sentence when it is not usable)."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    image, prompt = _user_content(body.get("messages"))
    if not prompt.strip():
        raise BadRequest("the user message has no text (MinerU sends e.g. '\\nText Recognition:')")
    if _int(body.get("n", 1), "n") != 1:  # true == 1 in Python: refused as not an integer
        raise BadRequest("'n' must be 1")
    xargs = body.get("vllm_xargs") or {}
    if not isinstance(xargs, dict):
        raise BadRequest("'vllm_xargs' must be an object")
    ngram = xargs.get("no_repeat_ngram_size", body.get("no_repeat_ngram_size", 100))
    sampling = SamplingParams(
        no_repeat_ngram_size=_int(ngram, "no_repeat_ngram_size"),
        presence_penalty=_number(body, "presence_penalty", 0.0),
        frequency_penalty=_number(body, "frequency_penalty", 0.0),
        repetition_penalty=_number(body, "repetition_penalty", 1.0),
    )
    if sampling.repetition_penalty <= 0:
        raise BadRequest("'repetition_penalty' must be > 0")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is not None:
        max_tokens = _int(max_tokens, "max_tokens")
        if max_tokens < 1:
            raise BadRequest("'max_tokens' must be at least 1")
        if default_max_tokens is not None:
            max_tokens = min(max_tokens, default_max_tokens)
    else:
        max_tokens = default_max_tokens
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest("'stream' must be true or false")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise BadRequest("'stream_options' must be an object")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise BadRequest("'model' must be a string")
    return ChatRequest(Request(image, prompt, sampling, max_tokens), stream,
                       bool(options.get("include_usage", False)), model)
