"""Every word and number format a reader sees about a score or a strength: the strength words and
what they mean, the score line of a card (app) and of a result (CLI), its hover help, a pair's
cosine (relatives, drafts). The app, the CLI and JSON all read them here; ranking never does.
"""

from __future__ import annotations

from collections.abc import Iterable

# The words, by percentile of a hit's cosine among this corpus's random cosines of its kind (the
# share of them below it), strongest first; below the last: WEAK. Checked on the seeds
# (studies/badge_check.py -> studies/results/badges-seeds.md).
STRENGTHS = ((99.5, "strong match"), (97.0, "good match"), (85.0, "related"))
WEAK = "weak"
WORDS = (*(word for _, word in STRENGTHS), WEAK)  # strongest first

# A question's hit is named by the chance that it is relevant (ranking/calibration.relevance,
# fitted on judged questions: studies/strength_calibration.py), strongest first; below the
# last: WEAK. What each word has meant held out: studies/results/strength-calibration.md.
RELEVANCE_WORDS = ((0.5, "strong match"), (0.3, "good match"), (0.22, "related"))
SCORE_HELP = ("The score the list is ordered by: the cosine similarity plus a share for the "
              "words a paper shares with the question. The word says how strong the cosine is "
              "in this corpus: its rank among random question–paper cosines (for a question) "
              "or paper–paper cosines (for a paper): "
              + ", ".join(f"*{word}* above {cut:g}% of them" for cut, word in STRENGTHS)
              + f", else *{WEAK}*.")
QUESTION_HELP = ("The score the list is ordered by: the cosine similarity plus a share for the "
                 "words a paper shares with the question. The word says how likely such a hit "
                 "is relevant, as judged on held-out questions: "
                 + ", ".join(f"*{word}* at a chance of {cut:g} or more"
                             for cut, word in RELEVANCE_WORDS) + f", else *{WEAK}*.")
# Above a question's results (app): what the badges' number is. It is the fused score the list
# is ordered by (cosine plus a share for shared words, so it may pass 1), not a cosine; the
# cosine is on each badge's hover and in JSON `cosine`.
RESULTS_CAPTION = ("{count} papers, in the order of the score on their badges: closeness in "
                   "meaning plus a share for the words they share with your question; "
                   "highlighted: their best-matching sentences.")
OLD_SCORE_HELP = ("The score the list is ordered by; 'top x%' = share of random paper pairs in "
                  "this corpus at least as similar as its cosine; 'weak' = most of them are. "
                  "(This index was built before question scores were stored: rebuild it for a "
                  "strength word.)")
RELEVANT = frozenset(word for _, word in STRENGTHS)  # "related" or better
NOTHING_RELEVANT = ("Nothing here looks relevant: no result reaches “related”. This corpus may "
                    "not cover the question; the closest papers follow anyway.")
PAPER_PAIRS = "paper-paper"  # calibration.PAPERS: what a paper's cosine is compared with


def strength(percentile: float) -> str:
    """The word for a score at `percentile` (0-100) of its reference scores."""
    for threshold, word in STRENGTHS:
        if percentile >= threshold:
            return word
    return WEAK


def meaning(word: str) -> str:
    """What a question's hit's `word` claims: 'chance relevant 0.5 or more' ('below 0.22')."""
    cuts = dict((name, cut) for cut, name in RELEVANCE_WORDS)
    if word in cuts:
        upper = [cut for cut, _ in RELEVANCE_WORDS if cut > cuts[word]]
        return (f"chance relevant {cuts[word]:g} to {min(upper):g}" if upper
                else f"chance relevant {cuts[word]:g} or more")
    return f"chance relevant below {RELEVANCE_WORDS[-1][0]:g}"


def relevance_word(chance: float, cuts: tuple[tuple[float, str], ...] = RELEVANCE_WORDS
                   ) -> str:
    """The word for a question's hit with this chance (0-1) of being relevant (`cuts`: other
    cuts than RELEVANCE_WORDS', for a study)."""
    for threshold, word in cuts:
        if chance >= threshold:
            return word
    return WEAK


def compared(percentile: float, compared_with: str) -> str:
    """'above 99.2% of random question-paper cosines' ('above all ...' past the top quantile)."""
    share = "all" if percentile >= 100 else f"{percentile:g}% of"
    return f"above {share} random {compared_with} cosines"


def score_line(score: float, word: str | None, percentile: float | None = None,
               compared_with: str | None = None, *, detail: bool = False,
               name: str = "score", chance: float | None = None) -> str:
    """'score 0.612 · strong match', the same in the app and the CLI (`name` "cos" where the
    number is a cosine, as `explorer missed` shows); with `detail` (the CLI) the word is
    followed by what it rests on: a question's hit's `chance` of being relevant ('(chance
    relevant 0.72)'), else '(above 99.9% of random paper-paper cosines)'.

    Without a word (a question's score on an index built before question scores were stored):
    'score 0.612 · top 0.4% of paper pairs', how rare its cosine is among paper pairs; a
    cosine that most random pairs reach says so ("top 94%" would read as praise)."""
    text = f"{name} {score:.3f}"
    if word is not None:
        text += f" · {word}"
        if detail and chance is not None:
            text += f" (chance relevant {chance:.2f})"
        elif detail and percentile is not None and compared_with:
            text += f" ({compared(percentile, compared_with)})"
        return text
    if percentile is None:
        return text
    rarer = max(100.0 - percentile, 0.0)
    if rarer > 50:
        return text + " · weak"
    if rarer >= 1:
        text += f" · top {rarer:.0f}%"
    else:
        text += f" · top {rarer:.1f}%" if rarer >= 0.1 else " · top <0.1%"
    return text + (" of paper pairs" if compared_with == PAPER_PAIRS else "")


def score_help(score: float, cosine: float | None, word: str | None,
               percentile: float | None, compared_with: str | None,
               chance: float | None = None) -> str:
    """The badge's hover text: what the score and the words mean, and this hit's cosine, its
    place and (a question's hit) its chance of being relevant."""
    if word is None or percentile is None or cosine is None:
        return OLD_SCORE_HELP if percentile is not None else SCORE_HELP
    if chance is not None:
        return (f"{QUESTION_HELP}  \nThis one: score {score:.3f}, cosine {cosine:.3f}, "
                f"chance relevant {chance:.2f}.")
    return (f"{SCORE_HELP}  \nThis one: score {score:.3f}, cosine {cosine:.3f}, "
            f"{compared(percentile, str(compared_with))} of this corpus.")


def pair_line(score: float) -> str:
    """Two papers' closeness (relatives): 'cos 0.912'."""
    return f"cos {score:.3f}"


def closeness_line(score: float) -> str:
    """A paper's closeness to another, in passing (a missed paper's closest cited): 'cos 0.62'."""
    return f"cos {score:.2f}"



def nothing_relevant(words: Iterable[str | None]) -> bool:
    """True when the hits carry strength words and none of them reaches "related" (a page then
    says NOTHING_RELEVANT above its list)."""
    given = [word for word in words if word is not None]
    return bool(given) and not any(word in RELEVANT for word in given)
