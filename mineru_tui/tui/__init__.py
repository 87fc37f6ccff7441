"""The ``watch`` app (Textual). Nothing in the headless paths (``parse``, ``watch --plain``)
imports this package; :mod:`.state` itself does not import Textual either."""
