"""The project's one compiled part, optional: the character loop of ``mineru_tui/pdf/chars.py``
in C (``mineru_tui/pdf/_charloop.c``; the rest of the build is ``pyproject.toml``).

``optional=True``: where no C compiler is found the install still succeeds and chars.py
uses its own Python loop, which gives the same characters, only slower (issue 30).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "mineru_tui.pdf._charloop", ["mineru_tui/pdf/_charloop.c"], optional=True,
    # no fused multiply-add: the boxes must round exactly as Python's float arithmetic does
    extra_compile_args=["-O2", "-ffp-contract=off"])])
