"""``--engine auto`` per platform (the platform faked): Core AI on macOS 27+ with a Core AI
bundle, Core ML on a Mac with a Core ML bundle, then OpenVINO, then numpy; ``-v`` says which and
why. And coreai-core stays unimported unless Core AI is asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mineru_tui.engines import EngineOptions, auto_choice

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def platform_(monkeypatch, tmp_path):
    """Fake the OS: ``set(system, version)``; a Core AI bundle folder at tmp_path/bundle."""
    import platform

    import mineru_tui.engines.coreai.authoring as authoring
    import mineru_tui.engines.coreml.engine as coreml
    import mineru_tui.engines.openvino.engine as ov

    state = {"coreml": False}
    monkeypatch.setattr(authoring, "installed", lambda: True)
    monkeypatch.setattr(coreml, "available_for", lambda options: state["coreml"])
    monkeypatch.setattr(ov, "installed", lambda: True)

    def set_(system: str, version: str = "", coreml_bundle: bool = False):
        monkeypatch.setattr(sys, "platform", system)
        monkeypatch.setattr(platform, "mac_ver", lambda: (version, ("", "", ""), "arm64"))
        state["coreml"] = coreml_bundle

    return set_


def _with_bundle(tmp_path, kind: str) -> EngineOptions:
    b = tmp_path / kind
    b.mkdir()
    if kind == "ours":
        (b / "manifest.json").write_text('{"format": "mineru-tui-coreai-bundle"}')
    elif kind == "port":
        (b / "decoder").mkdir()
        (b / "decoder" / "metadata.json").write_text("{}")
        (b / "vision").mkdir()
    return EngineOptions(extra=(("bundle", str(b)),))


@pytest.mark.parametrize("kind", ["ours", "port"])
def test_macos_27_with_a_coreai_bundle_picks_coreai(platform_, tmp_path, kind):
    platform_("darwin", "27.0", coreml_bundle=True)
    name, why = auto_choice(_with_bundle(tmp_path, kind))
    assert name == "coreai" and "macOS 27" in why


def test_macos_27_without_a_coreai_bundle_falls_back(platform_, tmp_path):
    platform_("darwin", "27.1", coreml_bundle=True)
    assert auto_choice(_with_bundle(tmp_path, "empty"))[0] == "coreml"
    platform_("darwin", "27.1", coreml_bundle=False)
    name, why = auto_choice(EngineOptions(extra=(("bundle", str(tmp_path / "nothing")),)))
    assert name == "openvino" and "no Core AI bundle" in why


@pytest.mark.parametrize("version", ["15.4", "26.2"])
def test_macos_15_to_26_uses_core_ml_even_with_a_coreai_bundle(platform_, tmp_path, version):
    platform_("darwin", version, coreml_bundle=True)
    assert auto_choice(_with_bundle(tmp_path, "ours"))[0] == "coreml"


def test_linux_never_picks_coreai(platform_, tmp_path, monkeypatch):
    import mineru_tui.engines.openvino.engine as ov

    platform_("linux")
    name, why = auto_choice(_with_bundle(tmp_path, "ours"))
    assert name == "openvino" and "Core AI needs macOS 27+" in why
    monkeypatch.setattr(ov, "installed", lambda: False)
    assert auto_choice(EngineOptions())[0] == "numpy"


def test_coreai_needs_its_package(platform_, tmp_path, monkeypatch):
    import mineru_tui.engines.coreai.authoring as authoring

    platform_("darwin", "27.0")
    monkeypatch.setattr(authoring, "installed", lambda: False)
    name, why = auto_choice(_with_bundle(tmp_path, "ours"))
    assert name == "openvino" and "coreai-core is not installed" in why


def test_bundle_build_picks_the_target_that_fits_the_os(platform_, monkeypatch, tmp_path):
    """``bundle build`` without --target: coreai on macOS 27+, coreml before (and elsewhere)."""
    import mineru_tui.cli.bundle as cli_bundle

    seen = []
    monkeypatch.setattr(cli_bundle, "_build_coreai", lambda *a, **k: seen.append("coreai"))
    import mineru_tui.engines.coreml.build as coreml_build

    monkeypatch.setattr(coreml_build, "build_bundle", lambda *a, **k: seen.append("coreml"))
    from typer.testing import CliRunner

    for system, version in (("darwin", "27.0"), ("darwin", "26.1"), ("linux", "")):
        platform_(system, version)
        r = CliRunner().invoke(cli_bundle.bundle_app, ["build", "--out", str(tmp_path / "b"), "-q"])
        assert r.exit_code == 0, r.output
    assert seen == ["coreai", "coreml", "coreml"]


_PROBE = """
import sys
sys.argv = ['mineru-tui'] + sys.argv[1:]
from mineru_tui.cli import main
try:
    main()
