"""Turn a MuSiQue sample into an evaluation set of the shared format, to measure retrieval on 3- and 4-hop questions.

    python benchmarks/musique_sample.py RECORDS.jsonl [RECORDS.jsonl ...] --out DIR
                                        [--distractors ../shared/eval/hotpotqa.corpus.jsonl]

MuSiQue (Trivedi et al., TACL 2022; CC BY 4.0) composes single-hop questions into chains of two to four hops
("Where do Greyhound buses leave from in the city where Arna Selznick's employer is headquartered?"). The shared
sets hold HotpotQA and 2Wiki only, whose questions are two hops; this script lets ``retrieval_bench.py`` report
recall by hop count on deeper questions. It reads, one JSON object a line, either

* the reduced shape ``{"id", "question", "answers": [...], "hops": [{"question", "answer", "title", "text"}]}``,
* or MuSiQue's own (``question_decomposition`` with ``paragraph_support_idx`` into ``paragraphs``), as
  published or in FlashRAG's layout (``golden_answers``, ``metadata.question_decomposition[].support_paragraph``);
  a record without its decomposition has its ``is_supporting`` paragraphs as its hops, in their listed order.

A file may also be one JSON array of such records (as HippoRAG and others publish them). MuSiQue-full's
unanswerable records (``"answerable": false``) are not questions here: their paragraphs join as distractors.

It writes ``musique.questions.jsonl`` and ``musique.corpus.jsonl`` into ``--out``: every supporting paragraph
once (the same title and text is one paragraph, shared by the questions that need it), MuSiQue's distractors
where the records carry them, and, with ``--distractors``, the paragraphs of another corpus file as further
distractors. A question's ``type`` is its hop count (``2hop``, ``3hop``, ``4hop``), so the bench's per-type rows
are per hop count. Keep MuSiQue's license note beside any copy of the output.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["MusiqueSet", "convert"]


class MusiqueSet:
    """Questions and a deduplicated corpus, built one record at a time."""

    def __init__(self) -> None:
        self.questions: list[dict[str, Any]] = []
        self.corpus: dict[tuple[str, str], str] = {}
        """(title, text) -> paragraph id."""
        self.unanswerable = 0
        """Records skipped as unanswerable (their paragraphs kept as distractors)."""

    def paragraph(self, title: str, text: str) -> str:
        """The id of this paragraph, added to the corpus on first sight."""
        key = (title.strip(), text.strip())
        if key not in self.corpus:
            self.corpus[key] = "musique-" + hashlib.sha1("\n".join(key).encode()).hexdigest()[:12]
        return self.corpus[key]

    def add(self, record: dict[str, Any]) -> None:
        """One record of any accepted shape (module docstring); an unanswerable one adds distractors only."""
        if record.get("answerable") is False:
            for paragraph in record.get("paragraphs", []):
                self.paragraph(paragraph["title"], paragraph["paragraph_text"])
            self.unanswerable += 1
            return
        hops = list(_hops(record))
        if len(hops) < 2:
            raise ValueError(f"record {record.get('id')!r}: {len(hops)} hops, a MuSiQue record has 2 to 4")
        for title, text in _distractors(record):
            self.paragraph(title, text)
        gold = list(dict.fromkeys(self.paragraph(title, text) for title, text in hops))
        answers = record.get("answers") or record.get("golden_answers") or [record.get("answer", "")]
        answers = [*answers, *record.get("answer_aliases", [])]
        self.questions.append({
            "id": str(record["id"]), "question": record["question"], "answer": answers[0],
            "answer_aliases": answers[1:], "answerable": True, "supporting_paragraph_ids": gold,
            "supporting_titles": [title for title, _ in hops], "type": f"{len(hops)}hop"})

    def write(self, out: Path) -> None:
        """``musique.questions.jsonl`` and ``musique.corpus.jsonl`` in ``out``."""
        out.mkdir(parents=True, exist_ok=True)
        with (out / "musique.questions.jsonl").open("w", encoding="utf-8") as handle:
            for row in self.questions:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        with (out / "musique.corpus.jsonl").open("w", encoding="utf-8") as handle:
            for (title, text), paragraph_id in self.corpus.items():
                handle.write(json.dumps({"id": paragraph_id, "title": title, "text": text}, ensure_ascii=False)
                             + "\n")


def _hops(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(title, text) of each hop's supporting paragraph, in the decomposition's order."""
    if "hops" in record:
        for hop in record["hops"]:
            yield hop["title"], hop["text"]
        return
    steps = record.get("question_decomposition") or record.get("metadata", {}).get("question_decomposition", [])
    if not steps:  # published without its decomposition: the supporting paragraphs in their listed order
        for paragraph in record.get("paragraphs", []):
            if paragraph.get("is_supporting"):
                yield paragraph["title"], paragraph["paragraph_text"]
        return
    by_index = {p["idx"]: p for p in record.get("paragraphs", [])}
    for step in steps:
        paragraph = step.get("support_paragraph") or by_index[step["paragraph_support_idx"]]
        yield paragraph["title"], paragraph["paragraph_text"]


def _distractors(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for paragraph in record.get("paragraphs", []):
        if not paragraph.get("is_supporting"):
            yield paragraph["title"], paragraph["paragraph_text"]


def _records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file, or of a file holding one JSON array (either gzipped: ``.gz``)."""
    text = (gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz"
            else path.read_text(encoding="utf-8"))
    if text.lstrip().startswith("["):
        yield from json.loads(text)
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def convert(records: list[Path], distractors: list[Path]) -> MusiqueSet:
    """The set from the record files, with each distractor file's paragraphs added to its corpus."""
    built = MusiqueSet()
    for path in records:
        for record in _records(path):
            built.add(record)
    for path in distractors:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                built.paragraph(row["title"], row["text"])
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path, nargs="+", help="MuSiQue records, one JSON object a line")
    parser.add_argument("--out", type=Path, required=True, help="folder for musique.{questions,corpus}.jsonl")
    parser.add_argument("--distractors", type=Path, action="append", default=[],
                        help="a corpus JSONL (id, title, text) whose paragraphs join as distractors; repeatable")
    args = parser.parse_args()
    built = convert(args.records, args.distractors)
    built.write(args.out)
    by_hops: dict[str, int] = {}
    for row in built.questions:
        by_hops[row["type"]] = by_hops.get(row["type"], 0) + 1
    print(f"{len(built.questions)} questions ({', '.join(f'{n} {t}' for t, n in sorted(by_hops.items()))}), "
          f"{len(built.corpus)} paragraphs -> {args.out}"
          + (f"; {built.unanswerable} unanswerable records kept as distractors only" if built.unanswerable else ""))


if __name__ == "__main__":
    main()
