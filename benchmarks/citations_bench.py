"""Precision and recall of ``check_citations`` flags on labelled sets built from the HotpotQA and 2WikiMultihopQA
samples, with the literal rules alone (``meaning=False``, the rule book before the meaning rules), with the meaning
rules before claim support (``support=False``) and with the default (meaning rules, claim support and relation
direction), in the same run; and its run time on answers of 10 KB, 100 KB and 1 MB.

    python benchmarks/citations_bench.py [--seed 0] [--eval-dir ../shared/eval] [--sets hotpotqa,2wikimultihopqa]
        [--no-linearity] [--show-misses N]

The meaning drafts (negated, opposite, moved name, and their controls) are built in ``citation_sets.py``.

Every question's 10 paragraphs are the evidence, numbered [1]..[10] in the file's order. The drafts are built
from its supporting-fact sentences (see ``_drafts``), each sentence labelled "should be flagged" or "should
pass" by the rule book, through a small oracle written here independently of the checker's code. A case the
rule book's literal check cannot see (a distractor paragraph that happens to hold every figure and name of the
sentence; a changed name or figure that the cited paragraph also holds) is left out of precision and recall
and counted. A labelled sentence counts as flagged when a sentence in ``uncited`` or ``unsupported`` overlaps
it (one contains the other, markers ignored), so splitting errors are charged to the checker.
Data: HotpotQA (CC BY-SA 4.0), see the eval folder's README.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from citation_sets import (
    CONTROLS,
    MEANING_KINDS,
    Draft,
    Labelled,
    cite,
    meaning_drafts,
    negation_removed_drafts,
    wiki_questions,
)

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import CitationCheck, check_citations

_DEFAULT_EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_LETTERS = re.compile(r"[^\W\d_]+")
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NUMBER = re.compile(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]\d)")
_CAP_RUN = re.compile(r"[^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*)*")
_MARKER = re.compile(r"\s*[\[［]\s*[\d\s,\-–]+\s*[\]］]")
_END = re.compile(r"[.!?…]+[\"'”’)]*$")
# The rule book's openers "such as The or However", as this oracle reads them (deliberately not the checker's
# list): a sentence whose only capitalised word is one of these states no name.
_ORACLE_OPENERS = frozenset(
    "the a an he she it they his her its their this these those in on at however after before during as when "
    "while although there we i one both".split()
)
_LACK_TEMPLATES = [
    "The graph does not say when {A} was founded.",
    "The retrieved passages do not mention the birth date of {A}.",
    "I could not find any evidence about {A} and {B}.",
    "There is no information in the evidence about who owns {A}.",
    "None of the passages states how many people {A} employed.",
    "The exact age of {A} is not mentioned in the graph.",
    "Nothing in the retrieved evidence says whether {A} worked with {B}.",
    "The sources are silent on the nationality of {A}.",
    "I was unable to determine from the passages which award {A} won.",
    "The evidence provided doesn't state the year {A} began.",
    "No passage in the graph mentions the first release of {A}.",
]
_WORLD_NEGATIVE_TEMPLATES = [
    "{A} was never a member of {B}.",
    "{A} did not win an award for {B}.",
    "{A} is not related to {B}.",
    "{A} does not appear in {B}.",
    "{A} has nothing to do with {B}.",
    "The election results in {A} were not certified until 2021.",
    "{A} was not named chief executive of {B} in 2015.",
    "The tools did not arrive at {A} until 1990.",
]
_PREFIXES = ["According to the passages, ", "Notably, ", "In short, ", "Based on the evidence, "]


# ---------------------------------------------------------------- oracle (the rule book, written plainly)

def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def _figure(raw: str) -> str:
    whole, _, frac = raw.replace(",", "").partition(".")
    frac = frac.rstrip("0")
    whole = whole.lstrip("0") or "0"
    return f"{whole}.{frac}" if frac else whole


def _ev_words(text: str) -> set[str]:
    return {_fold(w) for w in _LETTERS.findall(unicodedata.normalize("NFKC", text))}


def _ev_figures(text: str) -> set[str]:
    return {_figure(m.group().rstrip(",")) for m in _FIGURE.finditer(unicodedata.normalize("NFKC", text))}


def _name_words(sentence: str, *, skip_first: bool) -> set[str]:
    """Words of 3+ letters of the sentence's capitalised words (the first word left out when asked)."""
    out: set[str] = set()
    tokens = re.findall(r"[^\W\d_][\w'’\-]*", sentence)
    for i, token in enumerate(tokens):
        if (i == 0 and skip_first) or not token[0].isupper():
            continue
        out.update(_fold(w) for w in _LETTERS.findall(token) if len(w) >= 3)
    return out


