"""The evidence spans behind a sentence's verdict: its support, or its closest sentence and what that lacks (private).

A claim's words (content words of 3+ letters, not function words or words about the text, and its figures) are
looked up in the sentences of the evidence it cites by their word keys (:mod:`._lemmas`: "arrested" meets
"arrest", "three" meets "3"); a sentence opening with "He" or "It" also holds the names it may stand for
(:mod:`._spans`). The support of a verified claim is the sentence holding most of its words, then, while the claim
has words none of the chosen sentences hold, the sentence holding most of those (at least :data:`NEW_WORDS` of
them in its own words, or a figure), up to :data:`MAX_SPANS`. A further sentence of an item already spanned must
also hold half of the claim's words in its own words, so each span read alone shows most of what the claim says: a
claim citing two items for two facts gets a span in each, a claim joining two sentences of one item gets the one
that says most of it. A span is always one sentence of one item. An unsupported claim gets its closest sentence
(the one holding most of its words) and the words or values it lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text.words import LETTERS, fold
from ._evidence import FUNCTION_WORDS, EvidenceIndex
from ._figures import extract_figures
from ._lemmas import word_key
from ._negation import lemma_key
from ._polarity import negation_cue
from ._spans import SpanSentence
from ._support import GLUE_WORDS
from .result import EvidenceSpan

__all__ = ["MAX_SPANS", "NEW_WORDS", "claim_words", "closest_span", "lacking", "support_spans"]

MAX_SPANS = 4
"""The most spans a claim's support lists."""
NEW_WORDS = 2
"""A further span must hold at least this many of the claim's words the spans before it lack (or a figure)."""
_PREFIX = 6


def claim_words(text: str, *, every: bool = False) -> dict[str, str]:
    """The claim's figures and content words by key, each as it first reads in ``text``; with ``every`` (or when
    it has none) all its words."""
    words: dict[str, str] = {}
    for figure in extract_figures(text):
        words.setdefault(figure, figure)
    letters = LETTERS.findall(text)
    for word in letters:
        folded = fold(word)
        if every or (len(folded) >= 3 and folded not in FUNCTION_WORDS and folded not in GLUE_WORDS):
            words.setdefault(word_key(word), word)
    if not words and letters and not every:
        return claim_words(text, every=True)
    return words


def _content_keys(words: dict[str, str]) -> frozenset[str]:
    """The keys of the claim's figures and lowercase words: what tells a sentence apart from one that only
    names the same people ("He was born in 1970" against "Bob Jones lives in Paris")."""
    return frozenset(k for k, w in words.items() if not w[:1].isupper())


def _held(keys: Sequence[str], span: SpanSentence) -> frozenset[str]:
    """The ``keys`` the sentence holds in its own words."""
    return frozenset(k for k in keys if k in span.keys or (len(k) >= _PREFIX and k[:_PREFIX] in span.prefixes))


def _candidates(keys: Sequence[str], numbers: Sequence[int],
                items: Sequence[EvidenceIndex]) -> list[tuple[int, SpanSentence, frozenset[str], frozenset[str]]]:
    """Every sentence of the cited items holding any of ``keys``, in citation and reading order: the keys it holds
    (its pronoun's names too), and those it holds in its own words."""
    out = []
    for n, item in zip(numbers, items, strict=True):
        for span in item.spans:
            own = _held(keys, span)
            held = own | frozenset(k for k in keys if k in span.context)
            if held:
                out.append((n, span, held, own))
    return out


def support_spans(text: str, numbers: Sequence[int], items: Sequence[EvidenceIndex]) -> list[EvidenceSpan]:
    """The sentences of the cited ``items`` (numbered ``numbers``) that hold the words of the claim ``text``."""
    words = claim_words(text)
    candidates = _candidates(list(words), numbers, items)
    if not candidates:
        # a claim whose content words the evidence writes otherwise ("Based on the evidence, G") is read by all
        words = claim_words(text, every=True)
        candidates = _candidates(list(words), numbers, items)
    figures = frozenset(extract_figures(text))
    content = _content_keys(words)
    spans: list[EvidenceSpan] = []
    covered: set[str] = set()
    while candidates and len(spans) < MAX_SPANS:
        best = max(candidates, key=lambda c: (len(c[2] - covered), len((c[2] - covered) & content)))
        n, span, held, own = best
        new = held - covered
        # a further sentence must say more of the claim in its own words, not only name whom a pronoun stands for;
        # a further one of an item already spanned must also hold half of the claim's words itself (read alone, a
        # span shows most of what the claim says), while each cited item may show the part it supports
        if not new or (spans and len(new & own) < NEW_WORDS and not new & figures):
            break
        if any(s.n == n for s in spans) and 2 * len(own) < len(words):
            candidates.remove(best)
            continue
        spans.append(EvidenceSpan(n=n, start=span.start, end=span.end))
        covered |= new
    return spans


def closest_span(text: str, numbers: Sequence[int],
                 items: Sequence[EvidenceIndex]) -> tuple[EvidenceSpan, SpanSentence, str] | None:
    """The sentence of the cited ``items`` holding most of the claim's words, as a span, with its keys and its text
    (None: none holds any)."""
    words = claim_words(text)
    candidates = _candidates(list(words), numbers, items)
    if not candidates:
        return None
    content = _content_keys(words)
    n, span, _, _ = max(candidates, key=lambda c: (len(c[2]), len(c[2] & content)))
    text_of = items[list(numbers).index(n)].content
    return EvidenceSpan(n=n, start=span.start, end=span.end), span, text_of[span.start:span.end]


def lacking(text: str, closest: tuple[EvidenceSpan, SpanSentence, str] | None) -> list[str]:
    """The claim's figures and words its ``closest`` sentence (:func:`closest_span`) does not hold, and its
    negation cue when that sentence has none."""
    words = claim_words(text)
    if closest is None:
        return list(words.values())
    _, span, sentence = closest
    held = _held(list(words), span) | frozenset(k for k in words if k in span.context)
    lemmas = frozenset(lemma_key(w) for w in LETTERS.findall(sentence))
    # a word held in another form the word keys do not join ("lived" for "lives") is no lack
    out = [word for key, word in words.items() if key not in held and lemma_key(word) not in lemmas]
    cue = negation_cue(text)
    if cue is not None and negation_cue(sentence) is None:
        out.insert(0, cue)
    return out
