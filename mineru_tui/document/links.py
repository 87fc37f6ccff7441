"""Which link targets may reach the output."""

from __future__ import annotations

import html
import re


_SAFE_SCHEMES = ("http", "https", "mailto", "ftp", "ftps", "tel", "news", "sms", "file")
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


def safe_url(url: str | None) -> str | None:
    """The URL if it is safe to put in a link, else None.

    Relative links and fragments are kept; of absolute URLs only ordinary schemes are:
    ``javascript:``, ``data:``, ``vbscript:`` and anything unknown are dropped.
    Control characters (used to smuggle ``java\\tscript:``) are removed first.
    """
    if not url:
        return None
    kept = "".join(ch for ch in url.strip() if ord(ch) >= 0x20 and ord(ch) != 0x7F)
    # Judge the scheme a Markdown or HTML reader will see: it decodes entities
    # ("javascript&#58;") and backslash escapes ("javascript\:") in link targets.
    probe = html.unescape(kept).replace("\\", "")
    probe = "".join(ch for ch in probe if ord(ch) > 0x20 and ord(ch) != 0x7F)
    m = _SCHEME_RE.match(probe)
    if m and m.group(1).lower() not in _SAFE_SCHEMES:
        return None
    return kept.replace(" ", "%20") or None
