"""Dump what the Office reader makes of every file in a folder, to diff two versions.

    python bench/office_snapshot.py [FOLDER] --out SNAPSHOT_DIR
    diff -r SNAPSHOT_A SNAPSHOT_B

For each Office file in FOLDER (default: tests/corpus/office/) it writes
``<name>.md``, ``<name>.content_list.json``, ``<name>.middle.json`` and
``<name>.meta.json`` (image names with sizes and SHA-256, warnings), or ``<name>.error``
with the one-line reason when the file is refused. Used to check that a refactoring
leaves the outputs byte for byte the same (the default output folder is in the system
temp folder).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mineru_tui.detect import OFFICE_KINDS, detect  # noqa: E402
from mineru_tui.document import to_content_list, to_markdown, to_middle_json  # noqa: E402
from mineru_tui.errors import InputError  # noqa: E402
from mineru_tui.office import read_office  # noqa: E402


def snapshot(folder: Path, out: Path) -> int:
    """Write one snapshot per Office file of ``folder`` into ``out``; return the count."""
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        try:
            kind = detect(path).kind
        except InputError as exc:
            if path.suffix.lower()[1:4] in ("doc", "ppt", "xls", "dot", "pot", "xlt"):
                (out / f"{path.name}.error").write_text(f"{exc}\n")
            continue
        if kind not in OFFICE_KINDS:
            continue
        n += 1
        try:
            doc = read_office(path, kind)
        except InputError as exc:
            (out / f"{path.name}.error").write_text(f"{exc}\n")
            continue
        (out / f"{path.name}.md").write_text(to_markdown(doc, "images/"))
        for suffix, data in (("content_list", to_content_list(doc, "images/")),
                             ("middle", to_middle_json(doc, "images/"))):
            (out / f"{path.name}.{suffix}.json").write_text(
                json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True))
        meta = {"warnings": doc.warnings,
                "images": {k: [len(v), hashlib.sha256(v).hexdigest()]
                           for k, v in doc.images.items()}}
        (out / f"{path.name}.meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1))
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", type=Path, default=ROOT / "tests/corpus/office")
    ap.add_argument("--out", type=Path,
                    default=Path(tempfile.gettempdir()) / "mineru-tui-office-snapshot")
    args = ap.parse_args()
    n = snapshot(args.folder, args.out)
    print(f"{n} Office files snapshotted in {args.out}")


if __name__ == "__main__":
    main()
