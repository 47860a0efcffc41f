"""Words that say nothing about what a paper is about: the stop words of corpus text.

`STOP_WORDS` is the one list behind the shared terms of an explanation
(features/explanations/explain.py) and the key terms of the map's topics
(features/topics/stage.py). The BM25 channel (index/lexical.py) keeps bm25s's short English list
on purpose: every index records it in its manifest, and another list would change the tokens
that existing indexes store.
"""

from __future__ import annotations

# English function words: the Glasgow list as scikit-learn ships it (ENGLISH_STOP_WORDS, which
# tests/test_maps.py checks is all here), plus a few it lacks.
ENGLISH = frozenset("""
a about above across after afterwards again against all almost alone along already also although
always am among amongst amoungst amount an and another any anyhow anyone anything anyway
anywhere are around as at back be became because become becomes becoming been before beforehand
behind being below beside besides between beyond bill both bottom but by call can cannot cant co
con could couldnt cry de describe detail did do does doing done down due during each eg eight
either eleven else elsewhere empty enough etc even ever every everyone everything everywhere
except few fifteen fifty fill find fire first five for former formerly forty found four from
front full further get give go had has hasnt have having he hence her here hereafter hereby
herein hereupon hers herself him himself his how however hundred i ie if in inc indeed interest
into is it its itself just keep last latter latterly least less ltd made many may me meanwhile
might mill mine more moreover most mostly move much must my myself name namely neither never
nevertheless next nine no nobody none noone nor not nothing now nowhere of off often on once one
only onto or other others otherwise our ours ourselves out over own part particular per perhaps
please put rather re same see seem seemed seeming seems serious several she should show side
since sincere six sixty so some somehow someone something sometime sometimes somewhere still
such system take ten than that the their them themselves then thence there thereafter thereby
therefore therein thereupon these they thick thin third this those though three through
throughout thru thus to together too top toward towards twelve twenty two un under until up upon
us very via was we well were what whatever when whence whenever where whereafter whereas whereby
wherein whereupon wherever whether which while whither who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves
""".split())
# Words nearly every abstract uses: they tell no topic or pair of papers apart.
PAPER_WORDS = frozenset("""
ability achieve achieves additionally address addresses analysis approach approaches art
available based benchmark benchmarks challenge challenges challenging code data demonstrate
demonstrates develop developed different effective effectively efficient efficiently evaluation
existing experimental experiments extensive framework furthermore however improve improved
improvement improves including introduce introduces key large learning limited method methods
model models moreover new novel outperforms paper performance present presents problem problems
propose proposed proposes provide provides real-world remains result results show shows
significant significantly state-of-the-art struggle struggles studies study task tasks time use
used using various widely work works world
""".split())
STOP_WORDS = ENGLISH | PAPER_WORDS
