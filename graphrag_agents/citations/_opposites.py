"""Opposites and ordinals: a claim word whose opposite is what the evidence sentence says (private).

"Alice was born in 1950 [3]." citing "Alice died in 1950." has every name and figure right and the meaning wrong.
The table pairs words that cannot both describe one fact (born/died, won/lost, before/after, north/south,
increased/decreased, husband/wife, ...); ordinals form one family in which every rank excludes the others
("second son" where the evidence says "eldest son"; "first" and "eldest" count as one rank). A claim word is
reported only when no word of its own group is in the supporting evidence and a word of an opposite group is.
A word of no group is read for an opposite made with an affix (:mod:`._affixes`: "disabled" / "enabled").
"""

from __future__ import annotations

from collections.abc import Iterable

from ._affixes import affix_opposites, negated_word

__all__ = ["OPPOSITES", "OPPOSITE_WORDS", "ORDINALS", "ORDINAL_WORDS", "opposite_findings"]

OPPOSITES: list[tuple[str, str]] = [
    ("born birth births", "died dies death deaths dead"),
    ("won win wins winning winner winners victory victories", "lost lose loses losing loser losers"),
    ("before prior", "after"),
    ("earlier earliest", "later latest"),
    ("north northern northward", "south southern southward"),
    ("east eastern eastward", "west western westward"),
    ("northeast northeastern", "southwest southwestern"),
    ("northwest northwestern", "southeast southeastern"),
    ("increase increased increases increasing rose rise rises risen",
     "decrease decreased decreases decreasing fell fall falls fallen declined decline declines"),
    ("higher highest", "lower lowest"),
    ("best better", "worst worse"),
    ("longest", "shortest"),
    ("larger largest bigger biggest", "smaller smallest"),
    ("maximum", "minimum"),
    ("older elder", "younger"),
    ("husband", "wife"),
    ("son sons", "daughter daughters"),
    ("brother brothers", "sister sisters"),
    ("father", "mother"),
    ("uncle", "aunt"),
    ("nephew nephews", "niece nieces"),
    ("grandson grandsons", "granddaughter granddaughters"),
    ("king", "queen"),
    ("prince", "princess"),
    ("male", "female"),
    ("men", "women"),
    ("boy boys", "girl girls"),
    ("upper", "lower"),
    ("ancient", "modern"),
    ("opened", "closed"),
    ("import imports imported", "export exports exported"),
    ("bought buy buys", "sold sell sells"),
    ("accepted", "rejected"),
    ("legal", "illegal"),
    ("public", "private"),
    ("success successful", "failure unsuccessful"),
    ("true", "false"),
    ("positive", "negative"),
    ("profit profits", "loss losses"),
    ("inside interior", "outside exterior"),
    ("summer", "winter"),
    ("above", "below"),
    ("urban", "rural"),
    ("maternal", "paternal"),
    ("predecessor", "successor"),
    ("preceded", "succeeded"),
    ("senior", "junior"),
    ("amateur", "professional"),
]
"""Pairs of word groups (space-separated folded forms) that contradict each other."""

ORDINALS: list[str] = [
    "first eldest oldest", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "last youngest final",
]
"""Ranks: a word of one excludes every other (``first`` and ``eldest`` are one rank)."""
ORDINAL_WORDS = frozenset(w for rank in ORDINALS for w in rank.split())
"""Every word of :data:`ORDINALS`."""
OPPOSITE_WORDS = ORDINAL_WORDS | frozenset(w for pair in OPPOSITES for group in pair for w in group.split())
"""Every word of :data:`OPPOSITES` and :data:`ORDINALS`."""


def _build() -> dict[str, list[tuple[frozenset[str], frozenset[str]]]]:
    """Each word -> (its group, the words that contradict it), for every group it belongs to."""
    table: dict[str, list[tuple[frozenset[str], frozenset[str]]]] = {}
    pairs = [(frozenset(a.split()), frozenset(b.split())) for a, b in OPPOSITES]
    pairs += [(b, a) for a, b in pairs]
    ranks = [frozenset(r.split()) for r in ORDINALS]
    pairs += [(r, frozenset().union(*(o for o in ranks if o is not r))) for r in ranks]
    for group, opposite in pairs:
        for word in group:
            table.setdefault(word, []).append((group, opposite))
    return table


_TABLE = _build()


def opposite_findings(claim_words: Iterable[str], sentence_words: frozenset[str], *,
                      negated: bool = False, said: frozenset[str] = frozenset()) -> list[str]:
    """``"died" where the evidence says "born"`` for each claim word whose opposite the evidence states instead.

    Args:
        claim_words: The claim clause's folded words, in order.
        sentence_words: The folded words of the supporting sentence: the claim word's own group must be absent
            from it, and an opposite present.
        negated: Whether the claim or the sentence holds a negation cue: then a negating prefix is no opposite
            ("unable" for "not able"); nor is it where the other side holds another negated word ("unlikely to
            attend" for "likely unable to attend").
        said: The folded words of the whole claim sentence: an affixed opposite it also says ("able to rig ...,
            but unable to make headway") is no finding.
    """
    out: list[str] = []
    words = dict.fromkeys(claim_words)
    for word in words:
        for group, opposite in _TABLE.get(word, ()):
            if group & sentence_words:
                continue
            stated = sorted(opposite & sentence_words)
            if stated:
                out.append(f'"{word}" where the evidence says "{stated[0]}"')
                break
        else:
            # no table word: an opposite made with an affix ("disabled" where the evidence says "enabled")
            if word not in sentence_words and len(word) >= 4:
                # a claim that says both ("indoor and outdoor seating") opposes nothing
                found = (affix_opposites(word) & sentence_words) - words.keys() - said
                others = (sentence_words - found) | (words.keys() - {word})
                if found and (negated or any(negated_word(w) for w in others)):
                    found &= affix_opposites(word, negations=False)
                affixed = sorted(found)
                if affixed:
                    out.append(f'"{word}" where the evidence says "{affixed[0]}"')
    return out
