"""Whether two output trees of ``mineru-tui parse ... -o`` are byte for byte the same (the
check a speed change of the text path must pass: issue 30).

    bench/same_outputs.py REF_DIR NEW_DIR

Every file under the two directories is compared; in ``_layout.pdf`` files PDFium's
``/CreationDate`` and ``/ID`` (which change on every save) are left out. Exit 0 when all
match, 1 otherwise (each differing file is named). Make the trees with the same command in
two checkouts, e.g. for each PDF of ``tests/corpus/pdf`` and ``tests/corpus/pdf_lines``:

    .venv/bin/mineru-tui parse FILE --effort low -q -o REF_DIR/SUBDIR
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def _normalised(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".pdf":
        data = re.sub(rb"/CreationDate\(D:[^)]*\)", b"", data)
        data = re.sub(rb"/ID\[<[0-9A-Fa-f]+><[0-9A-Fa-f]+>\]", b"", data)
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref", type=Path, help="the reference output tree")
    ap.add_argument("new", type=Path, help="the tree to compare with it")
    args = ap.parse_args(argv)
    ref, new = args.ref, args.new
    files = {p.relative_to(ref) for p in ref.rglob("*") if p.is_file()}
    other = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    bad = 0
    for rel in sorted(files ^ other):
        print(f"only in {'the reference' if rel in files else 'the new tree'}: {rel}")
        bad += 1
    for rel in sorted(files & other):
        if _normalised(ref / rel) != _normalised(new / rel):
            print(f"differs: {rel}")
            bad += 1
    print(f"{len(files)} files: " + ("all the same" if not bad else f"{bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
