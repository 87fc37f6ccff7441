r"""RTF math (``{\mmath ...}``) as OMML, converted to LaTeX by the OMML converter.

Word writes an equation in RTF as groups that mirror OMML's elements one for one: a group
whose first control word is ``\mf`` is ``m:f``, ``\mnum`` is ``m:num``, ``\mr`` a run whose
text is the run's text, and property groups carry their value as text (``{\mchr ∑}``,
``{\mtype noBar}``, ``{\mlimLoc undOvr}``). :class:`MathBuilder` grows that tree while the
lexer reads the groups; :func:`mineru_tui.office.omml.omml_to_latex` converts it.
"""

from __future__ import annotations

from lxml import etree

from mineru_tui.office.omml import M_NS, omml_to_latex

_M = "{" + M_NS + "}"
MAX_NODES = 100_000  # elements of one equation group (the rest is ignored)

# Property elements whose RTF text is their m:val.
VALUE_PROPS = {"chr", "type", "limLoc", "begChr", "endChr", "sepChr", "subHide", "supHide",
               "degHide", "pos", "vertJc", "grow", "shp", "opEmu", "noBreak", "diff",
               "brkBin", "brkBinSub", "lit", "nor", "scr", "sty", "aln", "baseJc", "plcHide",
               "strikeH", "strikeV", "strikeBLTR", "strikeTLBR", "show", "zeroAsc",
               "zeroDesc", "zeroWid", "transp", "maxDist", "objDist", "rSp", "rSpRule",
               "cGp", "cGpRule", "cSp", "count", "mcJc", "argSz", "jc", "naryLim", "intLim"}
# Words inside math that are not elements (fallback pictures, document settings).
SKIPPED = {"mmathPict", "mmathPr"}


class MathBuilder:
    """The OMML tree of one ``\\mmath`` group."""

    def __init__(self) -> None:
        self.root = etree.Element(_M + "oMathPara")
        self.nodes = 0

    def child(self, parent, word: str):
        """A new element for a group starting with ``\\m<name>`` (None past the cap)."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return None
        name = word[1:]
        if name in ("oMathPara",):
            return parent
        return etree.SubElement(parent, _M + name)

    @staticmethod
    def text(element, text: str) -> None:
        """Text read inside ``element``: a run's text, or a property's value."""
        name = element.tag[len(_M):]
        if name == "r":
            t = element.find(_M + "t")
            if t is None:
                t = etree.SubElement(element, _M + "t")
            t.text = (t.text or "") + text
        elif name in VALUE_PROPS:
            value = (element.get(_M + "val") or "") + text
            element.set(_M + "val", value.strip() if name not in ("chr", "begChr", "endChr",
                                                                   "sepChr") else value)
        elif name == "t":
            element.text = (element.text or "") + text

    def equations(self) -> list[str]:
        """The LaTeX of each equation (``m:oMath``) read."""
        out = []
        for math in self.root.iter(_M + "oMath"):
            latex = omml_to_latex(math).strip()
            if latex:
                out.append(latex)
        return out
