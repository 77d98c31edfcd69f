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
from collections.abc import Sequence
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


def _subject(text: str, names: Sequence[Name]) -> frozenset[str]:
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


class EvidenceSentence:
    """One sentence of an evidence text: what every rule compares is read when the sentence is built; what only
    the sentence a claim restates needs (its names, clauses and negation scopes) on first use."""

    def __init__(self, text: str, *, before: EvidenceSentence | None = None,
                 first: EvidenceSentence | None = None) -> None:
        self.text = text
        """The sentence (NFKC-normalised)."""
        self.words = frozenset(fold(w) for w in LETTERS.findall(text))
        """Its folded words."""
        self.stems = frozenset(stem(w) for w in self.words if len(w) >= 4 and w not in FUNCTION_WORDS)
        """The stems of its content words (:func:`content_stems`)."""
        self.figures = frozenset(extract_figures(text))
        """Its figures, normalised."""
        self.negated = is_negated(text)
        """Whether it holds a negation cue."""
        self.context: frozenset[str] = frozenset()
        """Folded name words its pronouns or definite descriptions may stand for: the subject of the item's first
        sentence (``first``), and after a leading personal pronoun the subject of the sentence ``before``."""
        opening = LETTERS.search(text)
        lead = fold(opening.group()) if opening else ""
        if first is not None and lead in _ANAPHOR_START:
            self.context = first.subject
            if before is not None and lead in _PRONOUN_START:
                self.context |= before.subject

    @cached_property
    def names(self) -> tuple[Name, ...]:
        """The names it states (a lone first word too), each with words."""
        return tuple(n for n in extract_names(self.text, lone_first=True) if n.words)

    @cached_property
    def subject(self) -> frozenset[str]:
        """The folded words of the names it states before its first verb (:func:`_subject`)."""
        verb = _FIRST_VERB.search(self.text)
        if verb is None or "names" in self.__dict__:
            return _subject(self.text, self.names)
        # a run of capitalised words ends before the verb, so the names before it are those of the words before it
        head = self.text[:verb.start()]
        return _subject(self.text, [n for n in extract_names(head, lone_first=True) if n.words])

    @cached_property
    def name_words(self) -> frozenset[str]:
        """The folded words of the names it states."""
        return frozenset(w for name in self.names for w in name.words)

    @cached_property
    def _parts(self) -> list[str]:
        return [part for part in CLAUSE_RE.split(self.text) if part.strip()]

    @cached_property
    def clauses(self) -> tuple[tuple[frozenset[str], str | None], ...]:
        """Per clause: its :func:`content_terms`, and its negation cue (None without one)."""
        return tuple((content_terms(part), negation_cue(part)) for part in self._parts)

    @cached_property
    def scopes(self) -> tuple[frozenset[str], ...]:
        """Per clause (as :attr:`clauses`): the content terms its negation cue covers, up to the next "and", "as",
        "but" ... ("need not worry as JetBlue will provide ..." covers "worry"); empty without a cue."""
        return tuple(negation_scope(part) for part in self._parts)


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
        out: list[EvidenceSentence] = []
        for start, end in self.bounds:
            out.append(EvidenceSentence(claim_text(self.text[start:end]), before=out[-1] if out else None,
                                        first=out[0] if out else None))
        return tuple(out)
