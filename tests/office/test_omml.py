"""OMML → LaTeX: one test per construct on hand-written OMML, plus Docling's equations.docx."""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree
from xml.sax.saxutils import escape

from mineru_tui.office.omml import omml_to_latex

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_M = "{%s}" % M_NS
CORPUS = Path(__file__).parents[1] / "corpus" / "office"


# --- helpers ---------------------------------------------------------------------------


def math(inner: str, tag: str = "oMath") -> etree._Element:
    return etree.fromstring(f'<m:{tag} xmlns:m="{M_NS}" xmlns:w="{W_NS}">{inner}</m:{tag}>')


def r(text: str, rpr: str = "") -> str:
    """An m:r run; ``rpr`` is the inside of m:rPr."""
    props = f"<m:rPr>{rpr}</m:rPr>" if rpr else ""
    return f'<m:r>{props}<w:rPr><w:rFonts w:ascii="Cambria Math"/></w:rPr><m:t xml:space="preserve">{escape(text)}</m:t></m:r>'


def el(name: str, *children: str, **props: str | None) -> str:
    """An OMML element with an optional ``<name>Pr`` holding ``prop`` elements (m:val=value)."""
    pr = ""
    if props:
        items = "".join(
            f"<m:{k}/>" if v is None else f'<m:{k} m:val="{escape(v, {chr(34): "&quot;"})}"/>' for k, v in props.items()
        )
        pr = f"<m:{name}Pr>{items}<m:ctrlPr><w:rPr><w:i/></w:rPr></m:ctrlPr></m:{name}Pr>"
    return f"<m:{name}>{pr}{''.join(children)}</m:{name}>"


def e(*children: str) -> str:
    return el("e", *children)


def conv(inner: str) -> str:
    latex = omml_to_latex(math(inner))
    assert_valid(latex)
    return latex


def assert_valid(latex: str) -> None:
    """Balanced braces, \\left/\\right and environments; latex2mathml parses it when installed."""
    depth = 0
    escaped = False
    for c in latex:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            assert depth >= 0, latex
    assert depth == 0, latex
    assert len(re.findall(r"\\left(?![a-z])", latex)) == len(re.findall(r"\\right(?![a-z])", latex)), latex
    assert re.findall(r"\\begin\{(\w+)\}", latex) == re.findall(r"\\end\{(\w+)\}", latex)[::-1] or \
        sorted(re.findall(r"\\begin\{(\w+)\}", latex)) == sorted(re.findall(r"\\end\{(\w+)\}", latex)), latex
    try:
        from latex2mathml.converter import convert
    except ImportError:
        return
    if not latex:
        return
    # latex2mathml cannot read \genfrac with empty delimiters (valid amsmath): check the \binom shape.
    convert(latex.replace(r"\genfrac{}{}{0pt}{}", r"\binom"))


def squash(latex: str) -> str:
    return re.sub(r"\s+", "", latex)


# --- runs, text and symbols ---------------------------------------------------------------


def test_plain_run_and_command_spacing():
    assert conv(r("A=πr")) == r"A=\pi r"
    assert conv(r("2×3")) == r"2\times 3"
    assert conv(r("x≤y≠z")) == r"x\leq y\neq z"


def test_adjacent_runs_of_one_style_merge():
    assert conv(r("gro") + r("up ") + r("text")) == r"group\ text"


def test_greek_and_operators():
    assert conv(r("αβΓΔεϵφϕ")) == r"\alpha\beta\Gamma\Delta\varepsilon\epsilon\varphi\phi"
    assert conv(r("∀x∈ℝ: x→∞, ∂f/∂x ± ∇g")) == r"\forall x\in\mathbb{R}:x\rightarrow\infty,\partial f/\partial x\pm\nabla g"
    assert conv(r("a⋅b∘c−d")) == r"a\cdot b\circ c-d"
    assert conv(r("A⊆B∪C∩D")) == r"A\subseteq B\cup C\cap D"


def test_latex_specials_in_math_text_are_escaped():
    assert conv(r("{a}%&#_$")) == r"\{a\}\%\&\#\_\$"
    assert conv(r("a\\b~c^d")) == r"a\backslash b\sim c\hat{}d"


