"""Records: a claim that gives a JSON record's yes/no attribute the other value (private).

Evidence may be a structured record ("OutdoorSeating": false, "Ambience": {"trendy": false}); an answer that
says the place "offers outdoor seating" or has "a trendy atmosphere" states what the record denies, and every
word of it is in the evidence, so no other rule sees it. For each cited item that is a JSON object, the
attributes with a true/false value (a top-level key, or a key inside "Ambience", or inside "BusinessParking" and
"Music" when the claim also says "parking" / "music") are matched by their words (``OutdoorSeating`` ->
"outdoor seating", ``RestaurantsTakeOut`` -> "take out" or "takeout"), and a clause that names one is checked:
not negated where the record says false, negated where it says true. A negation covers what follows it in its
comma-separated part, and the short list items after that part ("there is no valet, garage, or lot parking");
what comes before it only as the subject of a negated verb ("outdoor seating is not available"), not across
"and" ("a classy, divey ambience and does not accept reservations" denies no ambience).
An ambience is named by its own adjective only ("touristy", not "tourists").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ._lemmas import split_compound, word_key
from ._polarity import negation_at
from ._text import LETTERS, fold

__all__ = ["Attribute", "record_attributes", "record_finding"]

# Words of a key that name no attribute: "RestaurantsReservations" is about reservations.
_GENERIC = frozenset({"restaurants", "restaurant", "business", "has", "good", "for", "accepts", "is"})
# Groups of attributes whose own words suffice ("trendy"), and those whose group word must be said too.
_GROUPS = {"ambience": None, "businessparking": "park", "music": "music"}
_FALSE = frozenset({"false", "no", "none", "u'no'", "'no'", "u'none'"})
_TRUE = frozenset({"true", "yes", "free", "paid", "u'free'", "'free'", "u'paid'", "'paid'"})
_CLAUSES = re.compile(r";|,?\s+but\s+|,?\s+while\s+|,?\s+although\s+|,?\s+however\s+|,?\s+whereas\s+|\.\s",
                      re.IGNORECASE)
_NEGATED_WORDS = frozenset({"lack", "lacks", "without", "unavailable", "neither"})
_PARTS = re.compile(r",\s*")
# A comma-separated part of at most this many words is a list item: it keeps the negation of the part before it.
_LIST_ITEM_WORDS = 3
# "outdoor seating is not available": a negated verb after the attribute, with no "and" / "but" between them
_NEGATED_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|does|do)\s+not\b|\b(?:is|are|was|were|has|have|does|do)n['’]t\b", re.IGNORECASE)
_JOINS = re.compile(r"\b(?:and|but|while|with|whereas|though|although|that|which|who)\b", re.IGNORECASE)
# "garage parking and valet services are not available": a plural verb after "and" has both as its subject
_PLURAL_NEGATED = re.compile(r"\b(?:are|were|do|have)(?:\s+not\b|n['’]t\b)", re.IGNORECASE)
# "the parking lot is not particularly scenic" says how it is, not that there is none
_DEGREE = re.compile(r"\s+(?:particularly|very|too|so|that|as|overly|exactly|really|quite|always|the)\b",
                     re.IGNORECASE)
# "rather than trendy or upscale" denies what follows it, as "not" does
_OTHER_CUE = re.compile(r"\b(?:rather\s+than|instead\s+of)\b", re.IGNORECASE)
# "doesn't offer Wi-Fi and its parking options include street parking": a new subject ends the negation
_NEW_SUBJECT = re.compile(r"\band\s+(?:its|it|their|they|the|there|this|he|she|we)\b", re.IGNORECASE)
_CONJUNCTIONS = frozenset({"and", "or"})


@dataclass(frozen=True)
class Attribute:
    """One yes/no attribute of a record."""

    name: str
    """Its key as the record writes it, e.g. ``OutdoorSeating``."""
    keys: tuple[str, ...]
    """The word keys a claim must say to name it."""
    joined: str
    """The key of its words written as one word ("takeout")."""
    group: str | None
    """A word key the claim must also say ("park" for a BusinessParking key), or None."""
    value: bool


def _words(key: str) -> list[str]:
    return [fold(part) for part in split_compound(key) if fold(part) not in _GENERIC]


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().casefold()
        return False if text in _FALSE else True if text in _TRUE else None
    return None


def record_attributes(text: str) -> tuple[Attribute, ...]:
    """The yes/no attributes of ``text`` when it is a JSON object; none otherwise."""
    if not text.lstrip().startswith("{"):
        return ()
    try:
        data = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(data, dict):
        return ()
    out: list[Attribute] = []

    def add(key: str, value: Any, group: str | None) -> None:
        truth = _truth(value)
        words = _words(key)
        if truth is None or not words:
            return
        out.append(Attribute(key, tuple(word_key(w) for w in words), word_key("".join(words)), group, truth))

    def walk(node: dict[str, Any]) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                folded = fold(key)
                if folded in _GROUPS:
                    for inner, leaf in value.items():
                        add(inner, leaf, _GROUPS[folded])
                elif folded == "attributes":
                    walk(value)
            elif isinstance(value, str) and value.lstrip().startswith("{"):
                # some records nest a group as a Python-like string: {'garage': False, 'street': True}
                try:
                    parsed = json.loads(value.replace("'", '"').replace("False", "false").replace("True", "true"))
                except ValueError:
                    continue
                if isinstance(parsed, dict) and fold(key) in _GROUPS:
                    for inner, leaf in parsed.items():
                        add(inner, leaf, _GROUPS[fold(key)])
            else:
                add(key, value, None)

    walk(data)
    return tuple(out)


def record_finding(
    claim: str, attributes: tuple[Attribute, ...], reviewed: frozenset[str] = frozenset(),
) -> str | None:
    """What a clause of ``claim`` says against a yes/no attribute of the cited records, or None; an attribute the
    record gives as false is no conflict where a cited review says it (its words in ``reviewed``, folded)."""
    if not attributes:
        return None
    said = {word_key(w) for w in LETTERS.findall(claim)}
    for clause in _CLAUSES.split(claim):
        carried = False  # the negation of the part before, carried into a list item
        for part in _PARTS.split(clause):
            words = [(m.start(), m.group()) for m in LETTERS.finditer(part)]
            item = carried and sum(fold(w) not in _CONJUNCTIONS for _, w in words) <= _LIST_ITEM_WORDS
            cues = _cues(part) + [offset for offset, word in words if fold(word) in _NEGATED_WORDS]
            for attribute in attributes:
                at = _named_at(attribute, words)
                if at is None or (attribute.group is not None and attribute.group not in said):
                    continue
                negated = (item or any(cue < at and _NEW_SUBJECT.search(part, cue, at) is None for cue in cues)
                           or _negated_after(part, at))
                if negated == attribute.value and not (attribute.value is False and _reviewed(attribute, reviewed)):
                    verb = "denies" if negated else "states"
                    return (f"the claim {verb} {attribute.name}; the record gives it as "
                            f"{str(attribute.value).lower()}")
            carried = item or bool(cues)
    return None


def _reviewed(attribute: Attribute, reviewed: frozenset[str]) -> bool:
    """Whether a review says the attribute ("upscale casual place", "a vacant parking lot")."""
    if attribute.group is None and attribute.name.islower():
        return attribute.name.casefold() in reviewed
    return all(any(word_key(w) == k for w in reviewed) for k in attribute.keys)


def _cues(part: str) -> list[int]:
    """The offsets of every negation cue of ``part`` ("not", "no", "n't", "rather than", ...)."""
    out = [m.start() for m in _OTHER_CUE.finditer(part)]
    start = 0
    while (found := negation_at(part[start:])) is not None:
        out.append(start + found)
        start += found + 1
    return out


def _negated_after(part: str, at: int) -> bool:
    """Whether the attribute named at ``at`` is the subject of a negated verb after it ("is not available")."""
    m = _NEGATED_VERB.search(part, at)
    if m is None or _DEGREE.match(part, m.end()):
        return False
    join = _JOINS.search(part, at, m.start())
    # "and" joins a plural subject ("garage parking and valet services are not available"), else a new verb
    return join is None or (join.group().casefold() == "and" and _PLURAL_NEGATED.fullmatch(m.group()) is not None
                            and _JOINS.search(part, join.end(), m.start()) is None)


def _named_at(attribute: Attribute, words: list[tuple[int, str]]) -> int | None:
    """Where a part's words name ``attribute`` (the offset of its first word there), or None."""
    keys = [word_key(w) for _, w in words]
    if attribute.group is None and attribute.name.islower():
        # an ambience ("touristy", "casual") is named by its own adjective, not by a word of its stem
        found = [at for at, w in words if fold(w) == attribute.name.casefold()]
        return found[0] if found else None
    if attribute.joined in keys:
        return words[keys.index(attribute.joined)][0]
    if all(k in keys for k in attribute.keys):
        return min(words[keys.index(k)][0] for k in attribute.keys)
    return None
