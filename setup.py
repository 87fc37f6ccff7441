"""The project's compiled parts, optional: the character loop of ``mineru_tui/pdf/chars.py``
in C (``mineru_tui/pdf/_charloop.c``) and the glyph loops of ``mineru_tui/pdf/lines.py`` and
``columns.py`` (``mineru_tui/pdf/_lineloop.c``); the rest of the build is ``pyproject.toml``.

``optional=True``: where no C compiler is found the install still succeeds and the modules
use their own Python loops, which give the same characters and lines, only slower (issue 30).
"""

from setuptools import Extension, setup

# no fused multiply-add: boxes and heights must round exactly as Python's float arithmetic does
FLAGS = ["-O2", "-ffp-contract=off"]

setup(ext_modules=[
    Extension("mineru_tui.pdf._charloop", ["mineru_tui/pdf/_charloop.c"], optional=True,
              extra_compile_args=FLAGS),
    Extension("mineru_tui.pdf._lineloop", ["mineru_tui/pdf/_lineloop.c"], optional=True,
              extra_compile_args=FLAGS),
])