def test_math_alphanumerics_and_letterlike():
    assert conv(r("𝐀𝐛")) == r"\mathbf{A}\mathbf{b}"
    assert conv(r("𝑥𝔸𝓛𝔤𝖠𝚊")) == r"x\mathbb{A}\mathcal{L}\mathfrak{g}\mathsf{A}\mathtt{a}"
    assert conv(r("𝛼𝜶𝟏")) == r"\alpha\boldsymbol{\alpha}\mathbf{1}"
    assert conv(r("ℕℤℚℂℋℜ")) == r"\mathbb{N}\mathbb{Z}\mathbb{Q}\mathbb{C}\mathcal{H}\Re"


def test_run_styles():
    assert conv(r("d", '<m:sty m:val="p"/>') + r("x")) == r"\mathrm{d}x"
    assert conv(r("v2", '<m:sty m:val="b"/>')) == r"\mathbf{v}\mathbf{2}"
    assert conv(r("vα", '<m:sty m:val="bi"/>')) == r"\boldsymbol{v}\boldsymbol{\alpha}"
    assert conv(r("R", '<m:scr m:val="double-struck"/>')) == r"\mathbb{R}"
    assert conv(r("L", '<m:scr m:val="script"/>')) == r"\mathcal{L}"
    assert conv(r("g", '<m:scr m:val="fraktur"/>')) == r"\mathfrak{g}"
    assert conv(r("x", '<m:scr m:val="sans-serif"/>')) == r"\mathsf{x}"
    assert conv(r("x1", '<m:scr m:val="monospace"/>')) == r"\mathtt{x}\mathtt{1}"


def test_upright_function_names_in_runs():
    assert conv(r("sin", '<m:sty m:val="p"/>') + r("x")) == r"\sin x"
    assert conv(r("sin") + r("x")) == "sinx"  # italic letters are variables, not a function


def test_normal_text_runs():
    assert conv(r("s", "<m:nor/>")) == r"\mathrm{s}"
    assert conv(r("if x>0", "<m:nor/>")) == r"\text{if x>0}"
    assert conv(r("50% & $", "<m:nor/>")) == r"\text{50\% \& \$}"
    text_run = '<m:r><w:t xml:space="preserve">a b</w:t></m:r>'
    assert conv(r("x") + text_run) == r"x\text{a b}"


def test_word_runs_inside_math_are_text():
    assert conv(r("x=") + '<w:r><w:t>speed_1</w:t></w:r>') == r"x=\text{speed\_1}"


def test_spaces():
    assert conv(r("a") + r("  ") + r("b")) == r"a\quad b"
    assert conv(r("a = b")) == "a=b"
    assert conv(r("a\u2009b\u2003c\u2062d")) == r"a\,b\quad cd"


def test_foreign_letters_and_combining_accents():
    assert conv(r("速度=v")) == r"\text{速度}=v"
    assert conv(r("x\u0302")) == r"\hat{x}"


# --- fractions, scripts, radicals ------------------------------------------------------------


def test_fractions():
    num, den = el("num", r("a+1")), el("den", r("b"))
    assert conv(el("f", num, den)) == r"\frac{a+1}{b}"
    assert conv(el("f", num, den, type="bar")) == r"\frac{a+1}{b}"
    assert conv(el("f", num, den, type="lin")) == r"{a+1}/b"
    assert conv(el("f", num, den, type="skw")) == r"{a+1}/b"
    assert conv(el("f", num, den, type="noBar")) == r"\genfrac{}{}{0pt}{}{a+1}{b}"


def test_binomial_is_a_nobar_fraction_in_parentheses():
    frac = el("f", el("num", r("n")), el("den", r("k")), type="noBar")
    assert conv(el("d", e(frac))) == r"\binom{n}{k}"


def test_scripts():
    base = e(r("x"))
    assert conv(el("sSup", base, el("sup", r("2")))) == "x^{2}"
    assert conv(el("sSub", base, el("sub", r("i")))) == "x_{i}"
    assert conv(el("sSubSup", base, el("sub", r("i")), el("sup", r("2")))) == "x_{i}^{2}"
    assert conv(el("sPre", el("sub", r("1")), el("sup", r("2")), e(r("U")))) == "{}_{1}^{2}U"


