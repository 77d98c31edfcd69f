"""The one rule for user strings that become keys in the graph: document ids, entity names, labels, graph names.

FalkorDB's range index ignores whitespace (and control characters) at either end of a string key: ``"memo "`` is
found by a lookup of ``"memo"`` and never by its own, so a stored ``"memo "`` loses its chunks, a second ingest
makes a second node, and deleting ``"plan"`` deletes ``"plan "`` too. The rule, applied at every entry point and
by every lookup of a document id (ingest, update, delete, filters, the tools, file ids):

- whitespace at either end is **stripped** (``"memo\\n"`` is the document ``"memo"``): the index cannot tell
  them apart anyway, so the key written is the key every lookup finds; so are the invisible marks that
  ``str.strip()`` keeps (a byte-order mark, zero-width spaces and joiners, left-to-right and right-to-left marks
  and the other bidirectional controls, soft hyphens: Unicode format characters, category ``Cf``);
- the key is **NFC-normalised** (canonical equivalence): the composed and decomposed ``"café"`` are one key, and
  so are the few characters Unicode declares the same as another (the Kelvin sign ``"\\u212a"`` is ``"K"``, the
  ohm sign ``"\\u2126"`` is ``"Ω"``, the angstrom sign ``"\\u212b"`` is ``"Å"``) (:func:`canonical_key`).
  Compatibility forms stay **distinct** keys: ``"x²"`` and ``"x2"``, ``"Ⅸ"`` and ``"IX"``, ``"H₂O"`` and
  ``"H2O"``, ``"½"`` and ``"1⁄2"``, the full-width ``"ｃａｆé"`` and ``"café"``, ``"①"`` and ``"1"``, the
  ligature ``"ﬁ"`` and ``"fi"`` name different documents;
- a control character anywhere else (``"x\\x00"``, a tab inside an id), a lone surrogate, or nothing left after
  stripping is **refused** with a :class:`~graphrag_agents.errors.ToolError` whose hint names the fix;
- a key longer than :data:`MAX_KEY_BYTES` (1,024 UTF-8 bytes) is **refused**, with a hint: FalkorDB's range
  index keeps only the first 4,096 bytes of a string, so a longer id was stored but never found again (its
  chunks lost, a second ingest a second copy, a delete a no-op). The bound leaves room for the keys derived from
  one (a chunk id is the document id and ``#<index>``); an entity's folded name that Unicode normalisation
  stretches past it is kept under a stable digest instead (:func:`bounded_key`), the name itself unchanged.

A file's id is its path in NFC (:func:`file_key`; the toolkit's ``file:`` + the path under the files root).
Ids that come from file paths cannot be stripped (the stripped path would name another file): such a file is
refused instead, per file, with the rename to do (:func:`path_key_problem`), and so is a path over the bound
(a file many folders deep).

Entity names are keys of their own: two names are one entity when their NFKC, case-folded forms agree
(:func:`name_key`, written by ingest and looked up by retrieval), which is resolution, not a document id.

Free text (chunk text, questions) only refuses what breaks the query header: NUL and lone surrogates
(:func:`text_problem`); the store checks every query parameter for them (:func:`check_params`), so no entry point
can reach FalkorDB's parser with one. Free text that becomes a full-text (RediSearch) query keeps only its content
words (:func:`query_terms`, :func:`fulltext_query`), so no search operator can come from user text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Literal

from .errors import ToolError

__all__ = ["KEY_RULE", "MAX_KEY_BYTES", "QUERY_WORD", "STOPWORDS", "bounded_key", "canonical_key", "check_params",
           "compatibility_key", "file_key", "fulltext_query", "key_length_problem", "name_key", "normalise_key",
           "path_key_problem", "query_terms", "text_problem", "unaccented"]

KEY_RULE = 3
"""The version of this rule a graph's document ids follow (``key_rule`` in its metadata, and on each document
written since rule 3):

- 1 or none: whitespace stripped at the ends, nothing else (file ids: the path as written);
- 2: ids NFKC-normalised and invisible edge marks stripped when written, the id given is not kept (``"x²"`` was
  stored as ``"x2"``); file ids the path as written;
- 3: ids NFC-normalised and invisible edge marks stripped, file ids too (:func:`file_key`); compatibility forms
  are distinct ids. A document written under rule 2 is still found by any id whose NFKC form is its id.

