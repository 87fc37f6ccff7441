"""Unicode → LaTeX tables for the OMML converter (:mod:`mineru_tui.office.omml`).

Plain data only. ``SYMBOLS`` maps a single character found in math text to the
LaTeX that typesets it in math mode; characters missing from it are emitted as
they are (ASCII letters, digits and most punctuation need nothing). Mathematical
alphanumerics (U+1D400..U+1D7FF) and the letterlike ℝ/ℒ/ℭ... are handled by
:func:`math_alphanumeric`, which reads their Unicode names.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

GREEK: dict[str, str] = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta",
    "ε": r"\varepsilon", "ϵ": r"\epsilon", "ζ": r"\zeta", "η": r"\eta",
    "θ": r"\theta", "ϑ": r"\vartheta", "ι": r"\iota", "κ": r"\kappa",
    "ϰ": r"\varkappa", "λ": r"\lambda", "μ": r"\mu", "µ": r"\mu", "ν": r"\nu",
    "ξ": r"\xi", "ο": "o", "π": r"\pi", "ϖ": r"\varpi", "ρ": r"\rho",
    "ϱ": r"\varrho", "σ": r"\sigma", "ς": r"\varsigma", "τ": r"\tau",
    "υ": r"\upsilon", "φ": r"\varphi", "ϕ": r"\phi", "χ": r"\chi",
    "ψ": r"\psi", "ω": r"\omega", "ϝ": r"\digamma",
    "Α": "A", "Β": "B", "Γ": r"\Gamma", "Δ": r"\Delta", "Ε": "E", "Ζ": "Z",
    "Η": "H", "Θ": r"\Theta", "Ι": "I", "Κ": "K", "Λ": r"\Lambda", "Μ": "M",
    "Ν": "N", "Ξ": r"\Xi", "Ο": "O", "Π": r"\Pi", "Ρ": "P", "Σ": r"\Sigma",
    "Τ": "T", "Υ": r"\Upsilon", "ϒ": r"\Upsilon", "Φ": r"\Phi", "Χ": "X",
    "Ψ": r"\Psi", "Ω": r"\Omega", "\u2126": r"\Omega",
}

OPERATORS: dict[str, str] = {
    # binary operators
    "±": r"\pm", "∓": r"\mp", "×": r"\times", "÷": r"\div", "·": r"\cdot",
    "⋅": r"\cdot", "∙": r"\bullet", "∘": r"\circ", "∗": r"\ast", "⋆": r"\star",
    "−": "-", "∖": r"\setminus", "∪": r"\cup", "∩": r"\cap", "⊎": r"\uplus",
    "⊔": r"\sqcup", "⊓": r"\sqcap", "∧": r"\wedge", "∨": r"\vee",
    "⊕": r"\oplus", "⊖": r"\ominus", "⊗": r"\otimes", "⊘": r"\oslash",
    "⊙": r"\odot", "†": r"\dagger", "‡": r"\ddagger", "≀": r"\wr",
    "⋄": r"\diamond", "△": r"\bigtriangleup", "▽": r"\bigtriangledown",
    "◁": r"\triangleleft", "▷": r"\triangleright", "⊲": r"\lhd", "⊳": r"\rhd",
    "⨿": r"\amalg", "⋉": r"\ltimes", "⋊": r"\rtimes",
    # relations
    "≤": r"\leq", "≥": r"\geq", "≦": r"\leqq", "≧": r"\geqq", "≠": r"\neq",
    "≪": r"\ll", "≫": r"\gg", "≈": r"\approx", "≡": r"\equiv", "≢": r"\not\equiv",
    "∼": r"\sim", "≃": r"\simeq", "≅": r"\cong", "≍": r"\asymp", "∝": r"\propto",
    "≜": r"\triangleq", "≝": r"\stackrel{\mathrm{def}}{=}", "≐": r"\doteq",
    "≺": r"\prec", "≻": r"\succ", "⪯": r"\preceq", "⪰": r"\succeq",
    "∈": r"\in", "∉": r"\notin", "∋": r"\ni", "⊂": r"\subset", "⊃": r"\supset",
    "⊆": r"\subseteq", "⊇": r"\supseteq", "⊄": r"\not\subset", "⊊": r"\subsetneq",
    "⊋": r"\supsetneq", "⊏": r"\sqsubset", "⊐": r"\sqsupset",
    "⊑": r"\sqsubseteq", "⊒": r"\sqsupseteq", "⊢": r"\vdash", "⊣": r"\dashv",
    "⊨": r"\models", "⊥": r"\perp", "∥": r"\parallel", "∦": r"\nparallel",
    "∣": r"\mid", "∤": r"\nmid", "⋈": r"\bowtie", "⌣": r"\smile", "⌢": r"\frown",
    "≮": r"\nless", "≯": r"\ngtr", "≰": r"\nleq", "≱": r"\ngeq", "≲": r"\lesssim",
    "≳": r"\gtrsim", "∶": ":", "∷": "::", "≔": ":=",
    # arrows
    "←": r"\leftarrow", "→": r"\rightarrow", "↑": r"\uparrow", "↓": r"\downarrow",
    "↔": r"\leftrightarrow", "↕": r"\updownarrow", "⇐": r"\Leftarrow",
    "⇒": r"\Rightarrow", "⇑": r"\Uparrow", "⇓": r"\Downarrow",
    "⇔": r"\Leftrightarrow", "⇕": r"\Updownarrow", "↦": r"\mapsto",
    "⟼": r"\longmapsto", "⟵": r"\longleftarrow", "⟶": r"\longrightarrow",
    "⟷": r"\longleftrightarrow", "⟸": r"\Longleftarrow", "⟹": r"\Longrightarrow",
    "⟺": r"\Longleftrightarrow", "↗": r"\nearrow", "↘": r"\searrow",
    "↙": r"\swarrow", "↖": r"\nwarrow", "↩": r"\hookleftarrow",
    "↪": r"\hookrightarrow", "↼": r"\leftharpoonup", "↽": r"\leftharpoondown",
    "⇀": r"\rightharpoonup", "⇁": r"\rightharpoondown", "⇌": r"\rightleftharpoons",
    "⇄": r"\rightleftarrows", "↠": r"\twoheadrightarrow", "⇝": r"\leadsto",
    # big operators written as plain characters
    "∑": r"\sum", "∏": r"\prod", "∐": r"\coprod", "∫": r"\int", "∬": r"\iint",
    "∭": r"\iiint", "⨌": r"\iiiint", "∮": r"\oint", "∯": r"\oiint", "∰": r"\oiiint",
    "⋃": r"\bigcup", "⋂": r"\bigcap", "⋀": r"\bigwedge", "⋁": r"\bigvee",
    "⨀": r"\bigodot", "⨁": r"\bigoplus", "⨂": r"\bigotimes", "⨄": r"\biguplus",
    "⨆": r"\bigsqcup",
    # miscellaneous symbols
    "∞": r"\infty", "∂": r"\partial", "∇": r"\nabla", "∀": r"\forall",
    "∃": r"\exists", "∄": r"\nexists", "∅": r"\emptyset", "∁": r"\complement",
    "¬": r"\neg", "ℏ": r"\hbar", "ℓ": r"\ell", "℘": r"\wp", "ℵ": r"\aleph",
    "ℶ": r"\beth", "ℷ": r"\gimel", "ı": r"\imath", "ȷ": r"\jmath", "ð": r"\eth",
    "∠": r"\angle", "∡": r"\measuredangle", "√": r"\surd", "⊤": r"\top",
    "♠": r"\spadesuit", "♡": r"\heartsuit", "♢": r"\diamondsuit",
    "♣": r"\clubsuit", "♭": r"\flat", "♮": r"\natural", "♯": r"\sharp",
    "□": r"\square", "■": r"\blacksquare", "◊": r"\lozenge", "★": r"\bigstar",
    "∴": r"\therefore", "∵": r"\because", "…": r"\ldots", "⋯": r"\cdots",
    "⋮": r"\vdots", "⋱": r"\ddots", "°": r"^{\circ}", "′": "'", "″": "''",
    "‴": "'''", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle",
    "〉": r"\rangle", "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil",
    "⌉": r"\rceil", "‖": r"\|", "∆": r"\Delta", "ℑ": r"\Im", "ℜ": r"\Re",
    "ℎ": "h", "¦": "|", "¯": r"\bar{}", "∕": "/", "⁄": "/", "‐": "-", "–": "-",
    "⨯": r"\times", "⊺": r"\intercal", "∎": r"\blacksquare", "⟂": r"\perp",
    "⊻": r"\veebar", "⊼": r"\barwedge",
    # characters that are LaTeX specials in math text
    "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&", "#": r"\#", "_": r"\_",
    "$": r"\$", "\\": r"\backslash", "^": r"\hat{}", "~": r"\sim",
    # spaces (U+2061..U+2064 are invisible operators: nothing to typeset)
    "\u00a0": r"\ ", "\u2002": r"\enspace", "\u2003": r"\quad", "\u2001": r"\quad",
    "\u2004": r"\;", "\u2005": r"\:", "\u205f": r"\:", "\u2006": r"\,",
    "\u2009": r"\,", "\u200a": r"\,", "\u2007": r"\ ", "\u2008": r"\,",
    "\u200b": "", "\u2060": "", "\u2061": "", "\u2062": "", "\u2063": "",
    "\u2064": "", "\ufeff": "",
}

SYMBOLS: dict[str, str] = {**GREEK, **OPERATORS}

# Unicode superscript/subscript characters typed into math text ("x²"): their base forms.
SUPERSCRIPTS: dict[str, str] = {
    "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
    "⁸": "8", "⁹": "9", "⁺": "+", "⁻": "-", "⁼": "=", "⁽": "(", "⁾": ")", "ⁿ": "n", "ⁱ": "i",
}
SUBSCRIPTS: dict[str, str] = {
    "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7",
    "₈": "8", "₉": "9", "₊": "+", "₋": "-", "₌": "=", "₍": "(", "₎": ")", "ₐ": "a",
    "ₑ": "e", "ₒ": "o", "ₓ": "x", "ₕ": "h", "ₖ": "k", "ₗ": "l", "ₘ": "m", "ₙ": "n",
    "ₚ": "p", "ₛ": "s", "ₜ": "t", "ᵢ": "i", "ⱼ": "j",
}

# n-ary operator characters (m:nary/m:chr); "∫" is the default when m:chr is absent.
NARY: dict[str, str] = {
    "∑": r"\sum", "⅀": r"\sum", "∏": r"\prod", "∐": r"\coprod", "∫": r"\int",
    "∬": r"\iint", "∭": r"\iiint", "⨌": r"\iiiint", "∮": r"\oint", "∯": r"\oiint",
    "∰": r"\oiiint", "∱": r"\int", "∲": r"\oint", "∳": r"\oint", "⋃": r"\bigcup",
    "∪": r"\bigcup", "⋂": r"\bigcap", "∩": r"\bigcap", "⋀": r"\bigwedge",
    "∧": r"\bigwedge", "⋁": r"\bigvee", "∨": r"\bigvee", "⨀": r"\bigodot",
    "⊙": r"\bigodot", "⨁": r"\bigoplus", "⊕": r"\bigoplus", "⨂": r"\bigotimes",
    "⊗": r"\bigotimes", "⨄": r"\biguplus", "⊎": r"\biguplus", "⨆": r"\bigsqcup",
    "⊔": r"\bigsqcup",
}
INTEGRALS = frozenset({r"\int", r"\iint", r"\iiint", r"\iiiint", r"\oint", r"\oiint", r"\oiiint"})

# Accent characters (m:acc/m:chr, combining or spacing forms) → (narrow, wide) commands.
ACCENTS: dict[str, tuple[str, str]] = {
    "\u0302": (r"\hat", r"\widehat"), "^": (r"\hat", r"\widehat"), "ˆ": (r"\hat", r"\widehat"),
    "\u0303": (r"\tilde", r"\widetilde"), "~": (r"\tilde", r"\widetilde"),
    "˜": (r"\tilde", r"\widetilde"),
    "\u0304": (r"\bar", r"\overline"), "\u0305": (r"\bar", r"\overline"),
    "¯": (r"\bar", r"\overline"), "‾": (r"\bar", r"\overline"),
    "\u20d7": (r"\vec", r"\overrightarrow"), "→": (r"\vec", r"\overrightarrow"),
    "\u20d6": (r"\overleftarrow", r"\overleftarrow"), "←": (r"\overleftarrow", r"\overleftarrow"),
    "\u20e1": (r"\overleftrightarrow", r"\overleftrightarrow"),
    "↔": (r"\overleftrightarrow", r"\overleftrightarrow"),
    "\u20d1": (r"\vec", r"\overrightarrow"), "\u20d0": (r"\overleftarrow", r"\overleftarrow"),
    "\u0307": (r"\dot", r"\dot"), "˙": (r"\dot", r"\dot"),
    "\u0308": (r"\ddot", r"\ddot"), "¨": (r"\ddot", r"\ddot"),
    "\u20db": (r"\dddot", r"\dddot"), "\u20dc": (r"\ddddot", r"\ddddot"),
    "\u030c": (r"\check", r"\check"), "ˇ": (r"\check", r"\check"),
    "\u0301": (r"\acute", r"\acute"), "´": (r"\acute", r"\acute"),
    "\u0300": (r"\grave", r"\grave"), "`": (r"\grave", r"\grave"),
    "\u0306": (r"\breve", r"\breve"), "˘": (r"\breve", r"\breve"),
    "\u030a": (r"\mathring", r"\mathring"), "˚": (r"\mathring", r"\mathring"),
    "\u0311": (r"\breve", r"\breve"),
    "⏞": (r"\overbrace", r"\overbrace"), "⏟": (r"\underbrace", r"\underbrace"),
    "\u0332": (r"\underline", r"\underline"),
}

# Delimiter characters (m:d begChr/endChr/sepChr) → what follows \left / \right.
DELIMITERS: dict[str, str] = {
    "(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}", "|": "|",
    "‖": r"\|", "∥": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle",
    "〉": r"\rangle", "<": r"\langle", ">": r"\rangle", "⌊": r"\lfloor",
    "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil", "/": "/", "\\": r"\backslash",
    "↑": r"\uparrow", "↓": r"\downarrow", "↕": r"\updownarrow", "⇑": r"\Uparrow",
    "⇓": r"\Downarrow", "⟦": r"[\![", "⟧": r"]\!]", "⌜": r"\ulcorner",
    "⌝": r"\urcorner", "⟮": r"(", "⟯": r")",
}

# Matrix environments for an m:m wrapped alone in an m:d with these characters.
MATRIX_ENVS: dict[tuple[str, str], str] = {
    ("(", ")"): "pmatrix", ("[", "]"): "bmatrix", ("{", "}"): "Bmatrix",
    ("|", "|"): "vmatrix", ("‖", "‖"): "Vmatrix", ("∥", "∥"): "Vmatrix",
}

# Operator names LaTeX has a command for (upright letters, no \operatorname needed).
FUNCTIONS = frozenset({
    "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc",
    "deg", "det", "dim", "exp", "gcd", "hom", "inf", "ker", "lg", "lim", "liminf",
    "limsup", "ln", "log", "max", "min", "Pr", "sec", "sin", "sinh", "sup", "tan",
    "tanh",
})
# Of those, the ones whose limits go below in display style (\lim_{x}).
LIMIT_FUNCTIONS = frozenset({
    "det", "gcd", "inf", "lim", "liminf", "limsup", "max", "min", "Pr", "sup",
})

# Unicode math-alphabet names (as in "MATHEMATICAL BOLD ITALIC SMALL A") → command.
_ALPHABETS: dict[str, str] = {
    "BOLD": r"\mathbf", "ITALIC": "", "BOLD ITALIC": r"\boldsymbol",
    "SCRIPT": r"\mathcal", "BOLD SCRIPT": r"\mathcal", "FRAKTUR": r"\mathfrak",
    "BOLD FRAKTUR": r"\mathfrak", "DOUBLE-STRUCK": r"\mathbb",
    "SANS-SERIF": r"\mathsf", "SANS-SERIF BOLD": r"\mathbf",
    "SANS-SERIF ITALIC": r"\mathsf", "SANS-SERIF BOLD ITALIC": r"\boldsymbol",
    "MONOSPACE": r"\mathtt",
}
_LETTERLIKE: dict[str, str] = {
    "ℂ": r"\mathbb{C}", "ℍ": r"\mathbb{H}", "ℕ": r"\mathbb{N}", "ℙ": r"\mathbb{P}",
    "ℚ": r"\mathbb{Q}", "ℝ": r"\mathbb{R}", "ℤ": r"\mathbb{Z}", "ℬ": r"\mathcal{B}",
    "ℰ": r"\mathcal{E}", "ℱ": r"\mathcal{F}", "ℋ": r"\mathcal{H}", "ℐ": r"\mathcal{I}",
    "ℒ": r"\mathcal{L}", "ℳ": r"\mathcal{M}", "ℛ": r"\mathcal{R}", "ℭ": r"\mathfrak{C}",
    "ℌ": r"\mathfrak{H}", "ℨ": r"\mathfrak{Z}", "ℯ": "e", "ℊ": "g", "ℴ": "o",
    "ⅅ": r"\mathbb{D}", "ⅆ": "d", "ⅇ": "e", "ⅈ": "i", "ⅉ": "j",
}


@lru_cache(maxsize=1024)
def math_alphanumeric(ch: str) -> str | None:
    """LaTeX for a styled math letter or digit (U+1D400.., ℝ, ℒ...), else ``None``."""
    if ch in _LETTERLIKE:
        return _LETTERLIKE[ch]
    if not "\U0001d400" <= ch <= "\U0001d7ff":
        return None
    name = unicodedata.name(ch, "")
    if not name.startswith("MATHEMATICAL "):
        return None
    rest = name[len("MATHEMATICAL "):]
    for kind in ("CAPITAL ", "SMALL ", "DIGIT "):
        style, sep, base = rest.partition(" " + kind)
        if sep:
            break
    else:
        return None
    command = _ALPHABETS.get(style)
    if command is None:
        return None
    if kind == "DIGIT ":
        digits = ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"]
        inner = str(digits.index(base)) if base in digits else None
    elif len(base) == 1:
        inner = base if kind == "CAPITAL " else base.lower()
    else:  # Greek: "ALPHA", "THETA SYMBOL", "PARTIAL DIFFERENTIAL"...
        prefix = "GREEK CAPITAL LETTER " if kind == "CAPITAL " else "GREEK SMALL LETTER "
        try:
            inner = GREEK.get(unicodedata.lookup(prefix + base))
        except KeyError:
            inner = None
    if inner is None:
        return None
    if kind != "DIGIT " and len(inner) > 1 and command in (r"\mathbf", r"\mathsf"):
        command = r"\boldsymbol" if command == r"\mathbf" else ""  # Greek has no \mathbf
    return f"{command}{{{inner}}}" if command else inner
