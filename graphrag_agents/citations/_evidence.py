"""What one evidence text holds, for the claim rules: its figures and words, and the same per sentence (private).

The whole-text sets serve the literal rules (a figure or a name anywhere in the cited evidence). The sentences,
built on first use, serve the meaning rules: which sentence states a claim's names together, and whether that
sentence is negated or says the opposite word. A sentence whose subject is a pronoun or a definite description
("He", "The film") may also be credited with the names it refers to: the passage's topic (the subject of its
first sentence: the names before its first verb, outside parentheses) and, after a leading personal pronoun,
the subject of the sentence before.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property

from ..text.acronyms import acronym_forms, spelled_runs, written_acronyms
from ..text.names import Name, extract_names
from ..text.sentences import split_sentences
from ..text.words import LETTERS, claim_text, fold, stem
from ._figures import digit_runs, extract_figures
from ._lemmas import evidence_keys, word_key
from ._polarity import is_negated, negation_cue, negation_scope
from ._spans import SpanSentence, evidence_spans

__all__ = ["CLAUSE_RE", "FUNCTION_WORDS", "EvidenceIndex", "EvidenceSentence", "content_stems", "content_terms"]

CLAUSE_RE = re.compile(r"[,;:()\[\]—–]|\s-\s")
"""Where a sentence's clauses meet: the reverse polarity rule reads the clause that states the claim."""
_FIRST_VERB = re.compile(r"\s(?:is|was|are|were|has|had|have)\s")
# a capitalised word after a lowercase word or a comma: not a sentence start
_MID_CAPITAL = re.compile(r"(?:(?<=[a-z0-9,;:] )|(?<=[\"(]))[A-Z][^\W\d_]+")
_MONTHS = frozenset("january february march april may june july august september october november december".split())
_PRONOUN_START = frozenset("he she it they his her its their him them".split())
_ANAPHOR_START = _PRONOUN_START | frozenset("the this these that those".split())
FUNCTION_WORDS = frozenset("""
a an the this that these those its his her their our my your some many most several each every all both either
neither any such other another one few much more less only even also just he she it they we you i there here who
whom whose what which where when why how whether in on at by for from with without within after before during
since until till under over between among through throughout across against about above below into onto upon per
via and but or nor so yet because although though while whereas if unless once as than then thus hence also is
are was were be been being has have had do does did can could shall should might must may will would to of not
never no none him them hers theirs himself herself itself themselves well known became become becomes later
first second third last year years time times called named including include includes part same
""".split())
"""Words that are no content: function words, and words too common to tell sentences apart."""
# A scan of a huge evidence text is capped: the meaning rules read at most this many sentences per item.
_MAX_SENTENCES = 400