def test_nested_scripts_get_braces_and_primes_stay_primes():
    inner = el("sSup", e(r("x")), el("sup", r("2")))
    assert conv(el("sSup", e(inner), el("sup", r("3")))) == "{x^{2}}^{3}"
    assert conv(el("sSub", e(inner), el("sub", r("i")))) == "{x^{2}}_{i}"
    assert conv(el("sSup", e(r("f")), el("sup", r("′")))) == "f'"
    assert conv(el("sSup", e(r("f")), el("sup", r("′′"))) + r("(x)")) == "f''(x)"
    assert conv(el("sSup", e(r("x")), el("sup", r("2"))) + r("′")) == "x^{2}{}'"
    assert conv(el("sSubSup", e(r("x")), el("sub", r("1")), el("sup", r("′")))) == r"x_{1}^{\prime}"


def test_empty_script_parts():
    assert conv(el("sSup", e(), el("sup", r("2")))) == "{}^{2}"
    assert conv(el("sSub", e(r("x")), el("sub"))) == "x"
    assert conv(el("sPre", el("sub"), el("sup"), e(r("U")))) == "U"


def test_radicals():
    assert conv(el("rad", el("deg"), e(r("x")), degHide="1")) == r"\sqrt{x}"
    assert conv(el("rad", el("deg", r("3")), e(r("x")))) == r"\sqrt[3]{x}"
    assert conv(el("rad", el("deg", r("3")), e(r("x")), degHide="1")) == r"\sqrt{x}"
    assert conv(el("rad", e(r("x+1")))) == r"\sqrt{x+1}"


# --- n-ary operators ---------------------------------------------------------------------


def test_nary_sum_and_default_integral():
    sub, sup = el("sub", r("i=1")), el("sup", r("n"))
    assert conv(el("nary", sub, sup, e(r("i")), chr="∑")) == r"\sum_{i=1}^{n}i"
    assert conv(el("nary", el("sub", r("a")), el("sup", r("b")), e(r("f")))) == r"\int_{a}^{b}f"
    assert conv(el("nary", el("sub"), el("sup"), e(r("x")), chr="∏", subHide="1", supHide="1")) == r"\prod x"


def test_nary_limit_location_only_when_not_latex_default():
    args = (el("sub", r("0")), el("sup", r("1")), e(r("x")))
    assert conv(el("nary", *args, chr="∫", limLoc="undOvr")) == r"\int\limits_{0}^{1}x"
    assert conv(el("nary", *args, chr="∑", limLoc="subSup")) == r"\sum\nolimits_{0}^{1}x"
    assert conv(el("nary", *args, chr="∑", limLoc="undOvr")) == r"\sum_{0}^{1}x"
    assert conv(el("nary", *args, chr="∬", limLoc="subSup")) == r"\iint_{0}^{1}x"


def test_nary_operator_characters():
    def op(ch: str) -> str:
        return conv(el("nary", el("sub", r("k")), el("sup"), e(r("A")), chr=ch))

    assert op("⋃") == r"\bigcup_{k}A"
    assert op("⋂") == r"\bigcap_{k}A"
    assert op("∮") == r"\oint_{k}A"
    assert op("∭") == r"\iiint_{k}A"
    assert op("⨁") == r"\bigoplus_{k}A"
    assert op("★") == r"\mathop{\bigstar}_{k}A"


# --- delimiters and matrices -----------------------------------------------------------------


def test_delimiters():
    assert conv(el("d", e(r("x")))) == r"\left(x\right)"
    assert conv(el("d", e(r("x")), begChr="[", endChr="]")) == r"\left[x\right]"
    assert conv(el("d", e(r("x")), begChr="{", endChr="}")) == r"\left\{x\right\}"
    assert conv(el("d", e(r("x")), begChr="⟨", endChr="⟩")) == r"\left\langle x\right\rangle"
    assert conv(el("d", e(r("x")), begChr="⌊", endChr="⌋")) == r"\left\lfloor x\right\rfloor"
    assert conv(el("d", e(r("x")), begChr="‖", endChr="‖")) == r"\left\|x\right\|"


