"""``finalize``'s reading of names in technical text against the whole corpus: common words set in capitals are
dropped, and a "place" the corpus writes as a platform is re-typed.

The extractor judges a name against one document's prose (:class:`~graphrag_agents.ingest.common_names.ProseWords`).
A section of npm's docs that opens "Dependencies are specified in ..." never writes "dependencies" in lower case
itself, while the rest of the corpus does hundreds of times.
Here the whole graph's prose is read, for the entities of technical text only: those of the ``ner`` extractor
most of whose mentions stand in chunks holding markup (inline code or a link), or every one of them when at least
half the graph's chunks hold markup (npm's and Node.js's docs: over 90%; a one-line section such as "Config
supports the following sub-commands:" holds none). Encyclopedic prose has none (HotpotQA: no chunk, 2Wiki: 2 of
3,199 paragraphs), and its names are left as the extractor stored them.

* A name the corpus's prose writes as a common word or phrase (:func:`common_word` over every chunk:
  "Dependencies", "Basic Auth"), or whose first word is a common word set in capitals only where a line starts
  ("Global Configs", "Delete Granular Access"), is deleted with its mentions; its facts stay with their other
  entities (a fact left with none is deleted).
* A place none of whose mentions follows "in", "at", "from" or "near", or more of them "on", is where software runs
  or a thing's name, not a place ("on Windows", "on Posix", "Granular Access Tokens (GAT) with ..."): it is moved
  to ``Unknown`` as :mod:`.retype` moves one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..store.graph import GraphStore
from .code_spans import mask_code
from .common_names import ProseWords
from .regroup import NER_PLAN
from .retype import move_to_unknown

__all__ = ["common_word", "platform_like", "read_marked_names", "sentence_word"]

_PAGE = 2000
_MARKED = "(c.text CONTAINS '`' OR c.text CONTAINS '](')"
_LOWER_RATIO = 20
_BEFORE = re.compile(r"\b(on|in|at|from|near)\s+\Z", re.IGNORECASE)


def common_word(name: str, prose: ProseWords) -> bool:
    """Whether ``name`` is a common word or phrase of the corpus: a phrase :meth:`ProseWords.common` calls one, or
    whose first word is a sentence's (:func:`sentence_word`); a single capitalised word (or abbreviation: "E.g")
    the prose writes in lower case and capitalises only where a line or a sentence starts ("Commonly"), or writes
    in lower case at least :data:`_LOWER_RATIO` times as often as capitalised inside a sentence ("Dependencies":
    415 to 3 in npm's docs), where the name of a tool its commands write in lower case stays ("Git": 94 to 9)."""
    words = name.split()
    if len(words) > 1:
        return prose.common(name) or sentence_word(name, prose)
    word = words[0]
    if not (word.istitle() and word.replace(".", "").isalpha()):
        return False
    lower, inline = prose.lower[word.lower()], prose.inline[word]
    return lower > 0 if inline == 0 else lower >= _LOWER_RATIO * inline


def sentence_word(name: str, prose: ProseWords) -> bool:
    """Whether the first word of a name of several words is a sentence's: a common word the prose writes in lower
    case at least as often as capitalised, and capitalises more often where a line starts than inside a line
    (an imperative opening a line of instructions, capitalised there and written in lower case elsewhere)."""
    words = name.split()
    first = words[0]
    if len(words) < 2 or not (first.istitle() and first.isalpha()):
        return False
    starts, inline = prose.starts[first], prose.inline[first]
    return starts > inline and prose.lower[first.lower()] >= starts + inline


def platform_like(name: str, texts: Iterable[str]) -> bool:
    """Whether the mentions of ``name`` in ``texts`` (the chunks mentioning it) do not read as a place's: none
    follows "in", "at", "from" or "near", or more follow "on" ("on Windows", "on Posix"; "Granular Access Tokens
    (GAT) with ..." follows nothing)."""
    on = place = 0
    for text in texts:
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
            before = _BEFORE.search(text, 0, m.start())
            if before is not None and before.group(1).lower() == "on":
                on += 1
            elif before is not None:
                place += 1
    return place == 0 or on > place


async def _prose(store: GraphStore) -> ProseWords:
    """Every chunk's text, its code masked, as one :class:`ProseWords`."""
    texts: list[str] = []
    skip = 0
    while True:
        rows = await store.ro_query("MATCH (c:Chunk) RETURN c.text SKIP $skip LIMIT $n", {"skip": skip, "n": _PAGE})
        texts += [mask_code(str(t or "")) for (t,) in rows]
        if len(rows) < _PAGE:
            return ProseWords(texts, sentence_starts=True)
        skip += _PAGE


async def read_marked_names(store: GraphStore, places: Iterable[str]) -> tuple[int, int]:
    """Delete the common words and re-type the platforms (module docstring) among the ner extractor's entities
    of technical text; ``places`` are the labels it gives places. Returns (deleted, re-typed)."""
    (chunks, marked), = await store.ro_query(
        f"MATCH (c:Chunk) RETURN count(c), sum(CASE WHEN {_MARKED} THEN 1 ELSE 0 END)")
    rows = await store.ro_query(
        "MATCH (e:__Entity__)-[:MENTIONED_IN]->(c:Chunk) MATCH (d:Document {id: c.document_id}) "
        f"WITH e, count(c) AS n, sum(CASE WHEN {_MARKED} THEN 1 ELSE 0 END) AS marked, "
        "sum(CASE WHEN d.plan CONTAINS $plan THEN 0 ELSE 1 END) AS other "
        "WHERE other = 0 AND ($technical OR 2 * marked > n) RETURN e.id, e.name, e.label",
        {"plan": NER_PLAN, "technical": 2 * int(marked or 0) >= int(chunks or 0) > 0})
    if not rows:
        return 0, 0
    prose = await _prose(store)
    gone = [str(eid) for eid, name, _ in rows if common_word(str(name), prose)]
    place_labels = set(places)
    moves: list[str] = []
    for eid, name, label in rows:
        if str(label) in place_labels and str(eid) not in gone:
            texts = await store.ro_query("MATCH (:__Entity__ {id: $id})-[:MENTIONED_IN]->(c:Chunk) RETURN c.text",
                                         {"id": str(eid)})
            if platform_like(str(name), (mask_code(str(t or "")) for (t,) in texts)):
                moves.append(str(eid))
    for start in range(0, len(gone), 500):
        await store.query(
            "UNWIND $ids AS id MATCH (e:__Entity__ {id: id}) OPTIONAL MATCH (e)-[:IN_FACT]->(f:__Fact__) "
            "WITH e, collect(f) AS facts DETACH DELETE e "
            "WITH facts UNWIND facts AS f WITH DISTINCT f WHERE NOT ()-[:IN_FACT]->(f) DELETE f",
            {"ids": gone[start:start + 500]}, idempotent=True)
    await move_to_unknown(store, moves)
    return len(gone), len(moves)