def content_stems(text: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    """The stems of ``text``'s content words (4+ letters, not function words, not in ``skip``)."""
    out = set()
    for word in LETTERS.findall(text):
        folded = fold(word)
        if len(folded) >= 4 and folded not in FUNCTION_WORDS and folded not in skip:
            out.add(stem(folded))
    return frozenset(out)


def content_terms(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words and its capitalised words, folded: what a clause is about."""
    out = set()
    for word in LETTERS.findall(text):
        folded = fold(word)
        if len(folded) >= 4 and folded not in FUNCTION_WORDS:
            out.add(stem(folded))
        if word[0].isupper():
            out.add(folded)
    return frozenset(out)


@dataclass(frozen=True)
class EvidenceSentence:
    """One sentence of an evidence text."""

    text: str
    """The sentence (NFKC-normalised)."""
    words: frozenset[str]
    """Its folded words."""
    stems: frozenset[str]
    """The stems of its content words."""
    figures: frozenset[str]
    """Its figures, normalised."""
    runs: frozenset[str]
    """The digits of its long digit runs."""
    context: frozenset[str]
    """Folded name words its pronouns or definite descriptions may stand for."""
    negated: bool
    """Whether it holds a negation cue."""
    clauses: tuple[tuple[frozenset[str], str | None], ...]
    """Per clause: its :func:`content_terms`, and its negation cue (None without one)."""
    name_words: frozenset[str] = frozenset()
    """The folded words of the names it states."""
    scopes: tuple[frozenset[str], ...] = ()
    """Per clause (as :attr:`clauses`): the content terms its negation cue covers, up to the next "and", "as",
    "but" ... ("need not worry as JetBlue will provide ..." covers "worry"); empty without a cue."""


def _subject(text: str, names: list[Name]) -> frozenset[str]:
    """The folded words of the names ``text`` states before its first verb, outside parentheses and months: what a
    following "He" or "The film" refers to ("Daniel "Dan" Lewis (11 December 1902 - 1965) was ..." -> Daniel, Dan,
    Lewis)."""
    verb = _FIRST_VERB.search(text)
    end = verb.start() if verb else len(text)
    words: set[str] = set()
    for name in names:
        if name.start < end and text.count("(", 0, name.start) <= text.count(")", 0, name.start):
            words.update(w for w in name.words if w not in _MONTHS)
    return frozenset(words)


class EvidenceIndex:
    """The figures and folded words of one evidence text, for membership tests; its sentences on demand."""

    def __init__(self, content: str) -> None:
        self.content = content
        """The evidence text as given: what :attr:`spans` point into."""
        self.text = unicodedata.normalize("NFKC", content)
        self.figures = frozenset(extract_figures(self.text))
        self.words = frozenset(fold(w) for w in set(LETTERS.findall(self.text)))
        self.runs = digit_runs(self.text)

    @cached_property
    def keys(self) -> tuple[frozenset[str], frozenset[str]]:
        """The :func:`~._lemmas.evidence_keys` of its words (JSON keys split), for the support rule."""
        return evidence_keys(frozenset(LETTERS.findall(self.text)))

    @cached_property
    def capitalised(self) -> frozenset[str]:
        """Folded words the text writes with a capital where no sentence starts: the names it knows."""
        return frozenset(fold(m.group()) for m in _MID_CAPITAL.finditer(self.text))

    @cached_property
    def capitalised_words(self) -> frozenset[str]:
        """Folded words it writes capitalised anywhere (places, people, organisations and sentence starts)."""
        return frozenset(fold(w) for w in set(LETTERS.findall(self.text)) if w[0].isupper())

    @cached_property
    def lowercase_words(self) -> frozenset[str]:
        """The words it writes in lowercase: ordinary words, not names."""
        return frozenset(w for w in set(LETTERS.findall(self.text)) if w.islower())

    @cached_property
    def lowercase_keys(self) -> frozenset[str]:
        """The :func:`~._lemmas.word_key` of each word it writes in lowercase ("survivor" for "survivors")."""
        return frozenset(word_key(w) for w in self.lowercase_words)

    @cached_property
    def acronyms(self) -> frozenset[str]:
        """Its acronyms and the initials of its capitalised runs, folded (``FLSA``, and ``fdic`` for "Federal
        Deposit Insurance Corporation")."""
        return acronym_forms(self.text)

    @cached_property
    def written_acronyms(self) -> frozenset[str]:
        """The acronyms it writes (``FLSA``, ``us`` for "U.S."), folded: what a spelled-out name's initials may
        stand for."""
        return written_acronyms(self.text)

    @cached_property
    def spelled_runs(self) -> dict[str, tuple[str, ...]]:
        """Its runs of capitalised words by their initials: how it spells out an acronym it writes."""
        return spelled_runs(self.text)

    @cached_property
    def stems(self) -> frozenset[str]:
        """The stems of the whole text's content words."""
        return content_stems(self.text)

    @cached_property
    def bounds(self) -> tuple[tuple[int, int], ...]:
        """Where the text's sentences (the first few hundred) start and end in :attr:`text`."""
        return tuple((s.start, s.end) for s in split_sentences(self.text)[:_MAX_SENTENCES])

    @cached_property
    def spans(self) -> tuple[SpanSentence, ...]:
        """The same sentences as spans of :attr:`content`, each with its word keys: what a claim's support and
        its closest sentence are read from (:mod:`._claims`)."""
        return evidence_spans(self.content, self.text, self.bounds)

    @cached_property
    def sentences(self) -> tuple[EvidenceSentence, ...]:
        """The text's sentences (the first few hundred), each with what the meaning rules compare."""
        raw = [claim_text(self.text[start:end]) for start, end in self.bounds]
        names = [[n for n in extract_names(text, lone_first=True) if n.words] for text in raw]
        subjects = [_subject(text, found) for text, found in zip(raw, names, strict=True)]
        topic = subjects[0] if subjects else frozenset()
        out: list[EvidenceSentence] = []
        for i, text in enumerate(raw):
            opening = LETTERS.search(text)
            first = fold(opening.group()) if opening else ""
            context: frozenset[str] = frozenset()
            if i and first in _ANAPHOR_START:
                context = topic | subjects[i - 1] if first in _PRONOUN_START else topic
            words = frozenset(fold(w) for w in LETTERS.findall(text))
            parts = [part for part in CLAUSE_RE.split(text) if part.strip()]
            clauses = tuple((content_terms(part), negation_cue(part)) for part in parts)
            out.append(EvidenceSentence(text=text, words=words, stems=content_stems(text), figures=frozenset(
                extract_figures(text)), runs=digit_runs(text), context=context, negated=is_negated(text),
                clauses=clauses, name_words=frozenset(w for name in names[i] for w in name.words),
                scopes=tuple(negation_scope(part) for part in parts)))
        return tuple(out)
