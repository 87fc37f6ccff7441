"""What the host's generation loop asks of a text forward pass: the KV cache, the
:class:`TextForward` protocol and which logits a step returns.

Every local engine's decoder (numpy's, OpenVINO's, Core ML's) implements ``TextForward`` and hands
the loop a cache with the ``KVCache`` interface; :class:`KVCache` itself is the plain numpy array
cache the numpy decoder (and others, where they keep the cache on the host) uses.
"""

from __future__ import annotations

import threading
import weakref
from typing import Literal, Protocol

import numpy as np

from .config import TextConfig

LogitsWhich = Literal["last", "all", "none"] | int  # int: that one row of the chunk


class KVCache:
    """Preallocated key/value cache, ``k``, ``v``: [layers, batch, kv_heads, ctx, head_dim].

    Fixed length: slots are written in place, nothing is appended. ``dtype`` may be float16 (the
    Core ML layout); the numpy engine defaults to float32 for exactness. With ``memory`` (a
    :class:`CacheMemory`) its arrays are the first slots of buffers that outlive it, with room
    to grow and move in place.

    What the host loop asks of a cache (another engine's cache offers the same, see
    ``generate.py``): ``batch``, ``ctx``, ``row(b)`` and ``rows(n)`` (views: writes land in this
    cache), ``move_row(src, dst)``, ``grown(ctx)`` and, optionally, ``moved(shift, ctx)``.
    """

    memory: CacheMemory | None = None  # where its buffers come from and go back to (None: its own)

    def __init__(self, layers: int, batch: int, kv_heads: int, ctx: int, head_dim: int, dtype=np.float32,
                 memory: CacheMemory | None = None):
        shape = (layers, batch, kv_heads, ctx, head_dim)
        if memory is None:
            self.k = np.zeros(shape, dtype=dtype)
            self.v = np.zeros(shape, dtype=dtype)
            return
        self._own(memory, *memory.take(int(np.prod(shape)), np.dtype(dtype)), shape)
        self.k[...] = 0
        self.v[...] = 0

    def _own(self, memory: CacheMemory, k_buf: np.ndarray, v_buf: np.ndarray, shape: tuple) -> None:
        """Hold ``memory``'s two flat buffers as this cache (their first slots, in ``shape``);
        they go back to ``memory`` when this cache is dropped."""
        n = int(np.prod(shape))
        self.memory, self._buffers = memory, (k_buf, v_buf)
        self.k, self.v = k_buf[:n].reshape(shape), v_buf[:n].reshape(shape)
        self._give_back = weakref.finalize(self, memory.give, k_buf, v_buf)

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
        a row's slots changes nothing it computes; only the host's masks move with it. A cache
        made with a :class:`CacheMemory` moves inside its own buffers when they have room:
        it is then used up (the copy holds its buffers)."""
        L, B, G, C, D = self.k.shape
        if self.memory is not None and L * B * G * ctx * D <= self._buffers[0].size:
            return self._moved_in_place(shift, ctx)
        new = KVCache(L, B, G, ctx, D, self.k.dtype, self.memory)
        src = max(0, -shift)
        dst = src + shift
        n = min(C - src, ctx - dst)
        if n > 0:
            new.k[:, :, :, dst : dst + n] = self.k[:, :, :, src : src + n]
            new.v[:, :, :, dst : dst + n] = self.v[:, :, :, src : src + n]
        return new

    def _moved_in_place(self, shift: int, ctx: int) -> KVCache:
        """:meth:`moved` within this cache's own buffers (they have room): the slots are moved
        block by block (a block: one layer's, row's and head's ``ctx × head_dim`` slots), in the
        order that never overwrites a block not yet moved. This cache is used up: the one
        returned holds its buffers."""
        L, B, G, C, D = self.k.shape
        self._give_back.detach()
        for buf in self._buffers:
            _restride(buf, L * B * G, C, ctx, D, shift)
        new = KVCache.__new__(KVCache)
        new._own(self.memory, *self._buffers, (L, B, G, ctx, D))
        self.k = self.v = None  # type: ignore[assignment]
        self.memory = None
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


class CacheMemory:
    """Memory kept for an engine's KV caches and used again, instead of each cache (and each
    copy the host loop makes when a cache grows or its rows move) being fresh memory.

    Why: fresh memory costs its first touch. On a VM that hands freed memory back to its host
    (virtio-balloon free page reporting, ~2 s after it is freed) that is ~6 ms a MB: touching
    160 MB cost 1.0 s against 0.03 s for memory freed just before, and a cache of 8 rows at
    1,700 slots is 334 MB. The host loop remade the cache every ``cache_growth`` decode steps
    (1.3–1.8 s each, 4.5 s of a 67 s page through ``parse``) and made a new one per ``stream``
    call. With this, a cache is made in buffers with room (:attr:`HEADROOM`), grows and moves
    inside them (:meth:`KVCache.moved`), and gives them back when dropped; the next cache
    takes them. Kept between calls: one pair of buffers, at most ``HEADROOM`` × the largest
    cache made (the engine's memory while idle grows by that much)."""

    HEADROOM = 1.5  # a new buffer's room over the cache it is made for: grows happen in place

    def __init__(self):
        self._free: tuple[np.ndarray, np.ndarray] | None = None  # (k, v) flat buffers, unused
        self._lock = threading.Lock()

    def take(self, count: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """Two flat buffers of at least ``count`` values of ``dtype`` (keys, values), the caller's
        until it gives them back: the kept pair when it is large enough, else a new pair."""
        with self._lock:
            free, self._free = self._free, None
        if free is not None and free[0].dtype == dtype and free[0].size >= count:
            return free
        del free  # too small: freed before the new pair is made
        n = int(count * self.HEADROOM)
        return np.empty(n, dtype), np.empty(n, dtype)

    def give(self, k_buf: np.ndarray, v_buf: np.ndarray) -> None:
        """Buffers no cache uses any more: kept if they are the largest pair (one pair is kept)."""
        with self._lock:
            if self._free is None or self._free[0].nbytes < k_buf.nbytes:
                self._free = (k_buf, v_buf)


def _restride(buf: np.ndarray, blocks: int, C: int, ctx: int, D: int, shift: int) -> None:
    """In the flat ``buf`` holding ``blocks`` blocks of ``C × D`` values, make blocks of
    ``ctx × D`` whose slot ``s + shift`` holds the old slot ``s`` (the other slots zero).
    Widening goes last block first (a block's new place starts at or after its old one),
    narrowing first block first; each step copies one block (an overlapping copy within a
    block takes a temporary of one block, not of the cache)."""
    if ctx > C:
        for j in range(blocks - 1, -1, -1):
            buf[j * ctx * D:j * ctx * D + C * D] = buf[j * C * D:(j + 1) * C * D]
            buf[j * ctx * D + C * D:(j + 1) * ctx * D] = 0
        C2 = ctx
    else:
        C2 = C
    if shift:
        s = abs(shift)
        for j in range(blocks):
            blk = buf[j * C2 * D:(j + 1) * C2 * D].reshape(C2, D)
            if s >= C2:
                blk[...] = 0
            elif shift > 0:
                blk[s:] = blk[:C2 - s]
                blk[:s] = 0
            else:
                blk[:C2 - s] = blk[s:]
                blk[C2 - s:] = 0
    if ctx < C:
        for j in range(blocks):
            buf[j * ctx * D:(j + 1) * ctx * D] = buf[j * C * D:j * C * D + ctx * D]


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