def test_delimiter_missing_side_and_separators():
    assert conv(el("d", e(r("x")), begChr="{", endChr="")) == r"\left\{x\right."
    assert conv(el("d", e(r("x")), begChr="", endChr="|")) == r"\left.x\right|"
    assert conv(el("d", e(r("a")), e(r("b")))) == r"\left(a|b\right)"
    assert conv(el("d", e(r("a")), e(r("b")), sepChr=",")) == r"\left(a,b\right)"
    assert conv(el("d", e(r("x")), grow="0")) == "(x)"
    # a character property without m:val carries nothing: the default applies
    assert conv('<m:d><m:dPr><m:begChr m:val="{"/><m:endChr/></m:dPr>' + e(r("x")) + "</m:d>") == r"\left\{x\right)"
    assert conv(el("rad", el("deg", r("3")), e(r("x")), degHide=None)) == r"\sqrt{x}"


def matrix(*rows: list[str], mpr: str = "") -> str:
    body = "".join("<m:mr>" + "".join(e(r(c)) for c in row) + "</m:mr>" for row in rows)
    return f"<m:m>{mpr}{body}</m:m>"


def test_matrices():
    mat = matrix(["a", "b"], ["c", "d"])
    assert conv(mat) == r"\begin{matrix}a & b \\ c & d\end{matrix}"
    assert conv(el("d", e(mat))) == r"\begin{pmatrix}a & b \\ c & d\end{pmatrix}"
    assert conv(el("d", e(mat), begChr="[", endChr="]")) == r"\begin{bmatrix}a & b \\ c & d\end{bmatrix}"
    assert conv(el("d", e(mat), begChr="|", endChr="|")) == r"\begin{vmatrix}a & b \\ c & d\end{vmatrix}"
    assert conv(el("d", e(mat), begChr="{", endChr="")) == r"\left\{\begin{matrix}a & b \\ c & d\end{matrix}\right."


def test_matrix_column_alignment():
    mpr = ('<m:mPr><m:mcs><m:mc><m:mcPr><m:count m:val="1"/><m:mcJc m:val="left"/></m:mcPr></m:mc>'
           '<m:mc><m:mcPr><m:count m:val="1"/><m:mcJc m:val="right"/></m:mcPr></m:mc></m:mcs></m:mPr>')
    mat = matrix(["a", "b"], ["c", "d"], mpr=mpr)
    assert conv(mat) == r"\begin{array}{lr}a & b \\ c & d\end{array}"
    assert conv(el("d", e(mat))) == r"\left(\begin{array}{lr}a & b \\ c & d\end{array}\right)"


def test_equation_arrays():
    rows = e(r("x&=1")), e(r("y&=2"))
    assert conv(el("eqArr", *rows)) == r"\begin{aligned}x&=1 \\ y&=2\end{aligned}"
    assert conv(el("eqArr", e(r("x=1")), e(r("y=2")))) == r"\begin{gathered}x=1 \\ y=2\end{gathered}"
    assert conv(el("eqArr", e(r("x&=1")))) == "x=1"
    # "&" is an alignment mark only at the top of a row; deeper it is a character
    frac = el("f", el("num", r("a&b")), el("den", r("c")))
    assert conv(el("eqArr", e(frac), e(r("y")))) == r"\begin{gathered}\frac{a\&b}{c} \\ y\end{gathered}"


# --- accents, bars, group characters, limits ---------------------------------------------------


@pytest.mark.parametrize("ch, command", [
    ("\u0302", r"\hat"), ("\u0303", r"\tilde"), ("\u0304", r"\bar"), ("\u20d7", r"\vec"),
    ("\u0307", r"\dot"), ("\u0308", r"\ddot"), ("\u030c", r"\check"), ("\u0301", r"\acute"),
    ("\u0300", r"\grave"), ("\u0306", r"\breve"), ("\u20db", r"\dddot"), ("\u030a", r"\mathring"),
])
def test_accents(ch, command):
    assert conv(el("acc", e(r("x")), chr=ch)) == command + "{x}"


