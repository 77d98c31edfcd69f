"""The passages returned: ``top_k`` distinct sections, each text once, picked from the final order.

Two readings of what a reader gains from one more passage, applied while walking the final order (best first):

* **Repeated text is one item.** A candidate whose text repeats one picked before (:mod:`.repeats`: the same once
  case and whitespace are normalised, or near-same by shingles) is folded into it as a copy: it takes no place,
  and the passage names every source. npm's docs copy one config section onto six command pages; the six copies
  filled six of the eight passages a new user's question got.
* **A section counts once.** A section is a document's chunks under one heading (a document without headings is
  one section). The first ``per_section`` chunks of a section take places; a further chunk enters only when its
  words hold a question word no passage picked before holds (it adds coverage), and then right after its
  section's last picked chunk, so the two read in order. Otherwise the place goes to the next section. npm's
  ``npm-install.md › Description`` is long enough for several chunks, and its second chunk took the place of
  the option's own entry that a two-section question needed. Chunks set aside fill the places left when the
  candidates hold fewer sections than ``top_k``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .candidates import Candidate
from .repeats import Repeats

__all__ = ["NEAR_SCAN", "pick"]

NEAR_SCAN = 40
"""Candidates (best first) compared with the picked passages for the same or near-same text while places are left;
the rest for the same string only."""


def _section(cand: Candidate) -> tuple[str, str]:
    return cand.document_id, cand.heading


def pick(order: Sequence[str], merged: Mapping[str, Candidate], top_k: int,
         words: Mapping[str, frozenset[str]], idf: Mapping[str, float],
         per_section: int = 1) -> tuple[list[str], dict[str, list[str]]]:
    """The chunk ids to return, in order, and per picked chunk the ids of the copies folded into it.

    ``order``: candidates best first; ``words``: the question words each chunk's text holds (a chunk not read
    adds no coverage); ``idf``: the question's content words; ``per_section`` <= 0: no section rule, only the
    folding of repeats.
    """
    repeats = Repeats()
    picked: list[str] = []
    copies: dict[str, list[str]] = {}
    taken: dict[tuple[str, str], int] = {}
    aside: list[str] = []
    covered: set[str] = set()

    def place(cid: str, after_section: bool) -> None:
        cand = merged[cid]
        at = len(picked)
        if after_section:  # right after its section's last picked chunk
            at = max(i for i, other in enumerate(picked) if _section(merged[other]) == _section(cand)) + 1
        picked.insert(at, cid)
        copies[cid] = []
        taken[_section(cand)] = taken.get(_section(cand), 0) + 1
        repeats.keep(cid, cand.text)
        covered.update(words.get(cid, frozenset()) & idf.keys())

    for rank, cid in enumerate(order):
        cand = merged[cid]
        # once the places are taken, or past the best NEAR_SCAN candidates, only the same string is looked for (a
        # dictionary lookup: normalising and shingling every candidate cost 1-2 ms of a 2Wiki retrieve, and npm's
        # copies are the same string)
        near = rank < NEAR_SCAN and len(picked) < top_k
        same = repeats.original(cand.text, near=near) if cand.text else None
        if same is not None:
            copies[same].append(cid)
            continue
        if len(picked) >= top_k:
            continue  # only copies of what is picked from here on
        if per_section > 0 and taken.get(_section(cand), 0) >= per_section:
            if not (words.get(cid, frozenset()) & idf.keys()) - covered:
                aside.append(cid)
                continue
            place(cid, after_section=True)
            continue
        place(cid, after_section=False)
    for cid in aside:
        if len(picked) >= top_k:
            break
        same = repeats.original(merged[cid].text) if merged[cid].text else None
        if same is not None:
            copies[same].append(cid)
        else:
            place(cid, after_section=True)
    return picked, copies
