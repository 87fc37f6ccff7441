"""Names shared by the reader and the command line, in a module that imports nothing.

``cli.py`` must start without numpy, so it reads the default model id and the task names
from here instead of from :mod:`mineru_tui.engines.qwen2vl.checkpoint` / :mod:`mineru_tui.reader.tasks`
(which import numpy); those modules take their values from here too, so each is written once.
"""

DEFAULT_MODEL = "opendatalab/MinerU2.5-Pro-2605-1.2B"

# MinerU tasks the ``generate`` command offers (reader/tasks.py gives each its prompt and knobs)
TASK_NAMES = ("text", "table", "formula", "image", "layout")

MODEL_ENV = "MINERU_TUI_MODEL"  # environment variable naming the model (directory or repo id)
