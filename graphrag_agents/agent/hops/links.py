"""A served chain checked against the evidence it cites, not against the question's template.

Each hop is checked alone (:mod:`.check`: one cited sentence states the hop's subject and its answer). This reads
the chain as a whole before it is served:

* **coverage**: the cited items, together, hold every name the question writes (its capitalised names and its
  ``code`` spans), or a shown item linked to a cited one through the chain's answers holds it (the single-path
  rule's allowance: a hop may cite one of two items that both state its answer); a name nothing linked holds was
  never looked up, so the chain answered a question about something else;
* **links**: each hop's cited item shares something with the next hop's: the same item or document, an entity both
  name (the answer carried from one hop to the next, or an entity card the retrieves returned: the graph's
  ``MENTIONED_IN`` names), an identifier (a word holding a digit, ``.``, ``_``, ``/``, ``@`` or ``:``, or a
  ``code`` span), or a heading term (one item's title, as a phrase of the other);
* **not the bridge** is :mod:`..fit.bridge`'s rule, applied by ``conclude`` beside this one.

The names and the links are read as :mod:`..fit.coverage` reads them for a single-path answer.

A chain that fails any of them is refused as ``off_question`` with the finding in words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...evidence.ledger import Evidence
from ..fit.coverage import heading, linked, question_spans
from ..fit.echo import holds, question_units
from ..fit.names import words
from ..fit.shown import ShownItem
from .check import HopStep

__all__ = ["chain_gap", "question_spans"]


def _shown(item: Evidence, titles: Mapping[int, str]) -> ShownItem:
    return ShownItem(item.n, titles.get(item.n, ""), item.content)


def _held_beside(units: tuple[str, ...], cited: Sequence[Evidence], get: Callable[[int], Evidence | None],
                 titles: Mapping[int, str], answers: Sequence[str]) -> bool:
    """Whether a shown item no hop cites holds the name ``units`` and is linked to a cited one through the chain's
    own answers (:func:`~..fit.coverage.linked`): the single-path coverage rule's allowance. Why: a hop may cite one
    of two items that both state its answer ("X starred in the film" beside "X played Freddie in the film"), and the
    name the question gives is in the other."""
    numbers = {item.n for item in cited}
    for n in titles:
        item = get(n)
        if n in numbers or item is None or not holds(units, question_units(f"{item.content} {heading(titles[n])}")):
            continue
        if any(linked(_shown(item, titles), _shown(source, titles), answers) for source in cited):
            return True
    return False


def chain_gap(question: str, answer: str, chain: Sequence[HopStep] | Sequence[dict[str, Any]],
              get: Callable[[int], Evidence | None], titles: Mapping[int, str],
              entities: Sequence[str] = ()) -> str | None:
    """Why the chain does not hold together (a finding in words), or None when its cited items cover the
    question's names and each hop's item links to the next."""
    items = [[item for n in step.get("evidence") or [] if (item := get(n)) is not None] for step in chain]
    if not all(items):
        return "a hop's cited evidence is no longer in the session"
    held = [question_units(f"{item.content} {heading(titles.get(item.n, ''))}") for step in items for item in step]
    held.append(question_units(answer))
    cited = [item for step in items for item in step]
    answers = [answer, *(str(step.get("answer") or "") for step in chain[:-1])]
    for span in question_spans(question):
        units = question_units(span)
        if units and not any(holds(units, text) for text in held) and not words(span) <= words(answer) \
                and not _held_beside(units, cited, get, titles, answers):
            return f"no cited evidence holds {span!r}, which the question names"
    for k in range(1, len(chain)):
        carried = str(chain[k - 1].get("answer") or "")
        if str(chain[k].get("subject") or "") != carried:
            continue  # the other side of a comparison starts a new run
        if not any(linked(_shown(x, titles), _shown(y, titles), [carried, *entities])
                   for x in items[k - 1] for y in items[k]):
            return (f"hop {k}'s evidence [{items[k - 1][0].n}] and hop {k + 1}'s [{items[k][0].n}] share no "
                    "document, entity, identifier or heading term")
    return None
