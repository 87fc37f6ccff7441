"""MinerU's decoding knobs as one small value (no numpy here: the engine interface and the CLI
import it at start-up; :mod:`.sampling` applies the knobs to logits)."""

from __future__ import annotations

from dataclasses import dataclass


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
