"""MinerU's decoding knobs as logits processors, and greedy selection.

All knobs look at the **generated** tokens of each row only (not the prompt), as in MinerU's
vLLM logits processor (``mineru-vl-protocol.md`` §2.3):

* ``repetition_penalty`` (HF/CTRL rule): a seen token's logit l becomes l/p if l > 0 else l·p;
* ``frequency_penalty`` / ``presence_penalty`` (OpenAI): l −= f·count + p·[count > 0];
* ``no_repeat_ngram_size`` n (HF rule): ban every token that would complete an n-gram that
  already occurred; ``n ≤ 0`` disables it.

Applied in that order (vLLM applies repetition before frequency/presence; the n-gram ban sets
−inf, which the penalties leave unchanged). State is per row and can be compacted with the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SamplingParams:
    """Greedy decoding knobs (MinerU defaults: n-gram 100, no penalties)."""

    no_repeat_ngram_size: int = 100
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    repetition_penalty: float = 1.0

    def validate(self) -> None:
        if self.repetition_penalty <= 0:
            raise ValueError(f"repetition_penalty must be > 0, got {self.repetition_penalty}")


class LogitsProcessor:
    """Per-row state (generated tokens, counts, n-gram table) for a batch of B rows."""

    def __init__(self, params: SamplingParams, batch: int, vocab: int):
        params.validate()
        self.params = params
        self.vocab = vocab
        self.generated: list[list[int]] = [[] for _ in range(batch)]
        self.need_counts = params.presence_penalty != 0 or params.frequency_penalty != 0 or params.repetition_penalty != 1.0
        self.counts_BV = np.zeros((batch, vocab), dtype=np.float32) if self.need_counts else None
        self.ngrams: list[dict[tuple[int, ...], set[int]]] = [{} for _ in range(batch)]

    def append(self, tokens_B: np.ndarray) -> None:
        """Record the tokens just chosen for each row."""
        n = self.params.no_repeat_ngram_size
        for b, tok in enumerate(np.asarray(tokens_B).tolist()):
            gen = self.generated[b]
            gen.append(tok)
            if n > 0 and len(gen) >= n:
                prefix = tuple(gen[len(gen) - n : len(gen) - 1])
                self.ngrams[b].setdefault(prefix, set()).add(tok)
        if self.counts_BV is not None:
            rows = np.arange(len(self.generated))
            ids = np.asarray(tokens_B, dtype=np.int64)
            ok = (ids >= 0) & (ids < self.vocab)
            np.add.at(self.counts_BV, (rows[ok], ids[ok]), 1.0)

    def keep(self, rows) -> None:
        """Drop the state of rows that left the batch (``rows`` = indices to keep, in order)."""
        rows = list(rows)
        self.generated = [self.generated[r] for r in rows]
        self.ngrams = [self.ngrams[r] for r in rows]
        if self.counts_BV is not None:
            self.counts_BV = self.counts_BV[rows]

    def banned_ngram_tokens(self, b: int) -> list[int]:
        """Tokens that would repeat an n-gram of row b (HF ``_get_generated_ngrams``)."""
        n = self.params.no_repeat_ngram_size
        gen = self.generated[b]
        if n <= 0 or len(gen) + 1 < n:
            return []
        prefix = tuple(gen[len(gen) - (n - 1) :]) if n > 1 else ()
        return list(self.ngrams[b].get(prefix, ()))

    def __call__(self, logits_BV: np.ndarray) -> np.ndarray:
        """Processed copy of the logits [B, V] (float32)."""
        p = self.params
        out_BV = np.array(logits_BV, dtype=np.float32)
        if self.counts_BV is not None:
            seen_BV = self.counts_BV > 0
            if p.repetition_penalty != 1.0:
                r = np.float32(p.repetition_penalty)
                penalised = np.where(out_BV > 0, out_BV / r, out_BV * r)
                out_BV = np.where(seen_BV, penalised, out_BV)
            if p.frequency_penalty != 0:
                out_BV -= np.float32(p.frequency_penalty) * self.counts_BV
            if p.presence_penalty != 0:
                out_BV -= np.float32(p.presence_penalty) * seen_BV
        if p.no_repeat_ngram_size > 0:
            for b in range(out_BV.shape[0]):
                banned = self.banned_ngram_tokens(b)
                if banned:
                    out_BV[b, banned] = -np.inf
        return out_BV


def greedy(logits_BV: np.ndarray) -> np.ndarray:
    """argmax per row (first index on ties, as torch)."""
    return np.argmax(logits_BV, axis=-1)
