"""What the host's generation loop asks of a text forward pass: the KV cache, the
:class:`TextForward` protocol and which logits a step returns.

Every local engine's decoder (numpy's, OpenVINO's, Core ML's) implements ``TextForward`` and hands
the loop a cache with the ``KVCache`` interface; :class:`KVCache` itself is the plain numpy array
cache the numpy decoder (and others, where they keep the cache on the host) uses.
"""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np

from .config import TextConfig

LogitsWhich = Literal["last", "all", "none"] | int  # int: that one row of the chunk


class KVCache:
    """Preallocated key/value cache, ``k``, ``v``: [layers, batch, kv_heads, ctx, head_dim].

    Fixed length: slots are written in place, nothing is appended. ``dtype`` may be float16 (the
    Core ML layout); the numpy engine defaults to float32 for exactness.

    What the host loop asks of a cache (another engine's cache offers the same, see
    ``generate.py``): ``batch``, ``ctx``, ``row(b)`` and ``rows(n)`` (views: writes land in this
    cache), ``move_row(src, dst)``, ``grown(ctx)`` and, optionally, ``moved(shift, ctx)``.
    """

    def __init__(self, layers: int, batch: int, kv_heads: int, ctx: int, head_dim: int, dtype=np.float32):
        shape = (layers, batch, kv_heads, ctx, head_dim)
        self.k = np.zeros(shape, dtype=dtype)
        self.v = np.zeros(shape, dtype=dtype)

    @classmethod
    def _wrap(cls, k: np.ndarray, v: np.ndarray) -> KVCache:
        c = cls.__new__(cls)
        c.k, c.v = k, v
        return c

    @property
    def batch(self) -> int:
        return self.k.shape[1]

    @property
    def ctx(self) -> int:
        return self.k.shape[3]

    @property
    def nbytes(self) -> int:
        return self.k.nbytes + self.v.nbytes

    def row(self, b: int) -> KVCache:
        """A batch-1 view of row ``b`` (writes go to this cache): prefill one sequence at a time."""
        return KVCache._wrap(self.k[:, b : b + 1], self.v[:, b : b + 1])

    def rows(self, n: int) -> KVCache:
        """A view of rows 0…n−1 (writes go to this cache): the live rows of a decode step."""
        return KVCache._wrap(self.k[:, :n], self.v[:, :n])

    def move_row(self, src: int, dst: int) -> None:
        """Row ``dst`` takes row ``src``'s keys and values (``src`` is free afterwards)."""
        self.k[:, dst] = self.k[:, src]
        self.v[:, dst] = self.v[:, src]

    def moved(self, shift: int, ctx: int) -> KVCache:
        """A copy with ``ctx`` slots whose slot s + ``shift`` holds this cache's slot s (slots
        that fall outside are dropped). Keys carry their rotary position already, so moving
        a row's slots changes nothing it computes; only the host's masks move with it."""
        L, B, G, C, D = self.k.shape
        new = KVCache(L, B, G, ctx, D, self.k.dtype)
        src = max(0, -shift)
        dst = src + shift
        n = min(C - src, ctx - dst)
        if n > 0:
            new.k[:, :, :, dst : dst + n] = self.k[:, :, :, src : src + n]
            new.v[:, :, :, dst : dst + n] = self.v[:, :, :, src : src + n]
        return new

    def select(self, rows) -> KVCache:
        """A new cache holding only ``rows`` (compacting a batch when sequences finish)."""
        rows = np.asarray(rows, dtype=np.int64)
        return KVCache._wrap(self.k[:, rows], self.v[:, rows])

    def grown(self, ctx: int) -> KVCache:
        """A copy with ``ctx`` slots (≥ the current ones), for hosts that start small and grow."""
        if ctx <= self.ctx:
            return self
        return self.moved(0, ctx)


class TextForward(Protocol):
    """What the host needs from a decoder implementation (numpy here; Core ML / server later).

    Optional attributes a fixed-shape engine may set (the host loop reads them with getattr):
    ``fixed_chunk`` — every prefill call gets exactly this many rows (the last chunk padded);
    ``max_context`` — the cache has this many slots and never grows (generation stops there).
    """

    config: TextConfig

    def new_cache(self, batch: int, ctx: int) -> KVCache: ...

    def embed(self, input_ids_BS: np.ndarray) -> np.ndarray: ...

    def step(
        self,
        inputs_embeds_BSH: np.ndarray,
        cos_BSD: np.ndarray,
        sin_BSD: np.ndarray,
        mask_BST: np.ndarray,
        write_pos: int,
        cache: KVCache,
        logits: LogitsWhich = "last",
    ) -> np.ndarray | None: ...
