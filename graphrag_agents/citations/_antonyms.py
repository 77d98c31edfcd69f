"""An opposite word in a sentence the claim repeats: WordNet's antonym of one word put in its place (private).

"Dependencies are excluded from the bundle" where the passage says "Dependencies are included in the bundle" keeps
every name, figure and content stem the other rules read, and states the opposite. The opposite table
(:mod:`._opposites`) and the affix reading (:mod:`._affixes`) cover the pairs they list or can derive; this rule
asks WordNet 3.0 (:mod:`graphrag_agents.text.wordnet`, the ``lexicon`` extra), whose lexicographers marked
antonyms sense by sense ("include" / "exclude", "child" / "parent", "faster" / "slower", "optional" /
"required"), for any word.

WordNet lists the antonyms of every sense of a word, some of them far from what a sentence means ("open" has
"union", as in a union shop). So the rule reads a word only in its sentence's place: the claim is one cited
sentence word for word (or a run of it: a cut, or a sentence the splitter joined to the next) except for one
word, and that word is a WordNet antonym of the sentence's word in the same place, or a word of the antonym's
synset (its synonyms in that sense: "prevent" is opposed to "let", whose synset holds "allow"), or, for an
adjective satellite, an antonym of its head ("required" is a satellite of "obligatory", opposed to "optional").
An opposite made with an affix (:mod:`._affixes`: "uninstall" / "install") is read in the word's place too.

A paraphrase changes more than one word, or a word WordNet does not oppose, and is left to the other rules. The
opposite rule's guards hold by construction: a negation restating the word ("not wet" for "dry") puts two words
in one word's place and is never read here, and since the rest of the sentence is the same, the claim and its
sentence hold the same negation cues, so a negating prefix in the word's place ("not uninstalled" for "not
installed") states the opposite of what the sentence says there; a claim that says both words elsewhere is no
matter, as only the word in the sentence's place is compared.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text import wordnet
from ._affixes import affix_opposites
from ._evidence import EvidenceIndex
from ._tokens import repeated_sentences, tokens

__all__ = ["AFFIXES", "ENABLED", "SATELLITES", "SYNONYMS", "antonym_finding"]

ENABLED = True
"""The rule's switch (the perturbation benchmark scores the check with it off, in the same run)."""
SATELLITES = True
"""Also read an adjective satellite's antonyms through its head (:func:`~graphrag_agents.text.wordnet.antonyms`)."""
SYNONYMS = True
"""Also read the other words of an antonym's synset (its synonyms in the sense opposed)."""
AFFIXES = True
"""Also read an opposite made with an affix (:mod:`._affixes`) in the word's place."""

_MIN_TOKENS = 4


def _changed(claim: Sequence[str], other: Sequence[str]) -> tuple[str, str] | None:
    """(claim word, sentence word) where ``claim`` is a run of ``other`` except for one word, or None."""
    size = len(claim)
    for start in range(len(other) - size + 1):
        pair: tuple[str, str] | None = None
        for mine, theirs in zip(claim, other[start:start + size], strict=False):
            if mine != theirs:
                if pair is not None:
                    break
                pair = (mine, theirs)
        else:
            if pair is not None:
                return pair
    return None


def _opposed(word: str, other: str) -> bool:
    """Whether ``word`` is an affixed opposite of ``other``, or WordNet gives it (in any form) as an antonym of
    ``other``, or the reverse (without the ``lexicon`` extra, the affixes only)."""
    if not (word.isalpha() and other.isalpha()):
        return False
    if AFFIXES and other in affix_opposites(word):
        return True
    options = {"satellites": SATELLITES, "synonyms": SYNONYMS}
    return bool((wordnet.lemmas(word) | {word}) & wordnet.antonyms(other, **options)
                or (wordnet.lemmas(other) | {other}) & wordnet.antonyms(word, **options))


def antonym_finding(raw: str, items: Sequence[EvidenceIndex]) -> str | None:
    """The finding for a claim that is a cited sentence with one word replaced by its opposite, or None.

    Args:
        raw: The claim with its code spans (NFKC-normalised, markers removed).
        items: The cited evidence.
    """
    if not ENABLED:
        return None
    claim = [key for key, _ in tokens(raw)]
    if len(claim) < _MIN_TOKENS:
        return None
    for item, start, end, _ in repeated_sentences(raw, items):
        pair = _changed(claim, [key for key, _ in tokens(item.text[start:end])])
        if pair is not None and _opposed(*pair):
            return f'"{pair[0]}" where the evidence says "{pair[1]}"'
    return None
