"""``parse --workers N``: files read at once over one engine, results exactly as with one."""

from __future__ import annotations

import io
import shutil
import threading
import time
from pathlib import Path

from PIL import Image

from mineru_tui.cli.batch import Options, run
from mineru_tui.convert import ConvertOptions
from tests.cli_fixtures import cli
from testkit.scripted_engine import Answer, ScriptedEngine, layout_line

CORPUS = Path(__file__).parents[1] / "corpus" / "office"
LAYOUT = "\nLayout Detection:"


def colour_answer(request) -> Answer:
    """A layout of one text block; the block's text names the page's colour, so every file
    gets its own Markdown and a mix-up between files would show."""
    if request.prompt == LAYOUT:
        return Answer(layout_line(100, 100, 900, 900, "text"))
    r, g, b = request.image.convert("RGB").getpixel((5, 5))
    return Answer(f"Page coloured {r} {g} {b}.")


def folder(tmp_path: Path) -> Path:
    """Office files from the corpus, page images of different colours, and a broken file."""
    docs = tmp_path / "in"
    docs.mkdir()
    for name in ("docling__equations.docx", "docling__powerpoint_sample.pptx",
                 "calamine__merge_cells.xlsx"):
        shutil.copy(CORPUS / name, docs / name)
    for i, colour in enumerate([(200, 10, 10), (10, 200, 10), (10, 10, 200), (90, 90, 90)]):
        Image.new("RGB", (300, 400), colour).save(docs / f"page{i}.png")
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    return docs


def parse(docs: Path, workers: int, engine, out: Path | None = None) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([docs], Options(out_dir=out, reading=ConvertOptions(engine=engine), workers=workers,
                               progress=True), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the output sets but those that carry times or a random PDF id."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".mineru-tui.json"
            and not p.name.endswith(("_model.json", "_layout.pdf"))}


def test_output_is_the_same_whatever_the_number_of_workers(tmp_path):
    docs = folder(tmp_path)
    one = parse(docs, 1, ScriptedEngine(colour_answer))
    three = parse(docs, 3, ScriptedEngine(colour_answer))
    assert one[0] == three[0] == 1  # the broken file
    assert one[1] == three[1]  # stdout: every file's Markdown, in input order
    assert "Page coloured 10 200 10." in one[1]
    assert one[1].index("page0.png") < one[1].index("page1.png") < one[1].index("page3.png")
    # stderr: the same per-file lines in the same order (times aside) and the same error
    strip = [line.rsplit(",", 1)[0] for line in one[2].splitlines()]
    assert strip == [line.rsplit(",", 1)[0] for line in three[2].splitlines()]
    assert "error: " in one[2] and "broken.docx" in one[2]

    code1 = parse(docs, 1, ScriptedEngine(colour_answer), tmp_path / "out1")[0]
    code3 = parse(docs, 3, ScriptedEngine(colour_answer), tmp_path / "out3")[0]
    assert code1 == code3 == 1
    t1, t3 = tree(tmp_path / "out1"), tree(tmp_path / "out3")
    assert len(t1) > 15 and t1 == t3
    assert sorted(p.name for p in (tmp_path / "out1").glob("page*/*_layout.pdf")) == sorted(
        p.name for p in (tmp_path / "out3").glob("page*/*_layout.pdf"))


class GatedEngine(ScriptedEngine):
    """Counts the calls in flight at once; each call waits (up to 5 s) for a second caller, so
    reads that really overlap show up as 2 without depending on the machine's speed."""

    def __init__(self):
        super().__init__(colour_answer)
        self.in_flight = 0
        self.most = 0
        self.count_lock = threading.Lock()
        self.two = threading.Event()

    def stream(self, requests, *, cancel=None):
        with self.count_lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            if self.in_flight >= 2:
                self.two.set()
        try:
            self.two.wait(5)
            yield from super().stream(requests, cancel=cancel)
        finally:
            with self.count_lock:
                self.in_flight -= 1


def test_pages_of_different_files_are_in_flight_together(tmp_path):
    docs = folder(tmp_path)
    engine = GatedEngine()
    t0 = time.perf_counter()
    code, out, _ = parse(docs, 2, engine)
    assert code == 1 and engine.most == 2
    assert time.perf_counter() - t0 < 5  # the gate opened: nobody waited for its timeout

    one = GatedEngine()
    one.two.set()  # never wait: count only
    parse(docs, 1, one)
    assert one.most == 1


def test_workers_must_be_at_least_one(tmp_path):
    res = cli("parse", str(CORPUS / "docling__equations.docx"), "--workers", "0")
    assert res.exit_code == 2 and "--workers" in res.stderr
    res = cli("parse", str(CORPUS / "docling__equations.docx"), "--workers", "2")
    assert res.exit_code == 0 and res.stdout.strip()


def test_ctrl_c_with_workers_exits_130_and_keeps_the_finished_pages(tmp_path, monkeypatch):
    import json
    import os
    import signal

    from mineru_tui import interrupts

    docs = tmp_path / "in"
    docs.mkdir()
    for name in ("a.tif", "b.tif"):
        frames = [Image.new("RGB", (300, 400), "white") for _ in range(3)]
        frames[0].save(docs / name, save_all=True, append_images=frames[1:])
    engine = ScriptedEngine(lambda r: Answer(layout_line(100, 100, 900, 300, "text") if r.prompt == LAYOUT
                                             else "a long answer " * 5))
    layouts = lambda: sum(1 for c in engine.calls if c[0].prompt == LAYOUT)  # noqa: E731
    # Both files in flight before either goes on (the first two threads that stream wait for each
    # other): on a loaded machine one worker could otherwise read a whole file before the other
    # starts, and the interrupt at the 4th layout call would find a finished file.
    both_started, first_two, seen_lock = threading.Barrier(2), set(), threading.Lock()

    def on_token(ev):
        with seen_lock:
            wait = threading.get_ident() not in first_two and len(first_two) < 2
            first_two.add(threading.get_ident()) if wait else None
        if wait:
            both_started.wait(timeout=120)
        if layouts() == 4 and ev.n_generated == 3:
            os.kill(os.getpid(), signal.SIGINT)

    engine.on_token = on_token
    previous = signal.getsignal(signal.SIGINT)
    assert interrupts.install()
    monkeypatch.setattr(interrupts, "_received", None)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run([docs], Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine),
                                   workers=2), out, err)
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        interrupts._installed = False
    assert code == 130, err.getvalue()
    assert "interrupted: 0 of 2 files done" in err.getvalue()
    written = sorted((tmp_path / "out").glob("*/*_middle.json"))
    assert written, err.getvalue()  # finished pages of the files in flight are kept
    for path in written:
        assert 1 <= len(json.loads(path.read_text())["pdf_info"]) < 3
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".mineru-tui.")]
    assert engine.closed