def _detectable(sentence: str, evidence_text: str) -> bool:
    """Whether the literal check can see that ``evidence_text`` does not back ``sentence``."""
    figures = {_figure(m.group().rstrip(",")) for m in _FIGURE.finditer(sentence)}
    words = _name_words(sentence, skip_first=True)
    return bool(figures - _ev_figures(evidence_text)) or bool(words - _ev_words(evidence_text))


def _states_claim(sentence: str) -> bool:
    """A figure, or a capitalised word other than an opening opener."""
    if re.search(r"\d", sentence):
        return True
    tokens = re.findall(r"[^\W\d_][\w'’\-]*", sentence)
    return any(t[0].isupper() and not (i == 0 and t.casefold() in _ORACLE_OPENERS) for i, t in enumerate(tokens))


# ---------------------------------------------------------------- draft construction

def _title(paragraph: dict[str, Any]) -> str:
    return re.sub(r"\s*\(.*\)$", "", paragraph["title"]).strip()


def _with_prefix(sentence: str, rng: random.Random) -> str:
    prefix = rng.choice(_PREFIXES)
    first = sentence.split(" ", 1)[0]
    if first.casefold() in _ORACLE_OPENERS:
        sentence = sentence[0].lower() + sentence[1:]
    return prefix + sentence


def _change_name(sentence: str, new_name: str, rng: random.Random) -> str | None:
    first = re.search(r"[^\W\d_]", sentence)
    start = first.start() if first else 0
    runs = [m for m in _CAP_RUN.finditer(sentence) if m.start() > start and m.group()[0].isupper()]
    runs = [m for m in runs if m.group().casefold() != new_name.casefold()]
    if not runs:
        return None
    m = rng.choice(runs)
    return sentence[:m.start()] + new_name + sentence[m.end():]


