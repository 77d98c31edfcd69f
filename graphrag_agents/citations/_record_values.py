"""Records: a claim that gives an attribute of a cited record another value than the record does (private).

A record is structured evidence: an item whose content is a JSON object, or an entity card (``Name (Label):
description``) followed by its properties as a JSON object. Every value of such a record is in the evidence's
words, so the literal rules find each figure and name of a claim that pairs an attribute with the wrong one of
them ("3 stars" where the record gives ``"stars": 4`` and ``"review_count": 3``; "offers outdoor seating" where it
gives ``"OutdoorSeating": false``), and no sentence rule reads a JSON object's structure. This rule reads it: an
attribute is named by the words of its key (``OutdoorSeating`` -> "outdoor seating", ``review_count`` -> "review
count"; a one-word lowercase key by that word only), and a clause that names one is checked against its value:

* a yes/no value: the clause must not negate it where the record says true, nor state it unnegated where the
  record says false. A negation covers what follows it in its comma-separated part and the short list items after
  that part ("there is no valet, garage, or lot parking"); what comes before it only as the subject of a negated
  verb ("outdoor seating is not available"), not across "and" or a relative pronoun, and a new subject after
  "and" ends it;
* a number: the figure written right before the key's words ("3 stars") or right after them and a copula, "of" or
  ":" ("a rating of 3") must be the record's value (a scale, "out of 5", is no value);
* a text: the value after the key's words and a copula ("its city is Goleta") must not be another value of the
  record when it is not this one.

The business records of RAGTruth's Data2txt task read more of their schema (ambience adjectives, parking kinds,
reviews that say an attribute): the ``records`` pack (:mod:`._pack_records`) reads those with this rule's scope.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..text.words import LETTERS, fold
from ._figures import extract_figures
from ._lemmas import split_compound, word_key
from ._polarity import negation_at

__all__ = ["Attribute", "attribute_finding", "is_record", "key_words_of", "record_data", "record_value_finding"]

_OBJECT_START = re.compile(r"\s*\{")
_KEY = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:')
# Words of a key that name no attribute: "is_open" is about being open, "has_parking" about parking.
_GENERIC = frozenset({"is", "has", "have", "can", "does", "allows"})
# Objects that hold a record's fields, not a group of them: their keys need no group word.
_CONTAINERS = frozenset({"attributes", "properties", "fields", "data", "details", "info"})
_FALSE = frozenset({"false", "no"})
_TRUE = frozenset({"true", "yes"})
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
# what binds a value to the key's words before it: "rating of 3", "stars: 4", "city is Goleta"
_BINDING = re.compile(r"\s*(?::|=|\bis\b|\bare\b|\bwas\b|\bwere\b|\bof\b)\s*", re.IGNORECASE)
_SCALE = re.compile(r"(?:\bout\s+of|/)\s*$", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Attribute:
    """One attribute of a record with a yes/no, number or text value."""

    name: str
    """Its key as the record writes it, e.g. ``OutdoorSeating``."""
    keys: tuple[str, ...]
    """The word keys a claim must say to name it."""
    joined: str
    """The key of its words written as one word ("takeout")."""
    group: str | None
    """A word key the claim must also say (a pack's group word), or None."""
    value: bool | float | str


def is_record(item: Any) -> bool:
    """Whether an evidence index's text is a JSON object (a record); an entity card with properties is read by
    :func:`record_data`."""
    return _OBJECT_START.match(item.text) is not None


@lru_cache(maxsize=1024)
def record_data(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` is, or the properties an entity card's text ends with; None otherwise."""
    body = text if _OBJECT_START.match(text) else _card_properties(text)
    if body is None:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _card_properties(text: str) -> str | None:
    """The JSON object an entity card ends with: ``Aspirin (Drug): a pain reliever {"dose": "500 mg"}``."""
    start = text.find("{")
    if start <= 0 or not text.rstrip().endswith("}"):
        return None
    head = text[:start]
    opens = head.find(" (")
    closes = head.find(")", opens + 2)
    if opens <= 0 or closes <= opens + 2 or "\n" in head[:closes] or head.count("(", 0, closes) != 1:
        return None
    rest = head[closes + 1:].strip()
    return text[start:] if not rest or rest.startswith(":") else None


@lru_cache(maxsize=1024)
def key_words_of(text: str) -> frozenset[str]:
    """The folded words of a JSON text's keys, whole and with compounds split."""
    return frozenset(part.casefold() for key in _KEY.findall(text)
                     for part in (key, *split_compound(key), *key.split("_")) if part)


def key_words(name: str, generic: frozenset[str] = _GENERIC) -> list[str]:
    """The folded words of a key that name its attribute (``OutdoorSeating`` -> outdoor, seating)."""
    parts = [p for piece in name.split("_") for p in split_compound(piece) if p]
    return [fold(part) for part in parts if fold(part) not in generic]


def attribute(name: str, value: bool | float | str, group: str | None = None,
              generic: frozenset[str] = _GENERIC) -> Attribute | None:
    """The attribute a key and its value give, or None when the key's words name nothing."""
    words = key_words(name, generic)
    if not words:
        return None
    return Attribute(name, tuple(word_key(w) for w in words), word_key("".join(words)), group, value)


def _leaf(value: Any) -> bool | float | str | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        folded = text.casefold()
        return False if folded in _FALSE else True if folded in _TRUE else text or None
    return None


def _walk(node: dict[str, Any], group: str | None = None,
          depth: int = 0) -> Iterator[tuple[str, bool | float | str, str | None]]:
    """Each leaf as (key, value, group): the last word of the object it is nested in, for a one-word key (a
    parking kind "garage" in ``BusinessParking``), when that object is no container of the record's fields."""
    for key, value in node.items():
        if isinstance(value, dict) and depth < 4:
            words = [] if fold(str(key)) in _CONTAINERS else key_words(str(key))
            yield from _walk(value, word_key(words[-1]) if words else None, depth + 1)
        elif (leaf := _leaf(value)) is not None:
            yield str(key), leaf, group if len(key_words(str(key))) == 1 else None


@lru_cache(maxsize=1024)
def record_attributes(text: str) -> tuple[Attribute, ...]:
    """Every attribute of the record ``text`` holds, at any depth; none when it holds no record."""
    data = record_data(text)
    if data is None:
        return ()
    return tuple(a for key, value, group in _walk(data) if (a := attribute(key, value, group)) is not None)


def record_value_finding(claim: str, items: Sequence[Any], skip: Any = None) -> str | None:
    """What ``claim`` says against an attribute of a cited record (see the module docstring), or None; the yes/no
    attributes of records for which ``skip(item)`` is true are left to a pack that reads them."""
    records = [item for item in items if record_data(item.text) is not None]
    if not records:
        return None
    yes_no = tuple(a for item in records if skip is None or not skip(item)
                   for a in record_attributes(item.text) if isinstance(a.value, bool))
    found = attribute_finding(claim, yes_no) if yes_no else None
    return found if found is not None else _value_finding(
        claim, tuple(a for item in records for a in record_attributes(item.text)))


# ------------------------------------------------------------------ yes/no attributes, in a negation's scope


def attribute_finding(
    claim: str, attributes: Sequence[Attribute], reviewed: frozenset[str] = frozenset(), *, adjacent: bool = True,
) -> str | None:
    """What a clause of ``claim`` says against a yes/no attribute of ``attributes``, or None; an attribute given as
    false is no conflict where a cited review says it (its words in ``reviewed``, folded). With ``adjacent`` a key
    of several words is named only by its words in a row ("outdoor seating"); else by its words anywhere in the
    part (the records pack's reading)."""
    said = {word_key(w) for w in LETTERS.findall(claim)}
    for clause in _CLAUSES.split(claim):
        carried = False  # the negation of the part before, carried into a list item
        for part in _PARTS.split(clause):
            words = [(m.start(), m.group()) for m in LETTERS.finditer(part)]
            item = carried and sum(fold(w) not in _CONJUNCTIONS for _, w in words) <= _LIST_ITEM_WORDS
            cues = _cues(part) + [offset for offset, word in words if fold(word) in _NEGATED_WORDS]
            for one in attributes:
                found = _against(one, part, words, cues, item, said, reviewed, adjacent)
                if found is not None:
                    return found
            carried = item or bool(cues)
    return None


def _against(one: Attribute, part: str, words: list[tuple[int, str]], cues: list[int], item: bool,
             said: set[str], reviewed: frozenset[str], adjacent: bool) -> str | None:
    """The finding when ``part`` names ``one`` with the other truth value, else None."""
    at = named_at(one, words, adjacent)
    if at is None or (one.group is not None and one.group not in said):
        return None
    negated = (item or any(cue < at and _NEW_SUBJECT.search(part, cue, at) is None for cue in cues)
               or _negated_after(part, at))
    if negated != one.value or (one.value is False and _reviewed(one, reviewed)):
        return None
    verb = "denies" if negated else "states"
    return f"the claim {verb} {one.name}; the record gives it as {str(one.value).lower()}"


def _single_word(one: Attribute) -> bool:
    """A one-word lowercase key ("touristy", "casual") is named by that word only, not by a word of its stem."""
    return one.group is None and one.name.islower() and "_" not in one.name


def _reviewed(one: Attribute, reviewed: frozenset[str]) -> bool:
    """Whether a review says the attribute ("upscale casual place", "a vacant parking lot")."""
    if not reviewed:
        return False
    if _single_word(one):
        return one.name.casefold() in reviewed
    return all(any(word_key(w) == k for w in reviewed) for k in one.keys)


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


def named_at(one: Attribute, words: list[tuple[int, str]], adjacent: bool = True) -> int | None:
    """Where ``words`` name ``one`` (the offset of its first word there), or None."""
    if _single_word(one):
        found = [at for at, w in words if fold(w) == one.name.casefold()]
        return found[0] if found else None
    keys = [word_key(w) for _, w in words]
    if one.joined in keys:
        return words[keys.index(one.joined)][0]
    if adjacent:
        size = len(one.keys)
        return next((words[i][0] for i in range(len(keys) - size + 1) if tuple(keys[i:i + size]) == one.keys), None)
    if all(k in keys for k in one.keys):
        return min(words[keys.index(k)][0] for k in one.keys)
    return None


# ------------------------------------------------------------------ numbers and texts bound to their key


def _value_finding(claim: str, attributes: Sequence[Attribute]) -> str | None:
    """A number or text the claim binds to an attribute's key that is not its value, or None. A number is bound
    to the key's last word ("3 stars" to ``business_stars``), and is no finding where any cited record gives it
    for a key of that word (a review's ``review_stars``)."""
    numbers: dict[str, list[Attribute]] = {}
    texts: dict[str, list[Attribute]] = {}
    for one in attributes:
        if isinstance(one.value, float):
            numbers.setdefault(one.keys[-1], []).append(one)
        elif isinstance(one.value, str):
            texts.setdefault(one.name, []).append(one)
    values = {fold(a.value) for a in attributes if isinstance(a.value, str)}
    for clause in _CLAUSES.split(claim):
        words = [(m.start(), m.end(), m.group()) for m in LETTERS.finditer(clause)]
        keys = [word_key(w) for _, _, w in words]
        for head, same in numbers.items():
            found = _bound_number(clause, [(s, e) for (s, e, _), k in zip(words, keys, strict=True) if k == head],
                                  same)
            if found is not None:
                return found
        for same in texts.values():
            found = _bound_text(clause, words, keys, same, values)
            if found is not None:
                return found
    return None


def _bound_number(clause: str, spans: list[tuple[int, int]], same: list[Attribute]) -> str | None:
    """A figure written next to the key's last word (at ``spans``) that no attribute of that word gives."""
    given = {a.value for a in same}
    for start, end in spans:
        said = _number_at(clause, start, end)
        if said is not None and said not in given:
            shown = ", ".join(f"{a.name} {_show(a.value)}" for a in same[:3])
            return f"the claim gives {_show(said)} {clause[start:end]}; the record gives {shown}"
    return None


def _key_span(one: Attribute, words: list[tuple[int, int, str]], keys: list[str]) -> tuple[int, int] | None:
    """Where the clause writes the key's words next to each other (or as one word), or None."""
    size = len(one.keys)
    for i in range(len(keys)):
        if size > 1 and keys[i] == one.joined:
            return words[i][0], words[i][1]
        if tuple(keys[i:i + size]) == one.keys:
            return words[i][0], words[i + size - 1][1]
    return None


def _bound_text(clause: str, words: list[tuple[int, int, str]], keys: list[str], same: list[Attribute],
                values: set[str]) -> str | None:
    """Another value of the records written right after the key's words and a copula ("its city is Goleta")."""
    span = _key_span(same[0], words, keys)
    binding = None if span is None else _BINDING.match(clause, span[1])
    if span is None or binding is None or binding.end() == span[1]:
        return None
    rest = fold(clause[binding.end():])
    own = {fold(a.value) for a in same if isinstance(a.value, str)}
    for other in sorted(values - own, key=len, reverse=True):
        if len(other) >= 3 and rest.startswith(other) and not rest[len(other):len(other) + 1].isalnum():
            said = clause[binding.end():binding.end() + len(other)]
            return f"the claim gives {same[0].name} as {said}; the record gives {same[0].value}"
    return None


def _number_at(clause: str, start: int, end: int) -> float | None:
    """The figure right before the key's words ("3 stars", "3.5-star"), or right after them and a binding word
    ("rating of 3"); a scale ("out of 5 stars") is none."""
    before = re.search(r"(\d+(?:[.,]\d+)?)[\s-]*$", clause[:start])
    if before is not None and _SCALE.search(clause[:before.start()]) is None:
        return _figure(before.group(1))
    binding = _BINDING.match(clause, end)
    if binding is not None and binding.end() > end and (after := _NUMBER.match(clause, binding.end())) is not None:
        return _figure(after.group())
    return None


def _figure(text: str) -> float | None:
    figures = extract_figures(text)
    try:
        return float(figures[0]) if figures else None
    except ValueError:
        return None


def _show(value: float | str | bool) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
