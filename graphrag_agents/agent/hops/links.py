"""A served chain checked against the evidence it cites, not against the question's template.

Each hop is checked alone (:mod:`.check`: one cited sentence states the hop's subject and its answer). This reads
the chain as a whole before it is served:

* **coverage**: the cited items, together, hold every name the question writes (its capitalised names and its
  ``code`` spans); a name no cited item holds was never looked up, so the chain answered a question about
  something else;
* **links**: each hop's cited item shares something with the next hop's: the same item, an entity both name (the
  answer carried from one hop to the next, or an entity card the retrieves returned: the graph's ``MENTIONED_IN``
  names), an identifier (a word holding a digit, ``.``, ``_``, ``/``, ``@`` or ``:``, or a ``code`` span), or a
  heading term (the next item's title, as a phrase of the earlier item);
* **not the bridge** is :mod:`..fit.bridge`'s rule, applied by ``conclude`` beside this one.

A chain that fails any of them is refused as ``off_question`` with the finding in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...evidence.ledger import Evidence
from ..fit.echo import question_units
from ..fit.names import question_names, without_note, words
from .check import HopStep

__all__ = ["chain_gap", "question_spans"]

_CODE = re.compile(r"`([^`]{1,80})`")
_IDENTIFIER = re.compile(r"\d|\w[._/@:]\w")


def question_spans(question: str) -> list[str]:
    """The names a question writes: its ``code`` spans, then its capitalised names."""
    return [*(m.group(1).strip() for m in _CODE.finditer(question)),
            *(n.text for n in question_names(_CODE.sub(" ", question)))]


def _holds(units: tuple[str, ...], text_units: tuple[str, ...]) -> bool:
    size = len(units)
    return bool(size) and any(text_units[i:i + size] == units for i in range(len(text_units) - size + 1))


def _identifiers(text: str) -> set[str]:
    return {u for u in question_units(text) if _IDENTIFIER.search(u)} | {m.group(1) for m in _CODE.finditer(text)}


def _title(item: Evidence, titles: Mapping[int, str]) -> str:
    """The passage's title as the reader showed it, its last heading when it has several ("commands/npm-ci.md ›
    Description"), without a note in parentheses."""
    return without_note(titles.get(item.n, "").split("›")[-1].strip())


def _linked(first: Evidence, second: Evidence, carried: str, entities: Iterable[str],
            titles: Mapping[int, str]) -> str | None:
    """What ``first`` and ``second`` both hold (for the trace), or None."""
    if first.n == second.n:
        return "the same item"
    a, b = question_units(first.content), question_units(second.content)
    for name in [carried, *entities]:
        units = question_units(name)
        if len(units) and _holds(units, a) and _holds(units, b):
            return f"the entity {name!r}"
    shared = _identifiers(first.content) & _identifiers(second.content)
    if shared:
        return f"the identifier {sorted(shared)[0]!r}"
    for item, other in ((second, a), (first, b)):
        title = _title(item, titles)
        if title and _holds(question_units(title), other):
            return f"the heading term {title!r}"
    return None


def chain_gap(question: str, answer: str, chain: Sequence[HopStep] | Sequence[dict[str, Any]],
              get: Callable[[int], Evidence | None], titles: Mapping[int, str],
              entities: Sequence[str] = ()) -> str | None:
    """Why the chain does not hold together (a finding in words), or None when its cited items cover the
    question's names and each hop's item links to the next."""
    items = [[item for n in step.get("evidence") or [] if (item := get(n)) is not None] for step in chain]
    if not all(items):
        return "a hop's cited evidence is no longer in the session"
    held = [question_units(f"{item.content} {_title(item, titles)}") for step in items for item in step]
    held.append(question_units(answer))
    for span in question_spans(question):
        units = question_units(span)
        if units and not any(_holds(units, text) for text in held) and not words(span) <= words(answer):
            return f"no cited evidence holds {span!r}, which the question names"
    for k in range(1, len(chain)):
        carried = str(chain[k - 1].get("answer") or "")
        if str(chain[k].get("subject") or "") != carried:
            continue  # the other side of a comparison starts a new run
        if not any(_linked(x, y, carried, entities, titles) for x in items[k - 1] for y in items[k]):
            return (f"hop {k}'s evidence [{items[k - 1][0].n}] and hop {k + 1}'s [{items[k][0].n}] share no "
                    "entity, identifier or heading term")
    return None