def test_accent_default_wide_and_unknown():
    assert conv(el("acc", e(r("a")))) == r"\hat{a}"
    assert conv(el("acc", e(r("α")), chr="\u0303")) == r"\tilde{\alpha}"
    assert conv(el("acc", e(r("xy")))) == r"\widehat{xy}"
    assert conv(el("acc", e(r("xy")), chr="\u0303")) == r"\widetilde{xy}"
    assert conv(el("acc", e(r("AB")), chr="\u20d7")) == r"\overrightarrow{AB}"
    assert conv(el("acc", e(r("AB")), chr="\u0304")) == r"\overline{AB}"
    assert conv(el("acc", e(r("x")), chr="★")) == r"\overset{\bigstar}{x}"


def test_bars():
    assert conv(el("bar", e(r("z")), pos="top")) == r"\overline{z}"
    assert conv(el("bar", e(r("z")), pos="bot")) == r"\underline{z}"
    assert conv(el("bar", e(r("z")))) == r"\underline{z}"  # the OMML default position is bottom


def test_group_characters():
    assert conv(el("groupChr", e(r("a+b")))) == r"\underbrace{a+b}"
    assert conv(el("groupChr", e(r("a+b")), chr="⏞", pos="top")) == r"\overbrace{a+b}"
    assert conv(el("groupChr", e(r("f")), chr="→", vertJc="bot")) == r"\xrightarrow{f}"
    assert conv(el("groupChr", e(r("f")), chr="⇐")) == r"\xLeftarrow{f}"
    assert conv(el("groupChr", e(r("AB")), chr="→", pos="top")) == r"\overrightarrow{AB}"
    assert conv(el("groupChr", e(r("x")), chr="≝", pos="top")) == r"\overset{\stackrel{\mathrm{def}}{=}}{x}"


def test_limits_on_group_characters():
    under = el("groupChr", e(r("a+b")))
    assert conv(el("limLow", e(under), el("lim", r("n")))) == r"\underbrace{a+b}_{n}"
    over = el("groupChr", e(r("a+b")), chr="⏞", pos="top")
    assert conv(el("limUpp", e(over), el("lim", r("n")))) == r"\overbrace{a+b}^{n}"
    arrow = el("groupChr", e(r("above")), chr="→")
    assert conv(el("limLow", e(arrow), el("lim", r("below")))) == r"\xrightarrow[below]{above}"


def test_lower_and_upper_limits():
    upright = '<m:sty m:val="p"/>'
    assert conv(el("limLow", e(r("lim", upright)), el("lim", r("n→∞")))) == r"\lim_{n\rightarrow\infty}"
    assert conv(el("limLow", e(r("argmax", upright)), el("lim", r("x")))) == r"\operatorname*{argmax}_{x}"
    assert conv(el("limLow", e(r("x")), el("lim", r("1")))) == r"\underset{1}{x}"
    assert conv(el("limUpp", e(r("=")), el("lim", r("def")))) == r"\overset{def}{=}"
    assert conv(el("limLow", e(r("x")), el("lim"))) == "x"


def test_functions():
    upright = '<m:sty m:val="p"/>'
    assert conv(el("func", el("fName", r("sin", upright)), e(r("x")))) == r"\sin x"
    assert conv(el("func", el("fName", r("cos", upright)), e(el("f", el("num", r("a")), el("den", r("b")))))) == \
        r"\cos\frac{a}{b}"
    assert conv(el("func", el("fName", r("sgn", upright)), e(r("x")))) == r"\operatorname{sgn}x"
    log2 = el("sSub", e(r("log", upright)), el("sub", r("2")))
    assert conv(el("func", el("fName", log2), e(r("x")))) == r"\log_{2}x"
    sin2 = el("sSup", e(r("sin", upright)), el("sup", r("2")))
    assert conv(el("func", el("fName", sin2), e(r("θ")))) == r"\sin^{2}\theta"
    lim = el("limLow", e(r("lim", upright)), el("lim", r("n→∞")))
    assert conv(el("func", el("fName", lim), e(r("a")))) == r"\lim_{n\rightarrow\infty}a"
    # an operator name stays an operator name only in the name, not in its limit
    assert conv(el("func", el("fName", el("limLow", e(r("max", upright)), el("lim", r("ab")))), e(r("f")))) == \
        r"\max_{ab}f"


