"""The OpenAI chat-completions wire format as MinerU speaks it (no HTTP here, only data).

Builds the request body exactly as mineru-vl-utils' ``HttpVlmClient.build_request_body`` does
(``serving-and-scale-out.md`` §2.1, ``mineru-vl-protocol.md`` §8.2 / V15): system turn, image
as a ``data:`` URI before the prompt text, greedy knobs (temperature 0, top_p 0.01, top_k 1),
the penalties, ``vllm_xargs.no_repeat_ngram_size`` for MinerU's vLLM logits processor and
``skip_special_tokens: false`` (the layout parser needs ``<|box_start|>`` …). We add only
``stream`` / ``stream_options.include_usage`` so token counts arrive with the stream.

Also: server URL parsing (MinerU's rules), SSE ``data:`` line decoding, and the end-token
hold-back used while streaming.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mineru_tui.detect import image_format  # the package's one picture sniffer
from mineru_tui.engines.params import SamplingParams

SYSTEM_PROMPT = "You are a helpful assistant."  # mineru_vl_utils DEFAULT_SYSTEM_PROMPT
END_TOKEN_ENV = "MINERU_VLM_END_TOKEN"  # MinerU's override of the stripped end token
API_KEY_ENVS = ("MINERU_TUI_API_KEY", "MINERU_VL_API_KEY")  # ours first, then MinerU's


class WireError(ValueError):
    """A server answer that is not the OpenAI format (garbage, missing fields)."""


def end_token() -> str:
    """The suffix MinerU strips from answers (``<|im_end|>`` unless overridden by env)."""
    value = os.environ.get(END_TOKEN_ENV)
    return "<|im_end|>" if value is None else value


def api_key() -> str | None:
    """The bearer token from the environment, if one is set."""
    for name in API_KEY_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def parse_server_url(url: str) -> tuple[str, str]:
    """(base, api_version) by MinerU's rules: a trailing ``/vN`` is the version (default v1);
    other paths are dropped unless the URL ends with ``/`` (then kept as a proxy prefix)."""
    url = url.strip()
    keep_path = url.endswith("/")
    normalized = url.rstrip("/")
    m = re.fullmatch(r"(https?://[^/]+(?:/.+?)?)/(v\d+)", normalized)
    if m:
        return m.group(1), m.group(2)
    m = re.match(r"^(https?://[^/]+)", normalized)
    if not m:
        raise ValueError(f"not an http(s) URL: {url!r}")
    return (normalized if keep_path else m.group(1)), "v1"


def image_data_url(image: Any) -> str:
    """``data:image/<fmt>;base64,...`` for a PIL image (sent as PNG), bytes or a path."""
    if isinstance(image, (str, Path)):
        image = Path(image).read_bytes()
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
        fmt = image_format(data)
    else:  # a PIL image: MinerU converts to RGB and sends PNG
        if image.mode == "P":
            image = image.convert("RGBA")
        if image.mode != "RGB":
            image = image.convert("RGB")
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        data, fmt = buf.getvalue(), "png"
    return f"data:image/{fmt};base64,{base64.b64encode(data).decode('ascii')}"


def request_body(model: str, image: Any, prompt: str, sampling: SamplingParams,
                 max_new_tokens: int | None, *, stream: bool = True) -> dict[str, Any]:
    """The chat-completions body for one MinerU request (see the module docstring)."""
    content: list[dict[str, Any]] = []
    if image is not None:
        content.append({"type": "image_url", "image_url": {"url": image_data_url(image)}})
    content.append({"type": "text", "text": prompt})
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                     {"role": "user", "content": content}],
        "temperature": 0.0, "top_p": 0.01, "top_k": 1,
        "presence_penalty": sampling.presence_penalty,
        "frequency_penalty": sampling.frequency_penalty,
        "repetition_penalty": sampling.repetition_penalty,
        "vllm_xargs": {"no_repeat_ngram_size": sampling.no_repeat_ngram_size, "debug": False},
    }
    if max_new_tokens is not None:
        body["max_completion_tokens"] = max_new_tokens
        body["max_tokens"] = max_new_tokens  # older servers
    body["skip_special_tokens"] = False
    if model.lower().startswith("gpt"):  # as MinerU: OpenAI's own models reject these
        for key in ("top_k", "repetition_penalty", "skip_special_tokens"):
            body.pop(key, None)
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


@dataclass
class Chunk:
    """What one SSE ``data:`` line carried."""

    content: str | None = None  # text delta (None: the chunk had none)
    finish_reason: str | None = None
    prompt_tokens: int | None = None  # from ``usage`` (the last chunk)
    completion_tokens: int | None = None
    done: bool = False  # the ``[DONE]`` sentinel


def parse_sse_line(line: str) -> Chunk | None:
    """Decode one line of a chat-completions event stream (None: not a data line)."""
    line = line.strip()
    if not line.startswith("data:"):
        return None
    payload = line[5:].strip()
    if payload == "[DONE]":
        return Chunk(done=True)
    try:
        data = json.loads(payload)
    except json.JSONDecodeError:
        raise WireError(f"not JSON in the event stream: {payload[:80]!r}") from None
    if not isinstance(data, dict):
        raise WireError("an event that is not a JSON object")
    if data.get("object") == "error" or "error" in data:
        err = data.get("error", data)
        msg = err.get("message") if isinstance(err, dict) else err
        raise WireError(f"server error in the stream: {str(msg)[:200]}")
    chunk = Chunk()
    choices = data.get("choices") or []
    if choices:
        if not isinstance(choices[0], dict):
            raise WireError("a choice that is not a JSON object")
        delta = choices[0].get("delta") or {}
        content = delta.get("content")
        if content is not None and not isinstance(content, str):
            raise WireError("a delta content that is not a string")
        chunk.content = content
        chunk.finish_reason = choices[0].get("finish_reason")
    usage = data.get("usage")
    if isinstance(usage, dict):
        chunk.prompt_tokens = usage.get("prompt_tokens")
        chunk.completion_tokens = usage.get("completion_tokens")
    return chunk


class EndTokenHoldBack:
    """Streams text while never emitting a trailing end token (``<|im_end|>``).

    MinerU strips the end token from the answer; while streaming we hold back any suffix
    that could still become it, so the deltas concatenate to the stripped text.
    """

    def __init__(self, token: str):
        self.token = token
        # Emitted text as parts, joined once at the end: an answer in thousands of tiny
        # chunks costs linear time, not quadratic (a string grown by += is copied each time).
        self._parts: list[str] = []
        self._pending = ""  # the held-back tail: at most len(token) characters

    def push(self, delta: str) -> str:
        text = self._pending + delta
        keep = 0
        if self.token:
            for n in range(min(len(self.token), len(text)), 0, -1):
                if self.token.startswith(text[-n:]):
                    keep = n
                    break
        out = text[:len(text) - keep]
        self._pending = text[len(text) - keep:]
        if out:
            self._parts.append(out)
        return out

    def final(self) -> str:
        """The full answer, end token stripped."""
        tail = "" if self.token and self._pending == self.token else self._pending
        return "".join(self._parts) + tail

    def flush(self) -> str:
        """What is still held back once the stream ended (all but a complete end token)."""
        out = "" if self.token and self._pending == self.token else self._pending
        self._pending = ""
        if out:
            self._parts.append(out)
        return out
