"""``mineru-tui bundle build|verify``: compiled bundles, Core ML, Core AI and OpenVINO (Typer sub-app).

Only Typer is imported here; numpy, coremltools and the model code load when a command runs,
so ``mineru-tui parse`` never pays for them.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

bundle_app = typer.Typer(
    name="bundle",
    help="Build and verify bundles of MinerU2.5: Core ML (--engine coreml on a Mac), Core AI (--engine coreai, macOS 27+) or OpenVINO (--engine openvino).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

from mineru_tui.cli.options import Precision, model_option  # noqa: E402  (Typer only)
from mineru_tui.engines.defaults import DEFAULT_MODEL  # noqa: E402  (imports nothing)

BUILD_HELP = """Convert a checkpoint to a Core ML, Core AI or OpenVINO bundle (no torch needed).

\b
A Core ML bundle (the default target, but on macOS 27+) is a folder: vision.mlpackage (fp16 vision tower, fixed patch
buckets), decoder.mlpackage (prefill / decode / embed sharing one copy of the
weights, fp16 KV cache as Core ML state) and manifest.json. --weights sets the
decoder's linear weights: int8 (default, per channel), int4 (per block of 32)
or fp16. Without --out it goes to the cache folder where --engine coreml looks
for it. Progress goes to stderr; the bundle's path is printed on stdout.
Full size takes minutes and about 7 GB of memory.

\b
--target openvino builds the OpenVINO bundle instead (vision.xml/.bin and
decoder.xml/.bin, OpenVINO IR; needs the openvino package): int8 weights per
output channel by default, --precision f32 for f32 weights (the exact mode).
It goes beside the Core ML bundle in the cache folder, where --engine
openvino looks for it.

\b
--target coreai builds the Core AI bundle (macOS 27+; needs coreai-core):
vision.aimodel (one function per bucket) and decoder.aimodel (prefill /
decode / embed, KV cache as state), --weights int8 or int4 per block of 32,
or fp16 (float weights in the --compute dtype). --compute fp16 is the Mac's
(default on macOS); f32 (default elsewhere) gives the numpy engine's tokens on
the Linux runtime. Default target: coreai on macOS 27+, else coreml.
"""

VERIFY_HELP = """Check a bundle against the numpy engine on the same request.

