"""A faster parameter conversion for Typer (``install()``, called once by :mod:`mineru_tui.cli`).

Typer 0.29 converts every parameter value (even the unused ``--help`` flag) through a
Pydantic ``TypeAdapter``; importing Pydantic and building the adapters costs about as much as
the rest of the start-up together. This module swaps in a plain conversion for the few
parameter types our commands use.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer


def install() -> None:
    """Convert this command's few parameter types without Pydantic.

    Typer 0.29 converts every parameter value (even the unused ``--help`` flag) through a
    Pydantic ``TypeAdapter``; importing Pydantic and building the adapters costs about as
    much as the rest of the start-up together: measured 2026-12 on the 2-core dev machine,
    20 runs each, median CPU time of ``parse missing.docx`` 154 ms with this hook, 302 ms
    without (``parse --help`` 112 vs 258 ms, ``parse`` of a small .docx 279 vs 421 ms). Our parameters are bools, str/int/float, paths, a list of paths and
    Enums, so a plain conversion does. This hooks Typer's (private) coercion factory only when it
    has the expected shape; anything else, or another Typer, keeps Typer's own path.
    pyproject.toml pins the Typer versions it was tested with (0.29.x); tests/cli/test_cli.py
    checks that ``parse`` starts without importing Pydantic.
    """
    try:
        import typer.core as tcore
        from typer._coercion import RuntimeParam
        from typing import get_args, get_origin
        original = tcore.build_runtime_param
    except (ImportError, AttributeError):
        return
    if getattr(original, "_mineru_light", False):
        return

    def convert(annotation):
        if annotation is bool:
            return lambda v: v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes", "on")
        if annotation is Path:
            return lambda v: v if isinstance(v, Path) else Path(v)
        if annotation in (str, int, float):
            def to_scalar(v):
                try:
                    return v if isinstance(v, annotation) else annotation(v)
                except ValueError:
                    raise typer.BadParameter(f"{v!r} is not a valid {annotation.__name__}") from None
            return to_scalar
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            def to_enum(v):
                try:
                    return v if isinstance(v, annotation) else annotation(v)
                except ValueError:
                    raise typer.BadParameter(f"{v!r} is not one of "
                                             f"{', '.join(m.value for m in annotation)}") from None
            return to_enum
        return None

    def build(descriptor):
        ann = descriptor.annotation
        multi = get_origin(ann) is list
        args = [a for a in get_args(ann) if a is not type(None)]
        inner = args[0] if (multi or get_origin(ann) is not None) and len(args) == 1 else ann
        fn = convert(inner)
        pi = descriptor.parameter_info
        plain = (getattr(pi, "parser", None) is None and not getattr(pi, "exists", False)
                 and getattr(pi, "file_okay", True) and getattr(pi, "dir_okay", True)
                 and not getattr(pi, "writable", False) and not getattr(pi, "resolve_path", False)
                 and not getattr(pi, "allow_dash", False)
                 and getattr(pi, "path_type", None) is None
                 and getattr(pi, "case_sensitive", True))
        if fn is None or not plain or descriptor.file_annotation is not None:
            return original(descriptor)  # validation we do not replicate: Typer's own path

        class Light(RuntimeParam):
            def _coerce_value(self, value, param, ctx):
                if multi:
                    return [fn(v) for v in value]
                return fn(value)

        return Light(parameter_info=descriptor.parameter_info, annotation=ann)

    build._mineru_light = True
    tcore.build_runtime_param = build
