"""The final order of the passages: picked one at a time, each for its score plus what it adds to the ones before.

A multi-hop question is answered by a *set* of passages that together cover it: "the castle in the birthplace
of the performer of Bound by the Beauty" needs the album's paragraph, the one placing the performer in Toronto
and the one on Casa Loma. Ranked by score alone, the top five often hold three passages about the same part
of the question (three paragraphs titled "Mickey Mouse") and leave out the one that covers the rest. So the
best ``WINDOW`` candidates are re-ordered greedily: the best by score comes first, and each next passage is the
one with the highest score plus ``ChainSettings.novelty`` times the idf-weighted share of the question's content
words it holds that no passage picked before it holds (the words :mod:`.chain` already reads for chain
coverage). At ``novelty`` 0 the order is the score's. The cost: a passage that only echoes the question's
words can move up past a better-scored one that repeats words already covered (the bridge test in
``tests/test_retrieval.py`` has one); on the samples, whose distractors were chosen by their likeness to the
question, the re-ordering gained more than it lost. The weight was chosen on fold A of HotpotQA, 2Wiki and a
MuSiQue sample of two to four hops together, and gains on the held-out fold B of all three
(``benchmarks/results/retrieval-weights-history.md``, "The final order: new coverage, measurements").

Pure Python over at most ``WINDOW`` candidates (at most ``WINDOW``² word-set differences); the passages path
reads the words of any of them chain scoring did not (as a rule none), in one query.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["WINDOW", "by_new_coverage"]

WINDOW = 40
"""The best candidates (by score) re-ordered; the rest keep the score's order after them. Their words are read
for chain coverage already (``chain.TEXT_POOL``)."""


def by_new_coverage(ranked: Sequence[str], score: Mapping[str, float], words: Mapping[str, frozenset[str]],
                    idf: Mapping[str, float], weight: float) -> list[str]:
    """``ranked`` (chunk ids, best score first) with its first ``WINDOW`` re-ordered by score plus ``weight`` x
    the share of the question's idf (``idf``: its content words) a chunk's ``words`` add to those before it.

    A chunk whose words were not read adds nothing; with ``weight`` <= 0 or no question words, ``ranked`` is
    returned as it is.
    """
    total = sum(idf.values())
    if weight <= 0 or total <= 0:
        return list(ranked)
    left = list(ranked[:WINDOW])
    held = {cid: words.get(cid, frozenset()) & idf.keys() for cid in left}
    out = left[:1]  # the best by score leads: nothing is before it to add to
    covered = set(held[out[0]]) if out else set()
    left = left[1:]
    # what each adds, computed again only for those holding a word the last pick covered (the same sum)
    adds = {cid: sum(idf[w] for w in held[cid] - covered) for cid in left}
    while left:
        at, best = 0, -math.inf
        for i, cid in enumerate(left):
            value = score[cid] + weight * adds[cid] / total
            if value > best:  # the first of equals: the better score, as ranked
                at, best = i, value
        pick = left.pop(at)
        out.append(pick)
        new = held[pick] - covered
        covered |= held[pick]
        if new:
            for cid in left:
                if not held[cid].isdisjoint(new):
                    adds[cid] = sum(idf[w] for w in held[cid] - covered)
    return out + list(ranked[WINDOW:])