\b
Runs the built-in test page (or --image / --prompt) through both, the bundle
teacher-forced on the numpy engine's tokens, and prints the first differing
greedy token, the share of equal greedy tokens and the largest logit
difference. Exit 0 when an fp16 bundle matches every token, or a quantised one
stays within its measured agreement floor; 1 otherwise. On macOS the bundle
runs in Core ML; elsewhere its saved program is evaluated in numpy with
coremltools' own op implementations (slow: keep -n small at full size).
An OpenVINO bundle (--target openvino) runs in OpenVINO: f32 must match every
token, int8 stays within the int8 floor. A Core AI bundle runs on Core AI (the OS
framework on macOS 27, coreai-core's local runtime elsewhere): float bundles
must match every token, int8 / int4 stay within their floors.
"""


class Weights(str, Enum):
    int8 = "int8"
    int4 = "int4"
    fp16 = "fp16"


class Target(str, Enum):
    auto = "auto"
    coreml = "coreml"
    coreai = "coreai"
    openvino = "openvino"


class Compute(str, Enum):
    default = "default"
    f32 = "f32"
    bf16 = "bf16"
    fp16 = "fp16"


class Backend(str, Enum):
    auto = "auto"
    coreml = "coreml"
    evaluator = "evaluator"


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(1)


def _say(quiet: bool):
    """The progress printer (stderr), None when quiet."""
    return None if quiet else (lambda s: print(s, file=sys.stderr, flush=True))


@bundle_app.command("build", help=BUILD_HELP)
def build(
    model: Optional[str] = model_option(),
    out: Path | None = typer.Option(None, "--out", "-o", metavar="DIR",
                                       help="Bundle folder (default: the cache folder for this model)."),
    weights: Weights = typer.Option(Weights.int8, "--weights", "-w", help="Decoder linear weights."),
    context: int = typer.Option(4096, "--context", metavar="N", help="KV-cache slots per sequence."),
    chunk: int = typer.Option(64, "--chunk", metavar="N", help="Prompt tokens per prefill call."),
    buckets: str = typer.Option("256,576,1024,2304,4096,5476", "--buckets", metavar="N,N,...",
                                help="Vision patch buckets (multiples of 4; 5476 = the 1036x1036 layout page)."),
    target: Target = typer.Option(Target.auto, "--target",
                                  help="coreml, coreai or openvino (auto: coreai on macOS 27+, else coreml)."),
    compute: Compute = typer.Option(Compute.default, "--compute",
                                    help="coreai: activations and KV cache (default fp16 on macOS, f32 elsewhere)."),
    precision: Precision = typer.Option(Precision.default, "--precision",
                                        help="openvino: default (int8 weights), f32 or int4 (int4 decoder layers)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress lines."),
) -> None:
    if target is Target.auto:
        from mineru_tui.engines.coreai.engine import MIN_MACOS, macos_version

        mac = macos_version()
        target = Target.coreai if mac is not None and mac[0] >= MIN_MACOS else Target.coreml
    if target is Target.openvino:
        _build_openvino(model, out, precision.value, quiet)
        return
    try:
        sizes = [int(s) for s in buckets.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"{buckets!r} is not a comma-separated list of numbers", param_hint="--buckets") from None
    if target is Target.coreai:
        _build_coreai(model or DEFAULT_MODEL, out, weights.value, None if compute is Compute.default else compute.value,
                      context, chunk, sizes, quiet)
        return
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.bundle_files.locations import default_bundle_dir
    from mineru_tui.engines.errors import ModelError

    model = model or DEFAULT_MODEL
    target = out if out is not None else default_bundle_dir(model)
    try:
        from mineru_tui.engines.coreml.build import build_bundle

        build_bundle(model, target, weights=weights.value, context=context, prefill_chunk=chunk, buckets=sizes,
                     progress=_say(quiet))
    except (BundleError, ModelError) as e:
        _fail(str(e))
    except MemoryError:
        _fail("out of memory while building the bundle (full size needs about 7 GB free)")
    print(target)


def _build_openvino(model: str, out: Path | None, precision: str, quiet: bool) -> None:
    import importlib.util

    if importlib.util.find_spec("openvino") is None:
        _fail("--target openvino needs the openvino package (pip install openvino)")
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.openvino.bundle import build_openvino_bundle, openvino_bundle_dir
    from mineru_tui.engines.errors import ModelError

    target = out if out is not None else openvino_bundle_dir(model, precision)
    try:
        build_openvino_bundle(model, target, precision=precision, progress=_say(quiet))
    except (BundleError, ModelError) as e:
        _fail(str(e))
    except MemoryError:
        _fail("out of memory while building the OpenVINO bundle")
    print(target)


def _build_coreai(model: str, out: Path | None, weights: str, compute: str | None, context: int, chunk: int,
                  sizes: list[int], quiet: bool) -> None:
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.coreai.authoring import MISSING, installed
    from mineru_tui.engines.errors import ModelError

    if not installed():
        _fail(MISSING)
    from mineru_tui.engines.coreai.build import build_coreai_bundle, coreai_bundle_dir

    target = out if out is not None else coreai_bundle_dir(model)
    try:
        build_coreai_bundle(model, target, weights=weights, compute=compute, context=context, prefill_chunk=chunk,
                            buckets=sizes, progress=_say(quiet))
    except (BundleError, ModelError) as e:
        _fail(str(e))
    except MemoryError:
        _fail("out of memory while building the Core AI bundle")
    print(target)


@bundle_app.command("verify", help=VERIFY_HELP, no_args_is_help=True)
def verify(
    bundle: Path = typer.Argument(..., metavar="BUNDLE", help="Bundle folder."),
    model: Optional[str] = model_option(),
    image: Path | None = typer.Option(None, "--image", "-i", metavar="FILE",
                                         help="Page image or crop (default: a built-in test page)."),
    prompt: str = typer.Option("\nText Recognition:", "--prompt", "-p", help="Prompt text."),
    tokens: int = typer.Option(16, "--max-new-tokens", "-n", metavar="N", help="Tokens to compare."),
    backend: Backend = typer.Option(Backend.auto, "--backend",
                                    help="coreml (macOS), evaluator (numpy, any OS) or auto."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress lines."),
) -> None:
    if tokens < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--max-new-tokens")
    from mineru_tui.engines import reference_model
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.errors import ImageError, ModelError, PromptError

    try:
        from mineru_tui.engines.openvino.bundle import is_openvino_bundle

        if is_openvino_bundle(bundle):
            from mineru_tui.engines.openvino.verify import verify_openvino_bundle

            report = verify_openvino_bundle(bundle, model, reference=lambda: reference_model(model), image=image,
                                            prompt=prompt,
                                            max_new_tokens=tokens, progress=_say(quiet))
            for line in report.lines():
                print(line)
            raise typer.Exit(0 if report.passed else 1)
        from mineru_tui.engines.coreai.manifest import is_coreai_bundle

        if is_coreai_bundle(bundle):
            from mineru_tui.engines.coreai.authoring import MISSING, installed

            if not installed():
                _fail(MISSING)
            from mineru_tui.engines.coreai.verify import verify_coreai_bundle

            report = verify_coreai_bundle(bundle, model, reference=reference_model, image=image, prompt=prompt,
                                          max_new_tokens=tokens, progress=_say(quiet))
            for line in report.lines():
                print(line)
            raise typer.Exit(0 if report.passed else 1)
        from mineru_tui.engines.coreml.verify import verify_bundle

        report = verify_bundle(bundle, model or DEFAULT_MODEL, reference=lambda: reference_model(model or DEFAULT_MODEL),
                               image=image, prompt=prompt, max_new_tokens=tokens,
                               backend=backend.value, progress=_say(quiet))
    except (BundleError, ModelError, ImageError, PromptError) as e:
        _fail(str(e))
    for line in report.lines():
        print(line)
    raise typer.Exit(0 if report.passed else 1)