def _change_figure(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    numbers = list(_NUMBER.finditer(sentence))
    if not numbers:
        return None
    m = rng.choice(numbers)
    raw = m.group()
    if "." in raw:
        whole, frac = raw.split(".")
        new = f"{whole}.{frac[:-1]}{(int(frac[-1]) + rng.randint(1, 8)) % 10}"
    else:
        new = str(int(raw) + rng.choice([1, 2, 3, 4, 6, 7, 9]))
    if _figure(new) == _figure(raw):
        return None
    return sentence[:m.start()] + new + sentence[m.end():], new


def _drafts(q: dict[str, Any], corpus: dict[str, dict[str, Any]], rng: random.Random) -> list[Draft]:
    paragraphs = [corpus[pid] for pid in q["paragraph_ids"]]
    evidence = {i + 1: Evidence(n=i + 1, tool="retrieve", kind="passage", content=p["text"], source=p["id"])
                for i, p in enumerate(paragraphs)}
    number = {p["title"]: i + 1 for i, p in enumerate(paragraphs)}
    gold = {number[corpus[pid]["title"]] for pid in q["supporting_paragraph_ids"]}
    others = [n for n in evidence if n not in gold]
    facts: list[tuple[str, int]] = []
    drafts: list[Draft] = []
    for title, index in q["supporting_facts"]:
        n = number.get(title)
        if n is None or index >= len(paragraphs[n - 1]["sentences"]):
            continue
        text = paragraphs[n - 1]["sentences"][index].strip()
        if text:
            facts.append((text, n))
            drafts += meaning_drafts(paragraphs[n - 1], index, n, evidence, rng)
    for n in sorted(gold):
        drafts += negation_removed_drafts(paragraphs[n - 1], n, evidence, rng)
    for text, n in facts:
        drafts += _fact_drafts(text, n, evidence, others, paragraphs, rng)
    if len(facts) >= 2 and facts[0][1] != facts[1][1]:
        drafts += _pair_drafts(facts[0], facts[1], evidence, rng)
    drafts += _answer_drafts(q, evidence, gold, others, rng)
    drafts += _negative_drafts(paragraphs, evidence, rng)
    return drafts


def _fact_drafts(text: str, n: int, evidence: dict[int, Evidence], others: list[int],
                 paragraphs: list[dict[str, Any]], rng: random.Random) -> list[Draft]:
    own = evidence[n].content
    body = _with_prefix(text, rng) if rng.random() < 0.3 else text
    out = [Draft(cite(body, [n], rng), evidence, [Labelled(body, False, "supported")], True)]
    if others:  # one question has no distractor paragraph
        d = rng.choice(others)
        detectable = _detectable(text, evidence[d].content)
        out.append(Draft(cite(text, [d], rng), evidence,
                         [Labelled(text, True if detectable else None, "distractor", "unsupported")], True))
    name = _title(paragraphs[rng.choice([m for m in evidence if m != n]) - 1])
    changed = _change_name(text, name, rng)
    if changed is not None:
        flag = bool(_name_words(name, skip_first=False) - _ev_words(own)) or None
        out.append(Draft(cite(changed, [n], rng), evidence,
                         [Labelled(changed, flag, "name changed", "unsupported")], True))
    out += _format_drafts(text, n, evidence, rng)
    figure = _change_figure(text, rng)
    if figure is not None:
        changed, new = figure
        flag = (_figure(new) not in _ev_figures(own)) or None
        out.append(Draft(cite(changed, [n], rng), evidence,
                         [Labelled(changed, flag, "figure changed", "unsupported")], True))
    out.append(Draft(text, evidence, [Labelled(text, _states_claim(text), "uncited", "uncited")], False))
    bogus = rng.randint(11, 99)
    out.append(Draft(cite(text, [bogus], rng), evidence,
                     [Labelled(text, _states_claim(text), "invalid number only", "uncited")], False, [bogus]))
    dropped = {k: v for k, v in evidence.items() if k != n}
    out.append(Draft(cite(text, [n], rng), dropped,
                     [Labelled(text, _states_claim(text), "dropped evidence only", "uncited")], False, [n]))
    return out


def _reformat_figure(sentence: str) -> str | None:
    """The same figure written another way: thousands separators added or dropped, a trailing zero, % / percent."""
    for m in _FIGURE.finditer(sentence):
        raw = m.group().rstrip(",")
        if "," in raw:
            new = raw.replace(",", "")
        elif "." in raw:
            new = raw + "0"
        elif len(raw) >= 5:
            new = f"{int(raw):,}"
        else:
            continue
        return sentence[:m.start()] + new + sentence[m.start() + len(raw):]
    if re.search(r"\d ?%", sentence):
        return re.sub(r"(\d) ?%", r"\1 percent", sentence, count=1)
    if re.search(r"\d percent\b", sentence):
        return re.sub(r"(\d) percent\b", r"\1%", sentence, count=1)
    return None


def _markdown(sentence: str, n: int, rng: random.Random) -> str:
    cited = cite(sentence, [n], rng)
    style = rng.randrange(4)
    if style == 0:
        run = next((m for m in _CAP_RUN.finditer(cited) if m.group()[0].isupper()), None)
        return cited if run is None else f"{cited[:run.start()]}**{run.group()}**{cited[run.end():]}"
    if style == 1:
        return f"## Answer\n\n{cited}"
    if style == 2:
        return f"Here is what the evidence shows:\n\n1. {cited}\n"
    return f"> {cited}"


def _format_drafts(text: str, n: int, evidence: dict[int, Evidence], rng: random.Random) -> list[Draft]:
    out = [Draft(_markdown(text, n, rng), evidence, [Labelled(text, False, "supported, Markdown")], True)]
    reformatted = _reformat_figure(text)
    if reformatted is not None:
        out.append(Draft(cite(reformatted, [n], rng), evidence,
                         [Labelled(reformatted, False, "figure written differently")], True))
    words = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
             "nine": "9", "ten": "10", "twelve": "12", "twenty": "20"}
    hit = re.search(r"\b(" + "|".join(words) + r")\b", text)
    if hit is not None:
        digits = words[hit.group(1)]
        changed = text[:hit.start()] + digits + text[hit.end():]
        flag = (digits not in _ev_figures(evidence[n].content)) or None
        out.append(Draft(cite(changed, [n], rng), evidence,
                         [Labelled(changed, flag, "number word as digits", "unsupported")], True))
    return out