# --- boxes and phantoms ----------------------------------------------------------------------


def test_boxes_and_phantoms():
    assert conv(el("box", e(r("dx")), diff="1")) == "dx"
    assert conv(el("borderBox", e(r("E=mc")))) == r"\boxed{E=mc}"
    sides = dict(hideTop="1", hideBot="1", hideLeft="1", hideRight="1")
    assert conv(el("borderBox", e(r("x")), **sides)) == "x"
    assert conv(el("phant", e(r("x")), show="0")) == r"\phantom{x}"
    assert conv(el("phant", e(r("x")), show="0", zeroWid="1")) == r"\vphantom{x}"
    assert conv(el("phant", e(r("x")), show="0", zeroAsc="1", zeroDesc="1")) == r"\hphantom{x}"
    assert conv(el("phant", e(r("x")))) == "x"


# --- containers, robustness --------------------------------------------------------------------


def test_math_paragraph_with_several_equations():
    para = math(f'<m:oMathParaPr><m:jc m:val="center"/></m:oMathParaPr>'
                f"<m:oMath>{r('a=1')}</m:oMath><m:oMath>{r('b=2')}</m:oMath>", tag="oMathPara")
    assert omml_to_latex(para) == r"a=1 \\ b=2"
    single = math(f"<m:oMath>{r('a=1')}</m:oMath>", tag="oMathPara")
    assert omml_to_latex(single) == "a=1"


def test_wrapper_elements_are_searched_for_math():
    a14 = "http://schemas.microsoft.com/office/drawing/2010/main"
    wrapper = etree.fromstring(
        f'<a14:m xmlns:a14="{a14}" xmlns:m="{M_NS}" xmlns:w="{W_NS}">'
        f"<m:oMathPara><m:oMath>{r('x')}</m:oMath></m:oMathPara></a14:m>")
    assert omml_to_latex(wrapper) == "x"
    two = etree.fromstring(
        f'<p xmlns:m="{M_NS}" xmlns:w="{W_NS}"><m:oMath>{r("a")}</m:oMath><w:r><w:t>and</w:t></w:r>'
        f"<m:oMath>{r('b')}</m:oMath></p>")
    assert omml_to_latex(two) == r"a \\ b"


def test_unknown_elements_keep_their_text():
    assert conv('<m:futureThing><m:e>' + r("x+1") + "</m:e></m:futureThing>") == "x+1"
    assert conv('<x:odd xmlns:x="urn:x">' + r("y") + "</x:odd>") == "y"


def test_tracked_changes_and_word_markup_in_math():
    inner = f"<w:ins>{r('a')}</w:ins><w:del>{r('b')}</w:del><w:bookmarkStart w:id=\"0\"/>{r('c')}<!-- note -->"
    assert conv(inner) == "ac"


def test_empty_elements():
    assert conv("") == ""
    assert conv("<m:f/>") == r"\frac{}{}"
    assert conv("<m:rad/>") == r"\sqrt{}"
    assert conv("<m:sSup/>") == "{}"
    assert conv("<m:d/>") == r"\left(\right)"
    assert conv("<m:nary/>") == r"\int"
    assert conv("<m:m/>") == r"\begin{matrix}\end{matrix}"
    assert conv("<m:acc/>") == r"\hat{}"
    assert conv("<m:r/>") == ""


def test_pathological_nesting_degrades_to_text():
    root = etree.Element(_M + "oMath")
    node = root
    for _ in range(3000):
        frac = etree.SubElement(node, _M + "f")
        node = etree.SubElement(frac, _M + "num")
    etree.SubElement(etree.SubElement(node, _M + "r"), _M + "t").text = "deep"
    latex = omml_to_latex(root)
    assert "deep" in latex
    assert_valid(latex)


# --- corpus: Docling's equations.docx and its groundtruth ------------------------------------------


