"""Writing results: the MinerU output folder for ``-o DIR``, and text for stdout.

Layout for ``-o DIR`` (MinerU's output set, one folder per input)::

    DIR/<stem>/<stem>.md
    DIR/<stem>/<stem>_middle.json
    DIR/<stem>/<stem>_content_list.json
    DIR/<stem>/images/<image files>
    DIR/<stem>/<stem>_model.json, <stem>_layout.pdf   (PDFs and images: raw model answers, boxes)

Each ``DIR/<stem>/`` is built in a hidden temporary folder beside it and renamed into place
when complete, so an interrupted run never leaves a half-written set; a folder from an
earlier run is replaced whole. Markdown and JSON reference images as ``images/<name>``.
On stdout images are not written and are referenced by name only.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from mineru_tui.document import Document, to_content_list, to_markdown, to_middle_json

IMAGES_DIR = "images"


def assign_stems(paths: list[Path]) -> list[str]:
    """An output folder name per input, unique within the batch.

    The first input with a given stem keeps it; later ones get ``<stem>_2``, ``<stem>_3``...
    in input order (compared case-insensitively, for case-insensitive file systems), so
    ``a/x.docx`` and ``b/x.docx`` never overwrite each other.
    """
    taken: set[str] = set()
    out = []
    for p in paths:
        stem = _safe_stem(p.stem if p.suffix else p.name)
        name, n = stem, 1
        while name.casefold() in taken:
            n += 1
            name = f"{stem}_{n}"
        taken.add(name.casefold())
        out.append(name)
    return out


def _safe_stem(stem: str) -> str:
    stem = stem.strip().lstrip(".")  # no hidden or "." / ".." folders
    return stem or "document"


def write_outputs(doc: Document, out_dir: Path, stem: str) -> Path:
    """Write the MinerU output set for ``doc`` to ``out_dir/stem/`` atomically; return it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / stem
    tmp = Path(tempfile.mkdtemp(prefix=f".{stem}.partial-", dir=out_dir))
    try:
        if doc.images:
            img_dir = tmp / IMAGES_DIR
            img_dir.mkdir()
            for name, data in doc.images.items():
                (img_dir / _image_name(name)).write_bytes(data)
        _write_json(tmp / f"{stem}_middle.json", to_middle_json(doc, image_prefix=IMAGES_DIR + "/"))
        _write_json(tmp / f"{stem}_content_list.json",
                    to_content_list(doc, image_prefix=IMAGES_DIR + "/"))
        (tmp / f"{stem}.md").write_text(to_markdown(doc, image_prefix=IMAGES_DIR + "/"),
                                        encoding="utf-8")
        # readers may add files of their own (the page reader: <stem>_model.json, _layout.pdf)
        for suffix, write in getattr(doc, "extra_outputs", {}).items():
            write(tmp / f"{stem}{suffix}")
        _swap_into_place(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def _image_name(name: str) -> str:
    # Image names come from the reader (Document.add_image); never let one escape images/.
    base = os.path.basename(name.replace("\\", "/"))
    if base in ("", ".", ".."):
        raise ValueError(f"bad image name {name!r}")
    return base


def _write_json(path: Path, data) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2)
        f.write("\n")


def _swap_into_place(tmp: Path, final: Path) -> None:
    """Rename the finished folder to ``final``, replacing an older one whole."""
    os.chmod(tmp, 0o755 & ~_umask())
    if final.is_symlink() or final.is_file():
        final.unlink()
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=final.parent))
        os.replace(final, old / final.name)
        try:
            os.replace(tmp, final)
        except BaseException:
            os.replace(old / final.name, final)  # put the old result back
            raise
        finally:
            shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, final)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def markdown_for_stdout(doc: Document) -> str:
    """Markdown with images referenced by bare name (nothing is written)."""
    return to_markdown(doc, image_prefix="")


def content_list_for_stdout(doc: Document) -> list[dict]:
    """The content list with images referenced by bare name."""
    return to_content_list(doc, image_prefix="")


def dumps_json(data) -> str:
    """JSON as the tool prints it: UTF-8 text, not ASCII-escaped, indented."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
