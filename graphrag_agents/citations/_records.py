"""The records pack: a business record's yes/no attributes as RAGTruth's Data2txt (Yelp) records give them (private).

A business record nests its yes/no attributes under ``attributes`` and groups some of them: ``"Ambience":
{"trendy": false}``, ``"BusinessParking": {"garage": false}``, ``"Music": {...}``, some groups written as a
Python-like string (``"{'garage': False}"``), and some values as strings (``"u'free'"``, ``"u'no'"``). The
general record rule (:mod:`._record_values`) reads plain JSON values; this reading knows that schema: an ambience
is named by its own adjective ("touristy", not "tourists"), a parking kind or a music kind only where the claim
also says "parking" / "music", the words "restaurants", "business", "good for" name no attribute
(``RestaurantsTakeOut`` is "take out"), and an attribute the record gives as false is no conflict where a cited
review says it ("upscale casual place"). The scope of a negation is the general rule's
(:func:`~._record_values.attribute_finding`). Enabled by the ``records`` pack only.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ..text.words import fold
from ._lemmas import split_compound, word_key
from ._record_values import Attribute, attribute_finding

__all__ = ["Attribute", "record_attributes", "record_finding"]

# Words of a key that name no attribute: "RestaurantsReservations" is about reservations.
_GENERIC = frozenset({"restaurants", "restaurant", "business", "has", "good", "for", "accepts", "is"})
# Groups of attributes whose own words suffice ("trendy"), and those whose group word must be said too.
_GROUPS = {"ambience": None, "businessparking": "park", "music": "music"}
_FALSE = frozenset({"false", "no", "none", "u'no'", "'no'", "u'none'"})
_TRUE = frozenset({"true", "yes", "free", "paid", "u'free'", "'free'", "u'paid'", "'paid'"})


def _words(key: str) -> list[str]:
    return [fold(part) for part in split_compound(key) if fold(part) not in _GENERIC]


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().casefold()
        return False if text in _FALSE else True if text in _TRUE else None
    return None


@lru_cache(maxsize=1024)
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
    """What a clause of ``claim`` says against a yes/no attribute of the cited business records, or None; an
    attribute the record gives as false is no conflict where a cited review says it (its words in ``reviewed``)."""
    return attribute_finding(claim, attributes, reviewed, adjacent=False) if attributes else None
