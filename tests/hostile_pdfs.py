"""Small crafted PDFs for the hostile-input tests, built in memory (nothing downloaded).

A *content-stream bomb* is a page whose content stream is a long run of path operators
(``0 0 m 1 1 l S``) compressed with Flate: a few kilobytes of file inflate to megabytes
of operators, and PDFium spends about 28 bytes of memory per inflated byte parsing them.
The tests use a small bomb and a small memory limit for the page probe (the real bomb of
the issue is 0.5 MB inflating to 256 MiB; the same mechanism, scaled down).
"""

from __future__ import annotations

import zlib

GOOD_PAGE = b"BT /F1 24 Tf 72 720 Td (Hello from a good page) Tj ET\n"


def bomb_content(inflated_bytes: int) -> bytes:
    """Path operators of about ``inflated_bytes`` bytes."""
    op = b"0 0 m 1 1 l S\n"
    return op * (inflated_bytes // len(op) + 1)


def build_pdf(contents: list[bytes], compress: bool = True) -> bytes:
    """A valid PDF with one page per content stream (Helvetica as /F1), xref and trailer."""
    objects: list[bytes] = []
    n = len(contents)
    # 1 catalog, 2 pages, 3 font, then per page: page object, content stream
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, content in enumerate(contents):
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode())
        data = zlib.compress(content, 9) if compress else content
        flt = b" /Filter /FlateDecode" if compress else b""
        objects.append(b"<< /Length " + str(len(data)).encode() + flt + b" >>\nstream\n" + data
                       + b"\nendstream")
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for k, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{k} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
