"""Assemble a scratch source tree of ours from the in-progress worktrees (never committed).

Copies ``--base``/mineru_tui (default: the CLI worktree) and overlays each reader
worktree's ``mineru_tui/office/*.py`` (``__init__.py`` only when it differs from the base's,
with a warning), so the benchmark can run our readers before they are merged::

    python bench/assemble_ours.py --out /tmp/ours
"""
from __future__ import annotations

import argparse
import filecmp
import shutil
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, default=Path("/work/wt/cli"))
    ap.add_argument("--readers", default="/work/wt/docx,/work/wt/pptx,/work/wt/xlsx,/work/wt/omml")
    ap.add_argument("--out", type=Path, default=Path("/tmp/ours"))
    args = ap.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.base / "mineru_tui", args.out / "mineru_tui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    office = args.out / "mineru_tui" / "office"
    for wt in args.readers.split(","):
        src = Path(wt) / "mineru_tui" / "office"
        for f in sorted(src.glob("*.py")):
            dst = office / f.name
            if f.name == "__init__.py":
                if not filecmp.cmp(f, dst, shallow=False):
                    print(f"warning: {f} differs from the base; using it")
                    shutil.copy2(f, dst)
                continue
            if dst.exists() and not filecmp.cmp(f, dst, shallow=False):
                print(f"warning: {f.name} in several worktrees; {wt} wins")
            shutil.copy2(f, dst)
    print(f"assembled {args.out}: " + " ".join(sorted(p.name for p in office.glob('*.py'))))


if __name__ == "__main__":
    main()