def _pair_drafts(first: tuple[str, int], second: tuple[str, int], evidence: dict[int, Evidence],
                 rng: random.Random) -> list[Draft]:
    (s1, n1), (s2, n2) = first, second
    cited = [cite(s1, [n1], rng), cite(s2, [n2], rng)]
    joined = "\n".join(f"- {c}" for c in cited) if rng.random() < 0.3 else " ".join(cited)
    out = [Draft(joined, evidence, [Labelled(s1, False, "supported pair"), Labelled(s2, False, "supported pair")],
                 True)]
    out.append(Draft(f"{cited[0]} {s2}", evidence,
                     [Labelled(s1, False, "supported pair"), Labelled(s2, _states_claim(s2), "uncited after cited",
                                                                      "uncited")], True))
    merged = _END.sub("", s1) + "; " + s2[0].lower() + s2[1:] if s2[:1].isupper() and _is_opener(s2) else None
    if merged is not None:
        both = sorted({n1, n2})
        out.append(Draft(cite(merged, both, rng), evidence, [Labelled(merged, False, "merged, both cited")], True))
        flag = _detectable(merged, evidence[n1].content) or None
        out.append(Draft(cite(merged, [n1], rng), evidence,
                         [Labelled(merged, flag, "merged, one cited", "unsupported")], True))
    return out


def _is_opener(sentence: str) -> bool:
    return sentence.split(" ", 1)[0].casefold() in _ORACLE_OPENERS


