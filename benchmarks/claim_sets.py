"""Turn published claim-verification data into evaluation sets of the shared format: claims asked against evidence.

    python benchmarks/claim_sets.py healthver healthver_dev.csv healthver_test.csv --out DIR
    python benchmarks/claim_sets.py climate-fever climate-fever.jsonl --out DIR
    python benchmarks/claim_sets.py covidfact COVIDFACT_dataset.jsonl --out DIR

The shared sets ask questions (Wikipedia multi-hop, npm's manual). A user who checks statements asks claims
instead: "Vitamin D may improve odds of survival from COVID-19." These sets let ``retrieval_bench.py`` report
ranking on claims, from two domains:

* ``healthver``: HealthVer (Sarrouti et al., EMNLP 2021; github.com/sarrouti/HealthVer, ``data/``) pairs health
  claims found on the web with snippets of COVID-19 research abstracts, each pair labelled Supports, Refutes or
  Neutral. The snippets carry no title and no links between them. A question's ``type`` is the file it came from
  (``dev``, ``test``), so the bench prints the halves apart.
* ``climate-fever``: CLIMATE-FEVER (Diggelmann et al., 2020; github.com/tdiggelm/climate-fever-dataset,
  ``dataset/climate-fever.jsonl``) pairs climate claims with five Wikipedia sentences each, labelled SUPPORTS,
  REFUTES or NOT_ENOUGH_INFO. A sentence's title is its article. A question's ``type`` is ``claim``.
* ``covidfact``: COVID-Fact (Saakyan et al., ACL 2021; github.com/asaakyan/covidfact, ``COVIDFACT_dataset.jsonl``)
  pairs claims posted about COVID-19 research with the sentences of their source (a preprint, a journal article
  or a news report) that decide them; a refuted claim is a real claim with its key words replaced. A source's
  sentences, joined in the order first met, are one passage: the excerpt of the article the claim was made from,
  several sentences long, with no title. Every claim is decided by its source, so each has one gold passage. A
  question's ``type`` is its label (``supported``, ``refuted``).

Each set is written as ``<name>.corpus.jsonl`` (every distinct evidence text of the files given, once) and
``<name>.questions.jsonl``: one question per distinct claim that at least one evidence text supports or refutes;
those texts are its gold passages. An evidence text on the claim's topic that says nothing about it is not gold.
``answer`` names the gold labels (the loader wants an answer; retrieval does not read it).

Neither repository carries a license file, so the output is not copied into this project; rebuild it from the
files.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ClaimSet", "climate_fever_pairs", "covidfact_pairs", "healthver_pairs"]

GOLD_LABELS = frozenset({"Supports", "Refutes", "SUPPORTS", "REFUTES"})


@dataclass(frozen=True)
class Pair:
    """One labelled claim-evidence pair."""

    split: str
    claim: str
    title: str
    evidence: str
    label: str


@dataclass
class ClaimSet:
    """Questions and a deduplicated corpus, built one pair at a time."""

    name: str
    corpus: dict[tuple[str, str], str] = field(default_factory=dict)
    """(title, text) -> passage id."""
    gold: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    labels: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def add(self, pair: Pair) -> None:
        """Add the pair's evidence to the corpus, and to its claim's gold when it supports or refutes it."""
        key = (pair.title.strip(), pair.evidence.strip())
        claim = pair.claim.strip()
        if not key[1] or not claim:
            return
        passage = self.corpus.setdefault(key, f"{self.name}-" + hashlib.sha1("\n".join(key).encode()).hexdigest()[:12])
        ids = self.gold.setdefault((pair.split, claim), [])
        if pair.label in GOLD_LABELS and passage not in ids:
            ids.append(passage)
            self.labels.setdefault((pair.split, claim), set()).add(pair.label.capitalize())

    def questions(self) -> list[dict[str, Any]]:
        """One question per claim with gold evidence, in the shared format."""
        return [{"id": f"{self.name}-{split}-{number}", "question": claim,
                 "answer": "/".join(sorted(self.labels[split, claim])), "answer_aliases": [], "answerable": True,
                 "type": split, "paragraph_ids": ids, "supporting_paragraph_ids": ids, "supporting_titles": []}
                for number, ((split, claim), ids) in enumerate(self.gold.items()) if ids]

    def rows(self) -> list[dict[str, str]]:
        """The corpus rows: id, title, text."""
        return [{"id": passage, "title": title, "text": text} for (title, text), passage in self.corpus.items()]


def healthver_pairs(path: Path) -> Iterator[Pair]:
    """HealthVer's CSV rows; the split is the file name's last part (``healthver_dev.csv`` -> ``dev``)."""
    split = path.stem.rsplit("_", 1)[-1]
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            yield Pair(split, row["claim"], "", row["evidence"], row["label"])


def climate_fever_pairs(path: Path) -> Iterator[Pair]:
    """CLIMATE-FEVER's claims, each with its five labelled Wikipedia sentences."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                for evidence in record["evidences"]:
                    yield Pair("claim", record["claim"], evidence["article"], evidence["evidence"],
                               evidence["evidence_label"])


def covidfact_pairs(path: Path) -> Iterator[Pair]:
    """COVID-Fact's claims, each with the excerpt of its source: every evidence sentence of that source, once."""
    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    excerpts: dict[str, list[str]] = {}
    for record in records:
        sentences = excerpts.setdefault(record["gold_source"], [])
        for sentence in (s.strip() for s in record["evidence"]):
            if sentence and sentence not in sentences:
                sentences.append(sentence)
    for record in records:
        label = "Supports" if record["label"] == "SUPPORTED" else "Refutes"
        yield Pair(record["label"].lower(), record["claim"], "", " ".join(excerpts[record["gold_source"]]), label)


READERS = {"healthver": healthver_pairs, "climate-fever": climate_fever_pairs, "covidfact": covidfact_pairs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=sorted(READERS), help="which published set the files are")
    parser.add_argument("files", nargs="+", type=Path, help="its data files")
    parser.add_argument("--out", type=Path, required=True, help="folder for <name>.{questions,corpus}.jsonl")
    args = parser.parse_args()
    claims = ClaimSet(args.name)
    for path in args.files:
        for pair in READERS[args.name](path):
            claims.add(pair)
    args.out.mkdir(parents=True, exist_ok=True)
    questions, rows = claims.questions(), claims.rows()
    for kind, items in (("questions", questions), ("corpus", rows)):
        with (args.out / f"{args.name}.{kind}.jsonl").open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
    print(f"{args.name}: {len(questions)} questions, {len(rows)} passages -> {args.out}")


if __name__ == "__main__":
    main()