def _corpus_equations() -> tuple[list[str], list[str]]:
    path = CORPUS / "docling__equations.docx"
    with zipfile.ZipFile(path) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    maths = [m for m in root.iter(_M + "oMathPara", _M + "oMath")
             if not (m.tag == _M + "oMath" and m.getparent().tag == _M + "oMathPara")]
    ours = [omml_to_latex(m) for m in maths]
    truth_md = (CORPUS / "groundtruth" / "docling__equations.docx.md").read_text(encoding="utf-8")
    truth = [(a or b).strip() for a, b in re.findall(r"\$\$(.+?)\$\$|\$(.+?)\$", truth_md, re.S)]
    return ours, truth


# Markup that differs in style only (how a thing is typeset, not what it is).
_STYLE_ONLY = re.compile(
    r"\\(?:left|right|frac|binom|genfrac|mathrm|text|operatorname\*?|limits|textellipsis|ldots|quad|"
    r"underbrace|overbrace|overset|underset)(?![A-Za-z])|0pt")


def _tokens(latex: str) -> Counter:
    """Letters, digits and symbol commands of ``latex``, style markup removed (\\max = max)."""
    latex = re.sub(r"\\(max|min|lim|sin|cos|log)(?![A-Za-z])", r" \1 ", _STYLE_ONLY.sub(" ", latex))
    return Counter(re.findall(r"\\[A-Za-z]+|[A-Za-z0-9]", latex))


def test_corpus_equations_convert_valid_and_match_groundtruth():
    ours, truth = _corpus_equations()
    assert len(ours) == len(truth) == 27
    for latex in ours:
        assert latex
        assert_valid(latex)
    exact = sum(squash(a) == squash(b) for a, b in zip(ours, truth))
    print(f"\nOMML corpus: {exact}/{len(truth)} equations match Docling's groundtruth up to whitespace")
    assert exact >= 13
    # Where we differ, nothing of the groundtruth's maths is missing from ours.
    for a, b in zip(ours, truth):
        missing = _tokens(b) - _tokens(a)
        assert not missing, (a, b, missing)


def test_corpus_equations_spot_checks():
    ours, _ = _corpus_equations()
    assert ours[0] == r"A=\pi r^{2}"
    assert r"\sum_{n=1}^{\infty}\left(a_{n}\cos\frac{n\pi x}{L}" in ours[6]
    assert r"\sum_{k=0}^{n}\binom{n}{k}x^{k}a^{n-k}" in ours[8]
    assert ours[-3].startswith(r"P_{\text{ x}}=\underbrace{S\cdot T\cdot G\cdot(x+y+z)}_{group\ with\ underbraces}")
    assert ours[-1] == r"\mathrm{s}{}_{+}\tau\left\{\max\right\}=\mathrm{A}\times\mathrm{B}"


def test_property_characters_are_escaped():
    assert conv(el("d", e(r("x")), begChr="{{", endChr="%")) == r"\{\{x\%"
    assert conv(el("d", e(r("a")), e(r("b")), sepChr="&")) == r"\left(a\&b\right)"
    assert conv(el("nary", el("sub", r("i")), e(r("x")), chr="#")) == r"\mathop{\#}_{i}x"
    assert conv(el("acc", e(r("x")), chr="}")) == r"\overset{\}}{x}"
    assert conv(el("groupChr", e(r("x")), chr="_", pos="top")) == r"\overset{\_}{x}"


def test_long_runs_convert_in_linear_time():
    import time

    start = time.perf_counter()
    latex = omml_to_latex(math(r("απ x " * 20000)))
    assert time.perf_counter() - start < 2
    assert latex.count(r"\alpha") == 20000


def test_bold_greek_and_ohm_sign():
    assert conv(r("αx", '<m:sty m:val="b"/>')) == r"\boldsymbol{\alpha}\mathbf{x}"
    assert conv(r("\u2126")) == r"\Omega"


def test_unicode_scripts_typed_in_text():
    assert conv(r("x²+y₁₂")) == "x^{2}+y_{12}"
    assert conv(el("sSup", e(r("x")), el("sup", r("2"))) + r("³")) == "x^{2}{}^{3}"
    assert conv(r("aⁿ⁻¹")) == "a^{n-1}"


def test_equation_number_mark_in_equation_arrays():
    number = el("d", e(r("1")))
    assert conv(el("eqArr", e(r("E=mc#"), number))) == r"E=mc\qquad\left(1\right)"