def _answer_drafts(q: dict[str, Any], evidence: dict[int, Evidence], gold: set[int], others: list[int],
                   rng: random.Random) -> list[Draft]:
    answer = q["answer"].strip()
    if answer.casefold() in ("yes", "no") or not answer:
        return []
    holders = sorted(n for n in gold if re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", evidence[n].content))
    if not holders or not others:
        return []
    text = f"The answer is {answer}."
    out = [Draft(cite(text, holders[:1], rng), evidence, [Labelled(text, False, "short answer")], True)]
    wrong = rng.choice(others)
    flag = _detectable(text, evidence[wrong].content) or None
    out.append(Draft(cite(text, [wrong], rng), evidence,
                     [Labelled(text, flag, "short answer, wrong citation", "unsupported")], True))
    return out


def _negative_drafts(paragraphs: list[dict[str, Any]], evidence: dict[int, Evidence],
                     rng: random.Random) -> list[Draft]:
    a, b = rng.sample([_title(p) for p in paragraphs], 2)
    lack = rng.choice(_LACK_TEMPLATES).format(A=a, B=b)
    world = rng.choice(_WORLD_NEGATIVE_TEMPLATES).format(A=a, B=b)
    return [
        Draft(lack, evidence, [Labelled(lack, False, "graph lacks it")], False),
        Draft(world, evidence, [Labelled(world, True, "negative world claim", "uncited")], False),
    ]


# ---------------------------------------------------------------- scoring

def _norm(text: str) -> str:
    return "".join(_MARKER.sub("", text).split())


def _flagged(check: CitationCheck) -> dict[str, tuple[str, frozenset[str]]]:
    """Flagged sentences -> (list, the rules that flagged it: ``literal`` or the meaning rules' names)."""
    literal = frozenset({"literal"})
    found: dict[str, tuple[str, frozenset[str]]] = {_norm(s): ("uncited", literal) for s in check.uncited}
    for c in check.unsupported:
        rules = frozenset(x.rule for x in c.conflicts) if c.conflicts else frozenset({"literal"})
        found[_norm(c.sentence)] = ("unsupported", rules)
    return found


def _match(sentence: str, flagged: dict[str, tuple[str, frozenset[str]]]) -> tuple[str, frozenset[str]] | None:
    mine = _norm(sentence)
    for text, hit in flagged.items():
        if text and (text in mine or mine in text):
            return hit
    return None


@dataclass
class Score:
    counts: Counter[str] = field(default_factory=Counter)
    """TP/FP/FN/TN over the literal categories (the rule book before the meaning rules)."""
    per_category: dict[str, Counter[str]] = field(default_factory=dict)
    false_by_rule: Counter[str] = field(default_factory=Counter)
    """Should-pass sentences (any category) flagged, by the rule that flagged them."""
    misses: list[str] = field(default_factory=list)
    millis: list[float] = field(default_factory=list)

    def add(self, label: Labelled, hit: tuple[str, frozenset[str]] | None) -> None:
        cat = self.per_category.setdefault(label.category, Counter())
        cat["sentences"] += 1
        literal = label.category not in MEANING_KINDS and label.category not in CONTROLS
        if label.flag is None:
            cat["excluded"] += 1
            self.counts["excluded"] += literal
            return
        cat["expect flag" if label.flag else "expect pass"] += 1
        cat["flagged"] += hit is not None
        if not label.flag and hit is not None:
            self.false_by_rule.update(hit[1])
        outcome = {(True, True): "TP", (True, False): "FN", (False, True): "FP", (False, False): "TN"}
        verdict = outcome[(label.flag, hit is not None)]
        if literal:
            self.counts[verdict] += 1
            if verdict == "TP":
                self.counts["kind right"] += hit is not None and hit[0] == label.kind
        if verdict in ("FP", "FN") and len(self.misses) < 1000:
            rules = f" ({', '.join(sorted(hit[1]))})" if hit else ""
            self.misses.append(f"{verdict} [{label.category}]{rules} {label.text[:160]}")


def evaluate(drafts: list[Draft], meaning: bool, support: bool = True) -> tuple[Score, int, int]:
    score = Score()
    grounded_right = invalid_right = 0
    for draft in drafts:
        start = time.perf_counter()
        check = check_citations(draft.answer, draft.evidence, meaning=meaning, support=support)
        score.millis.append((time.perf_counter() - start) * 1000)
        flagged = _flagged(check)
        for label in draft.sentences:
            score.add(label, _match(label.text, flagged))
        grounded_right += check.grounded == draft.grounded
        invalid_right += check.invalid == sorted(draft.invalid)
    return score, grounded_right, invalid_right


# ---------------------------------------------------------------- linearity

def _timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def linearity(drafts: list[Draft]) -> list[str]:
    evidence = drafts[0].evidence
    unit = " ".join(d.answer for d in drafts if d.evidence is evidence)
    lines = []
    base = 0.0
    for size in (10_000, 100_000, 1_000_000):
        answer = (unit + "\n\n") * (size // (len(unit) + 2) + 1)
        answer = answer[:size]
        seconds = _timed(partial(check_citations, answer, evidence), 3 if size < 1_000_000 else 1)
        base = base or seconds
        lines.append(f"  {size // 1000:>5} KB answer: {seconds * 1000:8.1f} ms   x{seconds / base:6.1f} the 10 KB time")
    hostile = {
        "'[' x 1M": "[" * 1_000_000,
        "'[1,' x 333k (unclosed)": "[1," * 333_333,
        "one 1 MB word": "a" * 1_000_000,
        "'Dr. ' x 250k": "Dr. " * 250_000,
        "'1,000 ' x 167k": "1,000 " * 166_666,
        "CJK 1 MB": "東京は日本の首都です。" * 90_909,
        "'```' + 1 MB": "```" + "x [1] " * 166_000,
        "'[1-100000]' x 90k": "[1-100000]" * 90_909,
        "'( I could not ' x 71k": "( I could not " * 71_428,
    }
    for label, answer in hostile.items():
        tenth, seconds = (_timed(partial(check_citations, part, evidence), 1)
                          for part in (answer[:len(answer) // 10], answer))
        lines.append(f"  hostile {label:<26} {len(answer) / 1e6:4.1f} MB: {seconds * 1000:8.1f} ms"
                     f"   x{seconds / tenth:5.1f} its first tenth's time")
    return lines


def _load(eval_dir: Path, name: str, seed: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    corpus = {row["id"]: row for row in map(json.loads, (eval_dir / f"{name}.corpus.jsonl").open())}
    questions = [json.loads(line) for line in (eval_dir / f"{name}.questions.jsonl").open()]
    if name != "hotpotqa":
        questions = wiki_questions(questions, corpus, random.Random(f"{seed}:distractors"))
    return questions, corpus


def _pr(tp: int, fp: int, fn: int) -> str:
    return f"precision {tp / max(1, tp + fp):.3f}  recall {tp / max(1, tp + fn):.3f}"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, drafts: list[Draft], show_misses: int) -> None:
    """Both rule books on one labelled set, side by side."""
    books = {"literal rules (meaning=False)": evaluate(drafts, False),
             "before claim support (support=False)": evaluate(drafts, True, support=False),
             "with meaning rules and claim support (default)": evaluate(drafts, True)}
    print(f"== {label}: {len(drafts)} drafts")
    for book, (score, grounded_right, invalid_right) in books.items():
        c = score.counts
        print(f"-- {book}")
        print(f"   literal categories: {_pr(c['TP'], c['FP'], c['FN'])}  (TP {c['TP']}, FP {c['FP']}, FN {c['FN']}, "
              f"TN {c['TN']}; left out as invisible to a literal check: {c['excluded']})")
        print(f"   flagged in the right list, of true positives: {c['kind right'] / max(1, c['TP']):.3f}; grounded "
              f"accuracy {grounded_right / len(drafts):.3f}; invalid numbers exact {invalid_right / len(drafts):.3f}")
        for kind, rule in MEANING_KINDS.items():
            cat = score.per_category.get(kind, Counter())
            tp, fn = cat["flagged"], cat["expect flag"] - cat["flagged"]
            print(f"   {kind:<18} {_pr(tp, score.false_by_rule[rule], fn)}  (flagged {tp} of {cat['expect flag']}; "
                  f"controls flagged by the {rule} rule: {score.false_by_rule[rule]}; left out {cat['excluded']})")
        print(f"   should-pass sentences flagged by the support rule: {score.false_by_rule['support']}, by the "
              f"direction rule: {score.false_by_rule['direction']}")
        semantic = [score.per_category.get(kind, Counter()) for kind in MEANING_KINDS]
        caught = sum(cat["flagged"] for cat in semantic)
        wrong = sum(score.false_by_rule[rule] for rule in set(MEANING_KINDS.values()) | {"support", "direction"})
        print(f"   semantic (all four kinds): {_pr(caught, wrong, sum(c['expect flag'] for c in semantic) - caught)}")
        controls = [score.per_category.get(k, Counter()) for k in CONTROLS]
        print("   controls flagged: " + ", ".join(f"{k} {c['flagged']}/{c['expect pass']}"
                                                  for k, c in zip(CONTROLS, controls, strict=True)))
        print(f"   ms per answer: p50 {_percentile(score.millis, 0.5):.2f}  p95 {_percentile(score.millis, 0.95):.2f}")
    score = books["with meaning rules and claim support (default)"][0]
    print(f"\n{'category':<30}{'sentences':>10}{'exp. flag':>10}{'exp. pass':>10}{'flagged':>9}{'left out':>9}")
    for name, cat in score.per_category.items():
        print(f"{name:<30}{cat['sentences']:>10}{cat['expect flag']:>10}{cat['expect pass']:>10}"
              f"{cat['flagged']:>9}{cat['excluded']:>9}")
    for miss in score.misses[:show_misses]:
        print(miss)
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--sets", default="hotpotqa,2wikimultihopqa", help="comma-separated eval set names")
    parser.add_argument("--no-linearity", action="store_true", help="skip the run-time-on-large-answers part")
    parser.add_argument("--show-misses", type=int, default=0, help="print this many FP/FN sentences")
    args = parser.parse_args()
    started = time.perf_counter()
    first: list[Draft] = []
    for name in args.sets.split(","):
        questions, corpus = _load(args.eval_dir, name, args.seed)
        drafts = [d for q in questions for d in _drafts(q, corpus, random.Random(f"{args.seed}:{q['id']}"))]
        first = first or drafts
        report(f"{name} ({len(questions)} questions, seed {args.seed})", drafts, args.show_misses)
    if not args.no_linearity:
        print("run time (linear in the answer's length: x10 and x100 are the ideal ratios):")
        for line in linearity(first):
            print(line)
    print(f"\ntotal bench time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
