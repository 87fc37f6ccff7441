"""Image blocks that stand in for pictures the readers cannot (or must not) embed.

Shared by the docx and pptx readers so both word these placeholders the same way.
"""

from __future__ import annotations

from mineru_tui.document import Block, BlockType, Line, text_span


def file_name(target: str) -> str:
    """The last path segment of a link target (``file:///C:/pics/a.png`` -> ``a.png``)."""
    from urllib.parse import unquote
    path = unquote(target.split("?", 1)[0].split("#", 1)[0]).replace("\\", "/").rstrip("/")
    return path.rsplit("/", 1)[-1][:200]


def _image_text_block(span) -> Block:
    return Block(BlockType.IMAGE, blocks=[Block(BlockType.IMAGE_BODY, lines=[Line([span])])])


def linked_image_block(alt: str, target: str) -> Block:
    """An image block for a picture that lives outside the package ("link to file").

    Its bytes are never fetched or read (a document must not make the reader open local
    files or the network), so there is no file for ``doc.images``; the body says what the
    picture was instead: "Linked image: <alt>", linked to the target when that is a web
    address, else followed by the target's file name.
    """
    target = target.strip()
    name = file_name(target)
    label = "Linked image: " + (alt or name or "picture")
    if target.lower().startswith(("http://", "https://")):
        return _image_text_block(text_span(label, link=target))
    shown = alt and name and name != alt  # else the label already is the file name
    return _image_text_block(text_span(label + (f" ({name}, not embedded)" if shown
                                                else " (not embedded)")))


def missing_image_block(alt: str) -> Block | None:
    """A placeholder for a picture whose image part is missing or corrupt: "Missing image:
    <alt>" when the picture has alt text to name it, else nothing (only a warning)."""
    if not alt:
        return None
    return _image_text_block(text_span(f"Missing image: {alt}"))
