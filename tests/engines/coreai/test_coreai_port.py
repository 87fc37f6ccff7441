"""The MinerU2.5-Pro Core AI port's folder layout through ``--engine coreai --bundle DIR``,
tested on a tiny bundle our builder writes with the identical interface (``vision/``,
``decoder/``, ``layout/{vision,decoder}/``, ``tokenizer/``; decoder functions ``main`` +
``prefill`` over ids, the position ramp, image embeds and the rope shift; dynamic-length
``keyCache``/``valueCache`` states; the fixed 672×896 and 1036² grids), on the local runtime.
An image already at a port grid gets the numpy engine's tokens in f32."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("coreai.runtime")

from mineru_tui.engines import EngineOptions, open_engine  # noqa: E402
from mineru_tui.engines.base import Request  # noqa: E402
from mineru_tui.engines.events import SequenceDone  # noqa: E402
from mineru_tui.engines.params import SamplingParams  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402
from tests.engines.coreai.coreai_bundles import _ROOT, use_session_cache  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GREEDY = SamplingParams(no_repeat_ngram_size=0)


@pytest.fixture(scope="module")
def port_bundle() -> Path:
    from mineru_tui.engines.coreai.port_build import build_port_layout

    use_session_cache()
    out = _ROOT / "port"
    if not out.exists():
        build_port_layout(str(tc.TINY_DIR), out, context=2048)
    return out


def test_the_layout_and_contract(port_bundle):
    from mineru_tui.engines.coreai.port import is_port_layout
    from mineru_tui.engines.coreai.runner import CoreAIRunner

    assert is_port_layout(port_bundle)
    for folder in ("", "layout"):
        base = port_bundle / folder
        meta = json.loads((base / "decoder" / "metadata.json").read_text())
        assert meta["kind"] == "llm" and meta["language"]["function_map"] == {"main": ["main", "prefill"]}
        dec = CoreAIRunner(base / "decoder" / meta["assets"]["main"]).desc
        assert sorted(dec) == ["main", "prefill"]
        assert dec["prefill"].input_names == ["input_ids", "position_ids", "image_embeds", "rope_shift_start",
                                              "rope_shift_amount"]
        assert list(dec["prefill"].input_descriptor("input_ids").shape) == [1, 64]
        state = dec["main"].state_descriptor("keyCache").shape
        assert state[:3] == [2, 1, 2] and state[3] in (None, -1)  # the host chooses the cache length
    assert (port_bundle / "tokenizer" / "tokenizer.json").is_file()


def _tokens(engine, items, n=10):
    reqs = [Request(img, p, GREEDY, max_new_tokens=n) for img, p in items]
    done = {e.seq_index: e.result.token_ids for e in engine.stream(reqs) if isinstance(e, SequenceDone)}
    return [done[i] for i in range(len(reqs))]


def test_an_image_at_the_recognition_grid_gets_the_numpy_engines_tokens(port_bundle):
    from PIL import Image

    use_session_cache()
    page = Image.open(tc.REF_PNG).convert("RGB").resize((672, 896))  # already the port's grid: no letterbox
    items = [(page, "\nText Recognition:"), (None, "hello world")]
    ref = open_engine(EngineOptions(engine="numpy", model=str(tc.TINY_DIR)))
    eng = open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR), extra=(("bundle", str(port_bundle)),)))
    try:
        assert _tokens(eng, items) == _tokens(ref, items)
        # another size is letterboxed into the grid: it reads (its tokens are the port's, not numpy's)
        small = Image.open(tc.REF_PNG).convert("RGB")
        got = _tokens(eng, [(small, "\nTable Recognition:")], n=4)
        assert len(got[0]) == 4
    finally:
        eng.close()
        ref.close()


def test_letterbox_and_stretch():
    from PIL import Image

    from mineru_tui.engines.coreai.port import fit_to_grid
    from mineru_tui.engines.coreai.port_build import GRIDS

    wide = Image.new("RGB", (400, 100), "black")
    boxed = fit_to_grid(wide, "\nText Recognition:", GRIDS)
    assert boxed.size == (672, 896)
    assert boxed.getpixel((336, 448)) == (0, 0, 0) and boxed.getpixel((336, 10)) == (255, 255, 255)
    assert fit_to_grid(wide, "\nLayout Detection:", GRIDS).size == (1036, 1036)


def test_parse_reads_a_page_through_the_port_layout(tmp_path, port_bundle):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(tmp_path / "scan.png")
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS="4", HF_HUB_OFFLINE="1",
               MINERU_TUI_CACHE=os.environ["MINERU_TUI_CACHE"])
    outs = {}
    for name, extra in (("coreai", ("--bundle", port_bundle)), ("numpy", ())):
        r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", "scan.png", "-o", name, "--engine", name,
                            "--model", str(tc.TINY_DIR), *map(str, extra)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "" and "Traceback" not in r.stderr and "ODIE" not in r.stderr
        outs[name] = json.loads((tmp_path / name / "scan" / "scan_model.json").read_text())
    assert outs["coreai"]["engine"] == "coreai"
    # the reader hands the layout stage a 1036x1036 page: the port's layout grid, so numpy's answer
    assert [p["layout"] for p in outs["coreai"]["pages"]] == [p["layout"] for p in outs["numpy"]["pages"]]
    assert all(p["layout"]["answer"] for p in outs["coreai"]["pages"])


def test_on_macos_a_compiled_aimodelc_for_this_mac_is_tried_first(tmp_path, monkeypatch):
    """The port ships ``.aimodelc`` compiled per Mac architecture; one for another Mac raises on
    load and the next is tried, then the ``.aimodel`` (the OS framework faked)."""
    import mineru_tui.engines.coreai.runner as runner
    from mineru_tui.engines.coreai.port import load_runner

    folder = tmp_path / "decoder"
    for name in ("decoder.aimodel", "decoder.h16c.aimodelc", "decoder.h18p.aimodelc"):
        (folder / name).mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"assets": {"main": "decoder.aimodel"}}))
    tried = []

    class FakeRunner:
        def __init__(self, path, functions, preference):
            tried.append(path.name)
            if path.name != "decoder.h18p.aimodelc":
                raise RuntimeError("built for another architecture")

    monkeypatch.setattr(runner, "CoreAIRunner", FakeRunner)
    monkeypatch.setattr(runner, "os_framework", lambda: True)
    load_runner(folder, ["main"], "default")
    assert tried == ["decoder.h16c.aimodelc", "decoder.h18p.aimodelc"]
    monkeypatch.setattr(runner, "os_framework", lambda: False)  # Linux: only the .aimodel
    tried.clear()
    with pytest.raises(RuntimeError):
        load_runner(folder, ["main"], "default")
    assert tried == ["decoder.aimodel"]


def test_a_folder_in_the_layout_with_another_decoder_is_refused_in_one_line(tmp_path, port_bundle):
    import shutil

    from mineru_tui.engines import EngineError
    from tests.engines.coreai.coreai_bundles import tiny_coreai_bundle

    use_session_cache()
    b = tmp_path / "port"
    shutil.copytree(port_bundle, b)
    shutil.rmtree(b / "decoder" / "decoder.aimodel")
    shutil.copytree(tiny_coreai_bundle() / "decoder.aimodel", b / "decoder" / "decoder.aimodel")  # our contract
    with pytest.raises(EngineError, match="no function 'main' in the asset") as e:
        open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR), extra=(("bundle", str(b)),)))
    assert "\n" not in str(e.value)


def test_a_decoder_without_the_ports_inputs_is_refused_in_one_line(tmp_path, port_bundle):
    import shutil

    import numpy as np
    from coreai.authoring import AIProgram, Module

    from mineru_tui.engines import EngineError
    from mineru_tui.engines.coreai.ops import define_graph

    use_session_cache()
    b = tmp_path / "port"
    shutil.copytree(port_bundle, b)
    shutil.rmtree(b / "decoder" / "decoder.aimodel")
    mod = Module.create()
    with mod:  # main + prefill, but taking embeddings instead of ids
        for name in ("main", "prefill"):
            define_graph(name, [("inputs_embeds", (1, 4), np.float32)], [("logits", (1, 4), np.float32)],
                         lambda x: [x])
    AIProgram(mod).save_asset(b / "decoder" / "decoder.aimodel")
    with pytest.raises(EngineError, match="not the port's decoder .no input 'input_ids'") as e:
        open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR), extra=(("bundle", str(b)),)))
    assert "\n" not in str(e.value)
