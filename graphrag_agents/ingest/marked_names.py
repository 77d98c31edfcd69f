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
* A name of one token the corpus writes as a whole code span or a JSDoc type at least half as often as
  capitalised in its prose is a code identifier (:func:`code_identifier`: a class, an HTTP method or header),
  and is deleted the same way.
* A name holding a slash is a path, or two words or a protocol and its version written as one ("HTTP/1.x" in the
  Node.js docs' api/http2.md), and is deleted the same way.
* A name the corpus also writes in the plural ("C APIs" beside "C API"), or after "a" at the end of its noun
  phrase ("trigger a GC."), is a kind of thing, not a named one (:func:`plural_written`, :func:`indefinite`),
  and is deleted the same way.
* A place none of whose mentions follows "in", "at", "from" or "near", or more of them "on", is where software runs
  or a thing's name, not a place ("on Windows", "on Posix", "Granular Access Tokens (GAT) with ..."): it is moved
  to ``Unknown`` as :mod:`.retype` moves one. So is a person of one word that the corpus never writes beside
  another capitalised word (:func:`lone_person`): documentation names a person in full.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..store.graph import GraphStore
from .code_spans import mask_code
from .common_names import ProseWords
from .regroup import NER_PLAN
from .retype import move_to_unknown

__all__ = ["CorpusText", "code_identifier", "common_word", "indefinite", "lone_person", "platform_like",
           "plural_written", "read_marked_names", "sentence_word"]

_PAGE = 2000
_MARKED = "(c.text CONTAINS '`' OR c.text CONTAINS '](')"
_LOWER_RATIO = 20
_BEFORE = re.compile(r"\b(on|in|at|from|near)\s+\Z", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`['\"]?([^`\s'\"]+)['\"]?`")
"""A whole inline code span, quotes dropped: `` `AbortSignal` ``, `` `'CONNECT'` ``."""
_ARTICLE_BEFORE = re.compile(r"(?<![\w-])[Aa]n? \Z")
_CAPITAL_BEFORE = re.compile(r"(?<![\w-])([A-Z][\w.-]*) \Z")
_CAPITAL_AFTER = re.compile(r" ([A-Z][\w.-]*)(?![\w-])")
_JSDOC_TYPE = re.compile(r"\{([\w.|<>\[\], ]+)\}")
"""A JSDoc type, each of whose alternatives is a code identifier: ``{AbortSignal}``, ``{string|Buffer}``."""


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


@dataclass
class CorpusText:
    """The whole graph's text as :mod:`.marked_names` reads it: its prose (code masked) and the identifiers it
    writes as code (whole inline code spans and JSDoc types, counted)."""

    prose: ProseWords
    masked: str
    code: Counter[str]

    @classmethod
    def read(cls, texts: Iterable[str]) -> CorpusText:
        """Read raw chunk texts."""
        raw = list(texts)
        code: Counter[str] = Counter()
        for text in raw:
            code.update(_CODE_SPAN.findall(text))
            code.update(t.strip() for m in _JSDOC_TYPE.findall(text) for t in re.split(r"[|,]", m) if t.strip())
        masked = [mask_code(t) for t in raw]
        return cls(ProseWords(masked, sentence_starts=True), "\n".join(masked), code)


def code_identifier(name: str, corpus: CorpusText) -> bool:
    """Whether ``name``, one token, is written as a whole code span or JSDoc type at least half as often as the
    prose writes it capitalised inside a line (where it also stands inside longer names: "Extended CONNECT
    Protocol"), and at least once. The Node.js docs' api/http2.md writes `` `CONNECT` `` (an HTTP method),
    `` `AbortSignal` `` and ``{AbortSignal}`` (a class) and `` `Content-Length` `` (a header) as code, and each
    once or a few times in prose, where spaCy names them."""
    if " " in name or not name[:1].isupper():
        return False
    return 2 * corpus.code[name] >= max(2, corpus.prose.inline[name])


def _occurrences(name: str, corpus: CorpusText) -> Iterator[tuple[int, int]]:
    """Where the prose writes ``name`` as whole words (no letter, digit, ``_`` or ``-`` before it), found by a
    plain substring search: each reading below looks at what stands around these, never scans with a pattern."""
    text, at = corpus.masked, corpus.masked.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        if not (before.isalnum() or before in "_-"):
            yield at, at + len(name)
        at = text.find(name, at + 1)


def plural_written(name: str, corpus: CorpusText) -> bool:
    """Whether the prose writes ``name`` of several words with a plural ending too: "the exported C APIs" beside
    "Node-API is a C API" (the Node.js docs' api/n-api.md). A name is one thing; what has a plural is a kind."""
    if " " not in name:
        return False
    text = corpus.masked
    for _, end in _occurrences(name, corpus):
        tail = end + (2 if text.startswith("es", end) else 1 if text.startswith("s", end) else 0)
        if tail > end and not (text[tail:tail + 1].isalnum() or text[tail:tail + 1] in "_-"):
            return True
    return False


def indefinite(name: str, corpus: CorpusText) -> bool:
    """Whether the prose writes ``name`` as the head of an indefinite noun phrase: after "a" or "an" and right
    before a stop or a comma that ends a word ("calls to other APIs that might trigger a GC.", the Node.js docs'
    api/n-api.md). One thing with a name is not "a" one; "a TCP connection" uses a name as a modifier."""
    text = corpus.masked
    for start, end in _occurrences(name, corpus):
        # A stop right after the name: masked code leaves blanks ("a JavaScript `Date`"), and a line's end inside
        # a paragraph is a space ("refers to a JavaScript\nstring").
        stop = text[end:end + 1] in tuple(".,;:!?)") and text[end + 1:end + 2] in ("", " ", "\t", "\n")
        if stop and _ARTICLE_BEFORE.search(text, max(0, start - 4), start):
            return True
    return False


def lone_person(name: str, corpus: CorpusText) -> bool:
    """Whether a person called ``name`` is one word the prose never writes beside another capitalised word
    ("For Linux developers", "For Mac developers": the Node.js docs' api/n-api.md, where spaCy names both a
    person). Documentation names a person in full ("Beth Griggs"); a word alone, or beside a common word set in
    capitals where a sentence starts ("For"), is a platform or a product."""
    if " " in name or not name.isalpha():
        return False
    text = corpus.masked
    for start, end in _occurrences(name, corpus):
        if text[end:end + 1].isalnum():
            continue
        left = _CAPITAL_BEFORE.search(text, max(0, start - 60), start)
        right = _CAPITAL_AFTER.match(text, end)
        for beside in (left, right):
            if beside is not None and not corpus.prose.lower[beside.group(1).lower()]:
                return False  # "Linux Foundation"; "For Linux" is a sentence's common first word
    return True


async def _corpus(store: GraphStore) -> CorpusText:
    """Every chunk's text, read as one :class:`CorpusText`."""
    texts: list[str] = []
    skip = 0
    while True:
        rows = await store.ro_query("MATCH (c:Chunk) RETURN c.text SKIP $skip LIMIT $n", {"skip": skip, "n": _PAGE})
        texts += [str(t or "") for (t,) in rows]
        if len(rows) < _PAGE:
            return CorpusText.read(texts)
        skip += _PAGE


def _not_a_name(name: str, corpus: CorpusText) -> bool:
    return ("/" in name or common_word(name, corpus.prose) or code_identifier(name, corpus)
            or plural_written(name, corpus) or indefinite(name, corpus))


async def read_marked_names(store: GraphStore, places: Iterable[str], people: Iterable[str] = ()) -> tuple[int, int]:
    """Delete the common words, code identifiers and kinds, and re-type the platforms and lone persons (module
    docstring) among the ner extractor's entities of technical text; ``places`` and ``people`` are the labels it
    gives places and persons. Returns (deleted, re-typed)."""
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
    corpus = await _corpus(store)
    gone = [str(eid) for eid, name, _ in rows if _not_a_name(str(name), corpus)]
    gone_ids = set(gone)
    kept = [(str(eid), str(name), str(label)) for eid, name, label in rows if str(eid) not in gone_ids]
    moves = await _moves(store, kept, set(places), set(people), corpus)
    for start in range(0, len(gone), 500):
        await store.query(
            "UNWIND $ids AS id MATCH (e:__Entity__ {id: id}) OPTIONAL MATCH (e)-[:IN_FACT]->(f:__Fact__) "
            "WITH e, collect(f) AS facts DETACH DELETE e "
            "WITH facts UNWIND facts AS f WITH DISTINCT f WHERE NOT ()-[:IN_FACT]->(f) DELETE f",
            {"ids": gone[start:start + 500]}, idempotent=True)
    await move_to_unknown(store, moves)
    return len(gone), len(moves)


async def _moves(store: GraphStore, rows: list[tuple[str, str, str]], places: set[str], people: set[str],
                 corpus: CorpusText) -> list[str]:
    """The ids of the platforms typed a place and the lone persons among ``rows`` (id, name, label)."""
    moves: list[str] = []
    for eid, name, label in rows:
        if label in people and lone_person(name, corpus):
            moves.append(eid)
        elif label in places:
            texts = await store.ro_query("MATCH (:__Entity__ {id: $id})-[:MENTIONED_IN]->(c:Chunk) RETURN c.text",
                                         {"id": eid})
            if platform_like(name, (mask_code(str(t or "")) for (t,) in texts)):
                moves.append(eid)
    return moves
