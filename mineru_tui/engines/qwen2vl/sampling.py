"""MinerU's decoding knobs as logits processors, and greedy selection.

All knobs look at the **generated** tokens of each row only (not the prompt), as in MinerU's
vLLM logits processor (``mineru-vl-protocol.md`` §2.3):

* ``repetition_penalty`` (HF/CTRL rule): a seen token's logit l becomes l/p if l > 0 else l·p;
* ``frequency_penalty`` / ``presence_penalty`` (OpenAI): l −= f·count + p·[count > 0];
* ``no_repeat_ngram_size`` n (HF rule): ban every token that would complete an n-gram that
  already occurred; ``n ≤ 0`` disables it.

Applied in that order (vLLM applies repetition before frequency/presence; the n-gram ban sets
−inf, which the penalties leave unchanged). State and knobs are per row: rows leave the batch
(:meth:`LogitsProcessor.keep`) and join it (:meth:`LogitsProcessor.extend`) with their state,
so a row's logits get the same arithmetic whatever else is in the batch.

There is no random sampling: MinerU decodes with temperature 0 / top_k 1, so the choice is the
argmax (:func:`greedy`) and needs no seed. A sampler with a seed would keep one generator per
request here, beside the row's other state, so its draws do not depend on the batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mineru_tui.engines.params import SamplingParams

__all__ = ["LogitsProcessor", "SamplingParams", "greedy"]


class LogitsProcessor:
    """Per-row state (generated tokens, counts, n-gram table) for a batch of B rows.

    ``params`` is one :class:`SamplingParams` for every row, or a sequence with one per row
    (MinerU mixes table, formula and text knobs in one batch). The knobs are applied as
    per-row vectors, so a row's logits get exactly the arithmetic they would get alone.
    """

    def __init__(self, params: SamplingParams | Sequence[SamplingParams], batch: int, vocab: int):
        rows = [params] * batch if isinstance(params, SamplingParams) else list(params)
        if len(rows) != batch:
            raise ValueError(f"{len(rows)} sampling params for a batch of {batch}")
        for p in rows:
            p.validate()
        self.rows = rows
        self.vocab = vocab
        self.generated: list[list[int]] = [[] for _ in range(batch)]
        self.need_counts = any(_counts(p) for p in rows)
        self.counts_BV = np.zeros((batch, vocab), dtype=np.float32) if self.need_counts else None
        self.ngrams: list[dict[tuple[int, ...], set[int]]] = [{} for _ in range(batch)]

    @property
    def params(self) -> SamplingParams:
        """The knobs of the first row (all rows when one SamplingParams was given)."""
        return self.rows[0]

    def append(self, tokens_B: np.ndarray) -> None:
        """Record the tokens just chosen for each row."""
        for b, tok in enumerate(np.asarray(tokens_B).tolist()):
            n = self.rows[b].no_repeat_ngram_size
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
        self.rows = [self.rows[r] for r in rows]
        self.generated = [self.generated[r] for r in rows]
        self.ngrams = [self.ngrams[r] for r in rows]
        if self.counts_BV is not None:
            self.counts_BV = self.counts_BV[rows]

    def extend(self, other: LogitsProcessor) -> None:
        """Append the rows of ``other`` (with their state) after this processor's rows."""
        if other.vocab != self.vocab:
            raise ValueError(f"vocab {other.vocab} != {self.vocab}")
        if other.need_counts and not self.need_counts:
            self.counts_BV = np.zeros((len(self.rows), self.vocab), dtype=np.float32)
            self.need_counts = True
        if self.counts_BV is not None:
            add = other.counts_BV if other.counts_BV is not None else np.zeros((len(other.rows), self.vocab), np.float32)
            self.counts_BV = np.concatenate([self.counts_BV, add])
        self.rows = self.rows + other.rows
        self.generated = self.generated + other.generated
        self.ngrams = self.ngrams + other.ngrams

    def banned_ngram_tokens(self, b: int) -> list[int]:
        """Tokens that would repeat an n-gram of row b (HF ``_get_generated_ngrams``)."""
        n = self.rows[b].no_repeat_ngram_size
        gen = self.generated[b]
        if n <= 0 or len(gen) + 1 < n:
            return []
        prefix = tuple(gen[len(gen) - (n - 1) :]) if n > 1 else ()
        return list(self.ngrams[b].get(prefix, ()))

    def _column(self, name: str) -> np.ndarray:
        return np.array([getattr(p, name) for p in self.rows], dtype=np.float32)[:, None]

    def __call__(self, logits_BV: np.ndarray) -> np.ndarray:
        """Processed copy of the logits [B, V] (float32)."""
        out_BV = np.array(logits_BV, dtype=np.float32)
        if self.counts_BV is not None:
            seen_BV = self.counts_BV > 0
            if any(p.repetition_penalty != 1.0 for p in self.rows):
                r_B1 = self._column("repetition_penalty")  # 1.0 rows: l/1 and l*1 are exact
                penalised = np.where(out_BV > 0, out_BV / r_B1, out_BV * r_B1)
                out_BV = np.where(seen_BV, penalised, out_BV)
            if any(p.frequency_penalty != 0 for p in self.rows):
                out_BV -= self._column("frequency_penalty") * self.counts_BV  # 0 rows: minus 0
            if any(p.presence_penalty != 0 for p in self.rows):
                out_BV -= self._column("presence_penalty") * seen_BV
        for b in range(out_BV.shape[0]):
            if self.rows[b].no_repeat_ngram_size > 0:
                banned = self.banned_ngram_tokens(b)
                if banned:
                    out_BV[b, banned] = -np.inf
        return out_BV


def _counts(p: SamplingParams) -> bool:
    """Whether the row's knobs need the counts of its generated tokens."""
    return p.presence_penalty != 0 or p.frequency_penalty != 0 or p.repetition_penalty != 1.0


def greedy(logits_BV: np.ndarray) -> np.ndarray:
    """argmax per row (first index on ties, as torch)."""
    return np.argmax(logits_BV, axis=-1)
