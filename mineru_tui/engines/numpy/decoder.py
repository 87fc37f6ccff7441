"""The text decoder forward pass (Qwen2 with GQA) over a chunk of tokens and a KV cache.

This module is the piece a Core ML or server engine replaces. Its interface therefore carries no
host bookkeeping: the caller passes ready inputs_embeds, the rotary cos/sin of every token
(M-RoPE is computed on the host, ``rope.py``), an additive attention mask over the cache slots and
the slot where the chunk's keys/values are written. Prefill (S = prompt chunk) and decode (S = 1)
are one code path.

Shapes (names carry them): B batch rows, S tokens in the chunk, H hidden, D head_dim,
T cache slots the mask covers (T ≤ ctx; a fixed-shape engine uses T = ctx), V vocab.

    step(inputs_embeds [B,S,H], cos [B,S,D], sin [B,S,D], mask [B,S,T] additive (0 / −inf),
         write_pos, cache, logits="last"|"all"|"none") -> logits [B, 1|S, V] or None

Slot ``write_pos + s`` of every row receives token s of the chunk, so all rows of a batch share
one write offset (rows of different lengths are left-padded by the host and the padding slots
masked out) — the same contract as the Core ML decoder function (one ``pos`` input).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig
from mineru_tui.engines.qwen2vl.kv_cache import KVCache, LogitsWhich
from .ops import linear, parallel_rows_, rms_norm, silu_, softmax_
from mineru_tui.engines.qwen2vl.rope import apply_rotary

class NumpyTextForward:
    """Qwen2 decoder in float32 numpy, weights looked up by their checkpoint keys (``model.…``).

    Tied lm_head: logits = final_norm(x) @ ``model.embed_tokens.weight``.T unless the checkpoint has
    its own ``lm_head.weight``. Logits are computed only for the rows asked for.
    """

    def __init__(self, weights: Mapping[str, np.ndarray], cfg: TextConfig, cache_dtype=np.float32):
        self.config = cfg
        self.cache_dtype = cache_dtype
        self.n_q, self.n_kv, self.head_dim = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim

        def w(name: str) -> np.ndarray:
            return np.asarray(weights[name])  # base-class view of a memmap, no copy

        self.embed_VH = w("model.embed_tokens.weight")
        self.lm_head_VH = w("lm_head.weight") if "lm_head.weight" in weights else self.embed_VH
        self.norm_H = w("model.norm.weight")
        self.layers = []
        for i in range(cfg.num_hidden_layers):
            p = f"model.layers.{i}."
            self.layers.append(
                {
                    name: w(p + name)
                    for name in (
                        "input_layernorm.weight", "post_attention_layernorm.weight",
                        "self_attn.q_proj.weight", "self_attn.q_proj.bias",
                        "self_attn.k_proj.weight", "self_attn.k_proj.bias",
                        "self_attn.v_proj.weight", "self_attn.v_proj.bias",
                        "self_attn.o_proj.weight",
                        "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight",
                    )
                }
            )  # fmt: skip

    def new_cache(self, batch: int, ctx: int) -> KVCache:
        """A zeroed cache for ``batch`` rows and ``ctx`` slots."""
        return KVCache(self.config.num_hidden_layers, batch, self.n_kv, ctx, self.head_dim, self.cache_dtype)

    def embed(self, input_ids_BS: np.ndarray) -> np.ndarray:
        """Token embeddings [B, S, H] (a copy: the host scatters image embeds into it)."""
        return self.embed_VH[np.asarray(input_ids_BS)].astype(np.float32, copy=True)

    # ------------------------------------------------------------------ one layer

    def attention(self, h_BSH, lw, cos_BS1D, sin_BS1D, mask_BST, write_pos, cache: KVCache, layer: int):
        B, S, _ = h_BSH.shape
        G, D = self.n_kv, self.head_dim
        rep = self.n_q // G  # q heads g·rep … g·rep+rep−1 share kv head g
        T = mask_BST.shape[-1]
        q_BSQD = linear(h_BSH, lw["self_attn.q_proj.weight"], lw["self_attn.q_proj.bias"]).reshape(B, S, self.n_q, D)
        k_BSGD = linear(h_BSH, lw["self_attn.k_proj.weight"], lw["self_attn.k_proj.bias"]).reshape(B, S, G, D)
        v_BSGD = linear(h_BSH, lw["self_attn.v_proj.weight"], lw["self_attn.v_proj.bias"]).reshape(B, S, G, D)
        q_BSQD = apply_rotary(q_BSQD, cos_BS1D, sin_BS1D)
        k_BSGD = apply_rotary(k_BSGD, cos_BS1D, sin_BS1D)
        cache.k[layer, :, :, write_pos : write_pos + S] = k_BSGD.transpose(0, 2, 1, 3)
        cache.v[layer, :, :, write_pos : write_pos + S] = v_BSGD.transpose(0, 2, 1, 3)
        K_BGTD = cache.k[layer, :, :, :T]  # a view: no per-step copy of the cache
        V_BGTD = cache.v[layer, :, :, :T]
        if K_BGTD.dtype != np.float32:  # fp16 cache: compute in f32
            K_BGTD, V_BGTD = K_BGTD.astype(np.float32), V_BGTD.astype(np.float32)
        q_BSQD *= np.float32(D**-0.5)
        # [B, S, Q, D] -> [B, G, rep·S, D]: each kv head's q heads stacked along the row axis
        q_BGRD = q_BSQD.transpose(0, 2, 1, 3).reshape(B, G, rep * S, D)
        scores_BGRT = q_BGRD @ K_BGTD.transpose(0, 1, 3, 2)
        scores_BGrST = scores_BGRT.reshape(B, G, rep, S, T)
        scores_BGrST += mask_BST[:, None, None, :, :]
        parallel_rows_(softmax_, scores_BGRT.reshape(-1, T))  # rows in parallel for prefill chunks
        out_BGRD = scores_BGRT @ V_BGTD
        out_BSH = out_BGRD.reshape(B, self.n_q, S, D).transpose(0, 2, 1, 3).reshape(B, S, self.n_q * D)
        return linear(out_BSH, lw["self_attn.o_proj.weight"])

    def mlp(self, h_BSH, lw):
        B, S, _ = h_BSH.shape
        gate = parallel_rows_(silu_, linear(h_BSH, lw["mlp.gate_proj.weight"]).reshape(B * S, -1)).reshape(B, S, -1)
        gate *= linear(h_BSH, lw["mlp.up_proj.weight"])
        return linear(gate, lw["mlp.down_proj.weight"])

    # ------------------------------------------------------------------ step

    def step(
        self,
        inputs_embeds_BSH: np.ndarray,
        cos_BSD: np.ndarray,
        sin_BSD: np.ndarray,
        mask_BST: np.ndarray,
        write_pos: int,
        cache: KVCache,
        logits: LogitsWhich = "last",
        capture: dict[str, np.ndarray] | None = None,
    ) -> np.ndarray | None:
        """Run the decoder over one chunk, writing its K/V at slots write_pos…write_pos+S−1.

        Returns logits [B, 1, V] (``"last"``, or an int: that row of the chunk), [B, S, V]
        (``"all"``) or None (``"none"``, an intermediate prefill chunk). ``capture`` receives ``txt.layer{i}_out`` / ``txt.final_norm``
        (tests).
        """
        B, S, H = inputs_embeds_BSH.shape
        T = mask_BST.shape[-1]
        if mask_BST.shape != (B, S, T) or not (write_pos + S <= T <= cache.ctx):
            raise ValueError(f"mask {mask_BST.shape} / write_pos {write_pos} / S {S} / cache ctx {cache.ctx} do not fit")
        if cache.batch != B:
            raise ValueError(f"cache has {cache.batch} rows, inputs {B}")
        eps = self.config.rms_norm_eps
        cos_BS1D = np.asarray(cos_BSD, np.float32)[:, :, None, :]
        sin_BS1D = np.asarray(sin_BSD, np.float32)[:, :, None, :]
        mask_BST = np.asarray(mask_BST, np.float32)
        x_BSH = np.array(inputs_embeds_BSH, dtype=np.float32)  # own copy: the residual is updated in place
        for i, lw in enumerate(self.layers):
            h = rms_norm(x_BSH, lw["input_layernorm.weight"], eps)
            x_BSH += self.attention(h, lw, cos_BS1D, sin_BS1D, mask_BST, write_pos, cache, i)
            h = rms_norm(x_BSH, lw["post_attention_layernorm.weight"], eps)
            x_BSH += self.mlp(h, lw)
            if capture is not None:
                capture[f"txt.layer{i}_out"] = x_BSH.copy()
        if logits == "none":
            return None
        if isinstance(logits, int) and not isinstance(logits, bool):
            x_sel = x_BSH[:, logits : logits + 1]  # a padded chunk's last real row
        else:
            x_sel = x_BSH[:, -1:] if logits == "last" else x_BSH
        h = rms_norm(x_sel, self.norm_H, eps)
        if capture is not None:
            capture["txt.final_norm"] = h.copy()
        return linear(h, self.lm_head_VH)