``finalize`` upgrades an older graph's ids without deleting any document (``ingest/key_upgrade.py``)."""
MAX_KEY_BYTES = 1024
"""Longest key (UTF-8 bytes) the graph stores: document ids, file paths used as ids, entity names. FalkorDB's range
index finds keys up to 4,096 bytes; the rest is headroom for the keys derived from them."""


def _show(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:60] + "…")


def _bad_char(value: str) -> tuple[int, str] | None:
    for offset, char in enumerate(value):
        if unicodedata.category(char) in ("Cc", "Cs"):
            return offset, char
    return None


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot travel to FalkorDB as a query parameter (NUL, lone surrogate), or None."""
    if "\x00" in value:
        return f"contains a NUL character (\\x00) at offset {value.index(chr(0))}"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:  # only lone surrogates fail to encode
            return (f"contains a lone surrogate ({value[exc.start]!r}) at offset {exc.start}, which is not valid "
                    "Unicode text")
    return None


def _strip_edges(value: str) -> str:
    start, end = 0, len(value)
    while start < end and (value[start].isspace() or unicodedata.category(value[start]) == "Cf"):
        start += 1
    while end > start and (value[end - 1].isspace() or unicodedata.category(value[end - 1]) == "Cf"):
        end -= 1
    return value[start:end]


def canonical_key(value: str) -> str:
    """``value`` as the graph keys it: NFC, then whitespace and invisible format marks at either end removed
    (repeated, since NFC can turn a mark into a space). Example: ``canonical_key("\\ufeffcafe\\u0301 ")`` is
    ``"café"``; ``canonical_key("x²")`` is ``"x²"``."""
    return _fold(value, "NFC")


def compatibility_key(value: str) -> str:
    """``value`` as rule 2 keyed it (NFKC, edges stripped): the id a document written by that rule is stored under,
    looked up only for such documents. Example: ``compatibility_key("x²")`` is ``"x2"``."""
    return _fold(value, "NFKC")


def _fold(value: str, form: Literal["NFC", "NFKC"]) -> str:
    key = _strip_edges(value)
    while (folded := _strip_edges(unicodedata.normalize(form, key))) != key:
        key = folded
    return key


def file_key(path: str) -> str:
    """The document id part a file's ``path`` gives: the path in NFC (a decomposed ``"café.md"``, as macOS writes
    names, is the composed one), nothing stripped (:func:`path_key_problem` refuses what would be)."""
    return unicodedata.normalize("NFC", path)


def unaccented(text: str) -> str:
    """``text`` without its accents (NFKD, the combining marks dropped): ``"Aschenbrödel"`` is ``"Aschenbrodel"``.

    The one accent rule of the lookups that must match what a user types without accents: a question's phrases
    against document titles (retrieval) and an answer's words against the evidence's (the citation check)."""
    if text.isascii():
        return text
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def key_length_problem(key: str, what: str = "Document id") -> str | None:
    """Why ``key`` is too long to be a key in the graph (over :data:`MAX_KEY_BYTES` UTF-8 bytes), or None."""
    size = len(key.encode("utf-8", "surrogatepass"))
    if size <= MAX_KEY_BYTES:
        return None
    return (f"{what.lower()} is {size:,} UTF-8 bytes long, over the {MAX_KEY_BYTES:,}-byte bound for keys in the "
            "graph (FalkorDB's index cannot find longer ones)")


def bounded_key(key: str) -> str:
    """``key`` itself when it fits :data:`MAX_KEY_BYTES`, else its start and a sha256 digest of the whole (stable:
    the same long key always gives the same bounded one, so writes and lookups agree)."""
    data = key.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_KEY_BYTES:
        return key
    head = data[:MAX_KEY_BYTES - 70].decode("utf-8", "ignore")
    return f"{head}~sha256:{hashlib.sha256(data).hexdigest()}"


def name_key(name: str) -> str:
    """The normalised form two names must share to be one entity: NFKC, case-folded, single spaces.

    A form that NFKC stretches past the key bound (:data:`MAX_KEY_BYTES`) is kept under a stable digest."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return bounded_key(re.sub(r"\s+", " ", folded).strip(" .,;:'\""))


