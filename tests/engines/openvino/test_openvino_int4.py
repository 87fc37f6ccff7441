"""``precision=int4``: the decoder's layers in group-wise int4 (the lm_head and the vision tower
int8), its own bundle folder, reachable from the engine options and the command line; the
precisions are one list (the CLI's ``Precision`` and the runtime's table agree). Tiny checkpoint."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("openvino")

from mineru_tui.engines.openvino.ops import INT4_GROUP, quantize_int4  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402

IMG = str(tc.REF_PNG)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@functools.cache
def _int4_model():
    from mineru_tui.engines.openvino.bundle import open_openvino_model

    return open_openvino_model(str(tc.TINY_DIR), precision="int4")


def test_quantize_int4_groups_of_128_within_half_a_step():
    w = np.random.default_rng(0).standard_normal((6, 3 * INT4_GROUP)).astype(np.float32)
    w[2, :INT4_GROUP] = 0  # an all-zero group keeps a usable scale
    q, scale = quantize_int4(w)
    assert q.shape == (6, 3, INT4_GROUP) and scale.shape == (6, 3, 1)
    assert q.dtype == np.int8 and q.min() >= -8 and q.max() <= 7 and q.max() == 7
    back = (q * scale).reshape(w.shape)
    assert np.all(np.abs(back - w) <= scale.repeat(INT4_GROUP, axis=2).reshape(w.shape) / 2 + 1e-7)
    assert np.all(back[2, :INT4_GROUP] == 0)
    # an input size that is no multiple of 128: one group per row
    q, scale = quantize_int4(w[:, :100])
    assert q.shape == (6, 1, 100) and scale.shape == (6, 1, 1)


def test_int4_decoder_graph_has_int4_layers_and_an_int8_lm_head():
    import openvino as ov

    from mineru_tui.engines.openvino.text import build_text
    from mineru_tui.engines.numpy import load_model

    ck = load_model(tc.TINY_DIR).checkpoint
    model = build_text(ck.weights, ck.config.text, "int4")
    consts = [n for n in model.get_ops() if n.get_type_name() == "Constant"]
    i4 = [n for n in consts if n.get_element_type() == ov.Type.i4]
    i8 = [n for n in consts if n.get_element_type() == ov.Type.i8]
    assert len(i4) == 7 * ck.config.text.num_hidden_layers  # q, k, v, o, gate, up, down per layer
    assert len(i8) == 1 and list(i8[0].get_output_shape(0))[0] == ck.config.text.vocab_size  # the lm_head


def test_int4_runs_the_host_loop_and_has_its_own_bundle_folder():
    from mineru_tui.engines.openvino.bundle import openvino_bundle_dir

    results = _int4_model().generate_batch([(IMG, "\nText Recognition:"), (None, "Hello")], max_new_tokens=5)
    assert [len(r.token_ids) for r in results] == [5, 5] and all(r.finish_reason == "length" for r in results)
    assert openvino_bundle_dir(str(tc.TINY_DIR), "int4").name.endswith(".openvino-int4")
    assert openvino_bundle_dir(str(tc.TINY_DIR), "default").name.endswith(".openvino-int8")


def test_precisions_are_one_list_and_int4_is_reachable():
    from mineru_tui.engines.openvino.runtime import PRECISIONS
    from mineru_tui.cli.options import Precision, engine_fields, EngineName

    assert tuple(p.value for p in Precision) == PRECISIONS
    fields = engine_fields(EngineName.openvino, None, [], 0, precision="int4")
    assert ("precision", "int4") in fields["extra"]
    import typer

    with pytest.raises(typer.BadParameter, match="int4"):  # the message lists every choice
        engine_fields(EngineName.openvino, None, [], 0, precision="f16")


def test_int4_engine_through_open_engine():
    from mineru_tui.engines import EngineOptions, open_engine

    engine = open_engine(EngineOptions(engine="openvino", model=str(tc.TINY_DIR), extra=(("precision", "int4"),)))
    assert engine.name == "openvino"
