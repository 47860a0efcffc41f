"""The seed question set: hand-written questions about the 71 seed abstracts and pairs of seed
papers a reader judges related, read from tests/data/seed_judgments.json (which says how they
were written; `explorer eval --seed-judgments` reads the same file). Used by the tests and by
the studies.

PARAPHRASES: (query, a phrase that occurs only in the target abstract) -- the phrase finds the
target robustly whatever its id.
RELATED_PAIRS: (phrase of paper A, phrase of paper B, why a reader relates them) -- same topic or
same method, judged from the two abstracts alone.
"""

from pathlib import Path

from explorer.eval.seeds import read_judgments

SEED_JUDGMENTS = Path(__file__).resolve().parent / "data" / "seed_judgments.json"
_JUDGMENTS = read_judgments(SEED_JUDGMENTS)
PARAPHRASES = list(_JUDGMENTS.questions)
RELATED_PAIRS = list(_JUDGMENTS.pairs)
