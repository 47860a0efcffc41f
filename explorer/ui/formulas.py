"""Which formulas of corpus text the app lets KaTeX render: a whitelist, not a blacklist.

KaTeX runs no script, but it draws whatever a formula asks for: ``\\rule{2000px}{1500px}``,
``\\kern``, ``\\Huge``, ``\\raisebox``, colours, macros that expand a thousand times. A formula
is rendered only if it is short, uses only the ordinary math commands below, has balanced
braces and at most a few line breaks, and holds none of ``[ ] ` `` or control characters (a raw
bracket would end Streamlit's highlight directive and let the rest of the text form a link).
"""

from __future__ import annotations

import re

MAX_FORMULA_CHARS = 200
MAX_LINE_BREAKS = 8  # rows of a small matrix or cases; each `\\` starts a line

SAFE_COMMANDS = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta
Lambda Xi Pi Sigma Upsilon Phi Psi Omega aleph beth ell hbar hslash imath jmath wp Re Im
sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln lg exp lim limsup liminf sup
inf max min arg det dim ker deg gcd hom Pr bmod pmod mod operatorname
sum prod coprod int iint iiint oint bigcup bigcap bigoplus bigotimes bigodot bigvee bigwedge
bigsqcup biguplus
pm mp times div cdot ast star circ bullet oplus ominus otimes oslash odot cap cup sqcap sqcup
vee wedge setminus wr diamond triangleleft triangleright uplus amalg land lor lnot neg
leq le geq ge neq ne equiv approx approxeq cong sim simeq asymp propto prec succ preceq succeq
ll gg subset supset subseteq supseteq subsetneq supsetneq sqsubseteq sqsupseteq in ni notin
vdash dashv models perp mid nmid parallel nparallel doteq lesssim gtrsim leqslant geqslant lt gt
coloneqq triangleq not
to gets leftarrow rightarrow Leftarrow Rightarrow leftrightarrow Leftrightarrow longleftarrow
longrightarrow Longleftarrow Longrightarrow longleftrightarrow Longleftrightarrow mapsto
longmapsto hookrightarrow hookleftarrow uparrow downarrow Uparrow Downarrow updownarrow nearrow
searrow swarrow nwarrow implies impliedby iff rightleftharpoons
infty partial nabla forall exists nexists emptyset varnothing prime backslash angle triangle
square top bot dagger ddagger surd
ldots cdots vdots ddots dots
langle rangle lfloor rfloor lceil rceil vert Vert lvert rvert lVert rVert left right middle
big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr
hat widehat tilde widetilde bar overline underline vec dot ddot acute grave breve check
overrightarrow overleftarrow underbrace overbrace
frac dfrac tfrac sqrt binom dbinom tbinom choose over atop stackrel overset underset boxed
mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol bm text textrm
textbf textit textsf texttt
displaystyle textstyle scriptstyle limits nolimits mathop mathbin mathrel mathord
quad enspace thinspace
begin end
""".split())
SAFE_ENVIRONMENTS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix "
                              "cases aligned gathered split".split())
SAFE_ESCAPES = frozenset("{}|,;:! #%&_\\")  # \{ \} \| \, \; \: \! \  \# \% \& \_ \\

_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z]|$)|[{}]")
_ENVIRONMENT = re.compile(r"\{([A-Za-z]+\*?)\}")
_FORBIDDEN = re.compile(r"[\[\]`\x00-\x1f\x7f-\x9f\u2028\u2029]")


def safe_formula(formula: str) -> bool:
    """Whether `formula` (the text between the dollars, whitespace collapsed) may be
    rendered by KaTeX; when not, the app shows it as its characters."""
    if len(formula) > MAX_FORMULA_CHARS or _FORBIDDEN.search(formula):
        return False
    depth = breaks = 0
    for match in _TOKEN.finditer(formula):
        token = match.group()
        if token in "{}":
            depth += 1 if token == "{" else -1
            if depth < 0:
                return False
            continue
        name = token[1:]
        if name == "\\":
            breaks += 1
        elif name in ("begin", "end"):
            environment = _ENVIRONMENT.match(formula, match.end())
            if not environment or environment.group(1) not in SAFE_ENVIRONMENTS:
                return False
        elif not (name in SAFE_COMMANDS or (len(name) == 1 and name in SAFE_ESCAPES)):
            return False
    return depth == 0 and breaks <= MAX_LINE_BREAKS
