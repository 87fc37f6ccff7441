"""The suite's one marker: ``slow``.

``pytest -m "not slow"`` runs the fast part (a couple of minutes on 2 cores); CI runs
everything. A test is slow when it starts real runtimes, servers, child processes or the
app under Textual's pilot; whole modules of such tests are listed here with the reason, and
single slow tests elsewhere carry ``@pytest.mark.slow`` themselves.
"""

from __future__ import annotations

import pytest

# module (path under tests/) -> why every test in it is slow
SLOW_MODULES = {
    "tui/test_tui.py": "the app under Textual's pilot, with reader processes",
    "tui/test_tui_snapshots.py": "the app rendered to SVG at two sizes",
    "tui/test_tui_terminal.py": "the app as a child process in a pseudo-terminal, killed",
    "engines/coreml/test_bundles.py": "builds Core ML programs with coremltools",
    "engines/coreml/test_bundles_verify.py": "builds and verifies Core ML bundles",
    "engines/coreml/test_bundles_hostile.py": "builds a Core ML bundle to damage",
    "engines/coreai/test_coreai_engine.py": "builds Core AI bundles and runs them on coreai-core's Linux runtime, parse processes",
    "engines/coreai/test_coreai_bundle.py": "builds and verifies Core AI bundles on the Linux runtime, CLI processes",
    "engines/coreai/test_coreai_port.py": "the port's fixed vision grids on the Linux runtime (a checker: ~5-15 s a page)",
    "engines/openvino/test_openvino_cli.py": "builds OpenVINO bundles and runs the CLI",
    "engines/openvino/test_openvino_bundle.py": "builds and compiles OpenVINO bundles",
    "engines/openvino/test_page_bench.py": "runs the page benchmarks from a clone",
    "engines/openvino/test_no_amx_bench.py": "compiles C probes, runs child processes as on a CPU without AMX",
    "servers/test_serve.py": "real serve processes on loopback",
    "servers/test_llama_cpp.py": "a real llama-server",
    "servers/test_engine_http.py": "HTTP engines against servers on loopback",
    "servers/test_engine_http_hostile.py": "hostile servers on loopback",
    "watch/test_watch_service.py": "the watcher with reader processes",
    "watch/test_watch_plain.py": "watch --plain as a child process",
    "cli/test_interrupts.py": "signals sent to parse processes at random moments",
    "cli/test_output_sets.py": "parse processes taking turns on one output folder",
    "cli/test_model.py": "mineru-tui processes against a hub on localhost",
    "pdf/test_pdfium_threads.py": "eight threads rendering one PDF, in a child process",
    "reader/test_journal.py": "parse children killed mid-file and resumed",
    "reader/test_pages_numpy.py": "the tiny model through the numpy engine, page by page",
    "document/test_mineru4_reader.py": "MinerU 4 itself (the mineru4-check extra) reading ~170 sets",
}


def pytest_collection_modifyitems(config, items):
    root = config.rootpath / "tests"
    for item in items:
        try:
            module = item.path.relative_to(root).as_posix()
        except ValueError:
            continue
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
