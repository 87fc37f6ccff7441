"""The one MathML → LaTeX converter (ODF formula objects, HTML, EPUB): names and layout."""

from __future__ import annotations

import pytest
from lxml import etree

from mineru_tui.office.mathml import mathml_to_latex

NS = "http://www.w3.org/1998/Math/MathML"


def xml(inner: str) -> str:
    """LaTeX of ``inner`` inside a namespaced ``math`` (as ODF and XHTML carry it)."""
    return mathml_to_latex(etree.fromstring(f'<math xmlns="{NS}">{inner}</math>'))


def html(inner: str) -> str:
    """LaTeX of ``inner`` as lxml's HTML parser gives it (no namespace)."""
    root = etree.fromstring(f"<html><body><math>{inner}</math></body></html>", etree.HTMLParser())
    return mathml_to_latex(root.find(".//math"))


@pytest.mark.parametrize("convert", [xml, html])
def test_function_names_latex_knows_become_commands(convert):
    assert convert("<mi>sin</mi><mo>\u2061</mo><mi>x</mi>") == r"\sin x"
    assert convert("<mi>log</mi><mi>n</mi>") == r"\log n"


@pytest.mark.parametrize("convert", [xml, html])
def test_other_function_names_are_operators_other_words_upright(convert):
    assert convert("<mi>sgn</mi><mo>\u2061</mo><mi>x</mi>") == r"\operatorname{sgn}x"
    assert convert("<mo>argmax</mo><mi>f</mi>") == r"\operatorname{argmax}f"
    assert convert("<mi>speed</mi><mo>=</mo><mn>3</mn>") == r"\mathrm{speed}=3"


@pytest.mark.parametrize("convert", [xml, html])
def test_layout_is_the_same_for_every_source(convert):
    assert convert("<munderover><mo>∑</mo><mi>i</mi><mi>n</mi></munderover>") == r"\sum_{i}^{n}"
    assert convert("<mover><mi>x</mi><mo>^</mo></mover>") == r"\hat{x}"
    assert convert('<mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac>') == r"\binom{n}{k}"
    assert convert("<mtext>a_b</mtext>") == r"\text{a\_b}"
    assert convert("<mstack><mn>12</mn><mn>3</mn></mstack>") == r"\begin{array}{r}12 \\ 3\end{array}"


def test_too_deep_markup_keeps_its_text():
    inner = "<mrow>" * 150 + "<mi>x</mi>" + "</mrow>" * 150
    assert xml(inner) == "x"
