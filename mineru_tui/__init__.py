"""mineru-tui: documents to Markdown and MinerU-compatible JSON, locally."""

__version__ = "0.1.0"
