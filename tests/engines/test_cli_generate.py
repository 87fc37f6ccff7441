"""``mineru-tui generate``: the engine's command on the tiny checkpoint (output, knobs, errors)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from mineru_tui.cli import app
from mineru_tui.cli.generate import run_generate
from mineru_tui.engines.numpy import load_model
from mineru_tui.reader.tasks import TASKS
from tests import tiny_checkpoint as tc

NO_KNOBS = dict(no_repeat_ngram_size=None, presence_penalty=None, frequency_penalty=None, repetition_penalty=None)


@pytest.fixture(scope="module")
def model():
    return load_model(tc.TINY_DIR)


def _run(*args: str):
    return CliRunner().invoke(app, ["generate", *args])


def test_stdout_is_the_models_text_with_the_tasks_prompt_and_knobs(model):
    res = _run(str(tc.REF_PNG), "--model", str(tc.TINY_DIR), "-n", "8", "--task", "table", "-q")
    assert res.exit_code == 0, res.output
    table = TASKS["table"]
    want = model.generate(tc.REF_PNG, table.prompt, max_new_tokens=8,
                          presence_penalty=table.sampling.presence_penalty,
                          frequency_penalty=table.sampling.frequency_penalty)
    assert res.stdout == want.text + "\n"


def test_own_prompt_and_knob_overrides_change_the_request(model):
    out, err = io.StringIO(), io.StringIO()
    knobs = dict(NO_KNOBS, repetition_penalty=1.3)
    code = run_generate(tc.REF_PNG, "\nLayout Detection:", "text", str(tc.TINY_DIR), 6, knobs,
                        verbose=False, quiet=True, stdout=out, stderr=err)
    assert code == 0 and err.getvalue() == ""
    text = TASKS["text"].sampling
    want = model.generate(tc.REF_PNG, "\nLayout Detection:", max_new_tokens=6, repetition_penalty=1.3,
                          presence_penalty=text.presence_penalty, frequency_penalty=text.frequency_penalty)
    assert out.getvalue() == want.text + "\n"


def test_verbose_reports_stages_and_rate_on_stderr_only():
    out, err = io.StringIO(), io.StringIO()
    code = run_generate(tc.REF_PNG, None, "text", str(tc.TINY_DIR), 4, dict(NO_KNOBS),
                        verbose=True, quiet=False, stdout=out, stderr=err)
    assert code == 0
    lines = err.getvalue().splitlines()
    assert any(line.startswith("vision ") and "image tokens" in line for line in lines)
    assert any(line.startswith("prefill ") and "prompt tokens" in line for line in lines)
    assert "tok/s" in lines[-2] and "total" in lines[-2]
    assert lines[-1] == "note: stopped at --max-new-tokens (4 tokens)"
    assert "tok/s" not in out.getvalue() and "prefill" not in out.getvalue()


@pytest.mark.parametrize(
    "args, message",
    [
        (["MISSING.png"], "no such file"),
        ([str(tc.REF_JSON)], "image"),  # not an image
        ([str(tc.REF_PNG), "--prompt", "   "], "prompt is empty"),
        ([str(tc.REF_PNG), "--repetition-penalty", "0"], "repetition_penalty"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_1(args, message):
    res = _run(*args, "--model", str(tc.TINY_DIR), "-n", "2")
    assert res.exit_code == 1
    assert res.stdout == ""
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0].lower()


def test_a_missing_model_says_how_to_get_it(tmp_path, monkeypatch):
    """As `parse` says it: the model's size and `mineru-tui model fetch`, not the hub's
    connection error and `hf download` (the engine's words stay for -v)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    monkeypatch.delenv("MINERU_TUI_MODEL", raising=False)
    res = _run(str(tc.REF_PNG))
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines() == [
        "error: needs the MinerU2.5 model (2.3 GB, not downloaded yet): run `mineru-tui model fetch` once"]
    res = _run(str(tc.REF_PNG), "--model", "someone/not-downloaded")
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines() == [
        "error: needs the model someone/not-downloaded (not downloaded yet): run "
        "`mineru-tui model fetch --model someone/not-downloaded` once"]
    res = _run(str(tc.REF_PNG), "-v")
    assert "detail: " in res.stderr and "hf download" in res.stderr  # the cause, under -v
    res = _run(str(tc.REF_PNG), "--model", str(tmp_path))  # a directory that is no checkpoint
    assert res.exit_code == 1 and len(res.stderr.strip().splitlines()) == 1


def test_usage_errors_exit_2():
    assert _run(str(tc.REF_PNG), "-n", "0").exit_code == 2
    assert _run(str(tc.REF_PNG), "--task", "poem").exit_code == 2
    assert _run(str(tc.REF_PNG), "-v", "-q").exit_code == 2


def test_generate_help_starts_without_numpy():
    code = "import sys; from mineru_tui.cli import main; sys.argv=['mineru-tui','generate','--help']\n" \
           "try:\n    main()\nexcept SystemExit:\n    pass\nassert 'numpy' not in sys.modules and 'pydantic' not in sys.modules, 'heavy import'"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "--model" in res.stdout and "--task" in res.stdout


def test_cli_choices_and_default_follow_the_reader():
    """cli/generate.py takes the task names and the default model from engines/defaults.py (it
    must not import numpy at start-up); they have to stay those of reader/tasks.py and the
    numpy engine's checkpoint loader."""
    from mineru_tui.cli import generate
    from mineru_tui.engines.qwen2vl.checkpoint import DEFAULT_MODEL

    assert {t.value for t in generate.Task} == set(TASKS)
    res = _run("--help")
    assert res.exit_code == 0 and DEFAULT_MODEL in res.stdout


def test_generate_opens_the_engine_it_is_given(model, tmp_path, monkeypatch):
    """``generate`` goes through the engine interface as ``parse`` does: OpenVINO at f32 prints
    the numpy engine's text; an http engine with no server is one error line."""
    pytest.importorskip("openvino")
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    res = _run(str(tc.REF_PNG), "--model", str(tc.TINY_DIR), "-n", "8", "-q", "--engine", "openvino",
               "--precision", "f32")
    assert res.exit_code == 0, res.output
    text = TASKS["text"]
    want = model.generate(tc.REF_PNG, text.prompt, max_new_tokens=8, presence_penalty=text.sampling.presence_penalty,
                          frequency_penalty=text.sampling.frequency_penalty)
    assert res.stdout == want.text + "\n"
    res = _run(str(tc.REF_PNG), "--engine", "http", "--server-url", "http://127.0.0.1:9", "-n", "2")
    assert res.exit_code == 1 and res.stdout == ""
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