def normalise_key(value: object, what: str = "Document id") -> str:
    """Return ``value`` as :func:`canonical_key` keys it; refuse control characters, empty and too long values.

    Example: ``normalise_key("memo\\n") == "memo"``; ``normalise_key("x\\x00")`` raises :class:`ToolError`.
    """
    if not isinstance(value, str):
        raise ToolError(f"{what} must be a string, got {type(value).__name__}.", f"Pass the {what.lower()} as text.")
    try:
        key = canonical_key(value)
    except UnicodeError:  # a lone surrogate: refused below with its offset
        key = value.strip()
    if not key:
        raise ToolError(f"{what} {_show(value)} is empty.",
                        f"Pass a non-empty {what.lower()} (letters, digits and punctuation).")
    found = _bad_char(key)
    if found is not None:
        offset, char = found
        cleaned = " ".join("".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in key).split())
        fix = f"pass {cleaned!r} instead" if cleaned else f"pass a {what.lower()} of printable characters"
        raise ToolError(f"{what} {_show(value)} contains the control character {char!r} at offset "
                        f"{offset + len(value) - len(value.lstrip())}; keys in the graph cannot hold control "
                        "characters.", f"Remove it: {fix}.")
    if (problem := key_length_problem(key, what)) is not None:
        raise ToolError(f"The {problem}.", f"Pass a shorter {what.lower()} (a name, a number, or a digest of the "
                        "long value), and keep the long value in the text or the title.")
    return key


def path_key_problem(path: str) -> str | None:
    """Why a file's path cannot be its document id under the rule above (the reason and the rename), or None."""
    if path != path.strip():
        return ("the file name starts or ends with whitespace, which document ids cannot keep (the graph would "
                "confuse it with the name without it); rename the file without it")
    if path != _strip_edges(path):
        return ("the path starts or ends with an invisible format mark (a byte-order mark, a zero-width or "
                "bidirectional mark), which document ids cannot keep (the id would be the path without it); "
                "rename the file without it")
    found = _bad_char(path)
    if found is not None:
        return (f"the path contains the control character {found[1]!r}, which document ids cannot hold; rename "
                "the file without it")
    if (problem := key_length_problem(file_key(path), "The path used as its document id")) is not None:
        return f"{problem}; move the file to a shorter path, or ingest its text with a shorter document_id"
    return None


_NUMBERS = (int, float, bool)


def _first_problem(value: object, where: str) -> tuple[str, str] | None:
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else (where, problem)
    if isinstance(value, dict):
        for k, v in value.items():
            found = _first_problem(str(k), f"{where} key") or _first_problem(v, f"{where}.{k}")
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        if value and isinstance(value[0], float):
            return None  # a vector (the only lists of floats the package sends): nothing to check
        if all(type(v) in _NUMBERS or (type(v) is str and v.isascii() and "\x00" not in v) for v in value):
            return None  # the common case (ids, names, words, numbers), checked in one pass
        for i, v in enumerate(value):
            found = _first_problem(v, f"{where}[{i}]")
            if found:
                return found
    return None


def check_params(params: dict[str, object] | None) -> None:
    """Refuse query parameters that FalkorDB's query header cannot carry (NUL, lone surrogates).

    Raises:
        ToolError: naming the parameter and the offset, with the fix.
    """
    if not params:
        return
    for name, value in params.items():
        found = _first_problem(value, name)
        if found is not None:
            where, problem = found
            raise ToolError(f"A value sent to the graph store ({where}) {problem}.",
                            "Remove NUL characters and invalid Unicode from the text, ids and names, then repeat "
                            "the call.")


STOPWORDS = frozenset(
    "a an and are as at be been but by did do does for from had has have how i in into is it its of on "
    "or that the their them there these they this those to was were what when where which who whom whose "
    "why will with would you your he she his her him we our us not no can could than then also about "
    "after before during while one both same other such only own so too very s t just over under again "
    "further once more most some any each few all name named called known ".split()
)
"""Words a full-text query leaves out (:func:`query_terms`)."""
QUERY_WORD = re.compile(r"[^\W_]+", re.UNICODE)
"""A word as the keyword search splits text: a run of letters and digits (``npm_config_cache`` is three words); the
rules that compare a text's words with the question's split it the same way."""
_MAX_TERMS = 32


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased content words of ``text``, in order (at most 32)."""
    seen: dict[str, None] = {}
    for word in QUERY_WORD.findall(text.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:_MAX_TERMS]


def fulltext_query(text: str) -> str | None:
    """An OR query over the content words; None when nothing is left to search.

    Only word characters reach the query, so no RediSearch operator (``@``, ``-``, ``|``, quotes, braces) can
    come from user text.
    """
    terms = query_terms(text)
    return " | ".join(terms) if terms else None
