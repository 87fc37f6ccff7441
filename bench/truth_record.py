"""One file's reference for the quality benchmarks: its text and structural counts.

Shared by ``office_truth.py`` (OOXML) and ``web_truth.py`` (web formats), which read the
reference from the files themselves; kept apart so neither imports the other for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

METRICS = ("tables", "headings", "equations", "links", "list_items", "images", "merged")


@dataclass
class Truth:
    """Reference text and structural counts of one source file."""

    text: str = ""
    counts: dict[str, int] = field(default_factory=lambda: {m: 0 for m in METRICS})
    notes: list[str] = field(default_factory=list)
    # short samples of what each count is made of (for the "what's missing" report)
    samples: dict[str, list[str]] = field(default_factory=lambda: {m: [] for m in METRICS})

    def add(self, metric: str, sample: str = "") -> None:
        self.counts[metric] += 1
        if sample and len(self.samples[metric]) < 40:
            self.samples[metric].append(sample[:80])