except SystemExit:
    pass
print("COREAI", sorted(m for m in sys.modules if m == "coreai" or m.startswith("coreai.")), file=sys.stderr)
"""


def _loaded(*args, cwd) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", MINERU_TUI_CACHE=str(cwd / "cache"),
               MINERU_TUI_MAX_NEW_TOKENS="2")
    r = subprocess.run([sys.executable, "-c", _PROBE, *map(str, args)], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
    return [ln for ln in r.stderr.splitlines() if ln.startswith("COREAI")][-1], r.stderr


@pytest.mark.slow  # parse processes loading the tiny model
def test_parse_imports_coreai_only_when_asked(tmp_path):
    from PIL import Image

    from tests import tiny_checkpoint as tc

    Image.new("RGB", (64, 64), "white").save(tmp_path / "p.png")
    line, err = _loaded("parse", ROOT / "examples" / "sample.docx", cwd=tmp_path)
    assert line == "COREAI []", err
    line, err = _loaded("parse", "-v", tmp_path / "p.png", "--model", tc.TINY_DIR, cwd=tmp_path)
    assert line == "COREAI []", err  # auto on Linux looked for Core AI without importing it
    assert "engine: auto picked" in err and "Core AI needs macOS 27+" in err


def test_bundle_option_on_parse_and_watch_and_a_missing_package_is_one_line(monkeypatch):
    from typer.testing import CliRunner

    import mineru_tui.engines.coreai.authoring as authoring
    from mineru_tui.cli import app
    from mineru_tui.engines import EngineError, open_engine

    for command in ("parse", "watch"):
        r = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and "--bundle" in r.output and "coreai" in r.output
    monkeypatch.setattr(authoring, "installed", lambda: False)
    with pytest.raises(EngineError, match=r"pip install 'mineru-tui\[coreai\]'") as e:
        open_engine(EngineOptions(engine="coreai"))
    assert "\n" not in str(e.value)


def test_device_names_the_preferred_compute_unit(monkeypatch, tmp_path):
    """``--device NPU`` on --engine coreai asks for the Neural Engine (macOS 27); ``compute`` wins."""
    import mineru_tui.engines.coreai.authoring as authoring
    import mineru_tui.engines.coreai.engine as engine
    import mineru_tui.engines.coreai.model as model

    seen = []
    monkeypatch.setattr(authoring, "installed", lambda: True)
    monkeypatch.setattr(model, "open_coreai_model", lambda bundle, spec, preference, vision_fallback=None: seen.append(preference))
    (tmp_path / "manifest.json").write_text("{}")  # opened by the (replaced) model loader only
    for extra in ((("device", "NPU"),), (("device", "GPU"),), (), (("device", "NPU"), ("compute", "cpu"))):
        engine.open_engine(EngineOptions(engine="coreai", extra=extra + (("bundle", str(tmp_path)),)))
    assert seen == ["neural-engine", "gpu", "default", "cpu"]


def test_a_coreai_py_beside_the_script_does_not_hide_the_package(tmp_path):
    """bench/coreai.py sits first on sys.path of every script run from bench/ (bench/pages.py
    opening the coreai engine): the package is still found."""
    pytest.importorskip("coreai.runtime")
    (tmp_path / "coreai.py").write_text("raise SystemExit('the shadow was imported')\n")
    (tmp_path / "script.py").write_text(
        "from mineru_tui.engines.coreai.authoring import installed, runtime\n"
        "assert installed()\nprint(runtime().__name__)\n")
    r = subprocess.run([sys.executable, str(tmp_path / "script.py")], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "coreai.runtime", r.stderr
