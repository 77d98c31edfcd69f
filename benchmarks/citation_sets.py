"""The labelled drafts of ``citations_bench.py`` for the meaning rules, and the 2WikiMultihopQA side of the set.

Every draft cites the paragraph its sentence comes from, so the literal rules pass it; what is labelled is its
meaning. Errors (should be flagged):

* **negated**: "not" after the sentence's first auxiliary (is, was, has, ...) or "never" before its first past
  participle; and the reverse, an evidence sentence with "not"/"never" that the claim drops;
* **opposite**: one word swapped for its opposite or another rank (born/died, won/lost, second/third, ...), from
  this file's own table, written independently of the checker's; a swap whose new word is already in the
  sentence is left out (no word rule can see it) and counted;
* **moved name**: a name of the sentence replaced with a name from another sentence of the same paragraph.

Controls (should pass): the real sentence (the existing ``supported`` rows), the sentence cut at a clause, two
adjacent sentences joined with ", and" or ";", and a light paraphrase (a leading pronoun replaced by the
paragraph's title, a few synonyms, a leading "In 1990," moved to the end). The labels come from how each draft is
built, not from the checker.
Data: HotpotQA (CC BY-SA 4.0) and 2WikiMultihopQA (Apache-2.0), see the eval folder's README.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from graphrag_agents.evidence import Evidence

_CAP_RUN = re.compile(r"[^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*)*")
_END = re.compile(r"[.!?…]+[\"'”’)]*$")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])")
_AUX = re.compile(r"\b(is|was|are|were|has|had|have|can|will|could|would)\b(?!\s+not\b)")
_PARTICIPLE = re.compile(r"\b([a-z]{3,}ed)\b")
_NEGATION = re.compile(r"\s+(?:not|never)\b|n't\b")
_OPENERS = frozenset("the a an he she it they his her its their this these in on at after before during as when "
                     "while there".split())
# The bench's own table of opposites and ranks (the checker has its own, in graphrag_agents/citations/_opposites.py).
_SWAPS = {
    "born": "died", "died": "born", "won": "lost", "lost": "won", "before": "after", "after": "before",
    "first": "last", "last": "first", "north": "south", "south": "north", "east": "west", "west": "east",
    "eldest": "youngest", "youngest": "eldest", "elder": "younger", "older": "younger", "younger": "older",
    "oldest": "youngest", "increased": "decreased", "decreased": "increased", "son": "daughter",
    "daughter": "son", "husband": "wife", "wife": "husband", "brother": "sister", "sister": "brother",
    "father": "mother", "mother": "father", "larger": "smaller", "largest": "smallest", "smallest": "largest",
    "higher": "lower", "highest": "lowest", "earlier": "later", "later": "earlier", "northern": "southern",
    "southern": "northern", "eastern": "western", "western": "eastern", "king": "queen", "queen": "king",
    "male": "female", "female": "male", "second": "third", "third": "second", "fourth": "fifth",
    "men": "women", "women": "men", "upper": "lower", "lower": "upper", "winner": "loser", "rose": "fell",
    "best": "worst", "longest": "shortest", "early": "late", "late": "early", "opened": "closed",
    "public": "private", "private": "public", "senior": "junior", "prince": "princess", "princess": "prince",
}
_SWAP_RE = re.compile(r"\b(" + "|".join(sorted(_SWAPS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_SYNONYMS = [(r"\bfilm\b", "movie"), (r"\bmovie\b", "film"), (r"\bbegan\b", "started"), (r"\bstarted\b", "began"),
             (r"\blocated in\b", "situated in"), (r"\bapproximately\b", "about"), (r"\balso\s+", ""),
             (r"\bcurrently\s+", ""), (r"\boriginally\s+", ""), (r"\bwas known as\b", "was called")]
_LEADING_YEAR = re.compile(r"^In (\d{4}), (.+?)([.!?])$")
_PRONOUN = re.compile(r"^(He|She|It|They) ")


@dataclass
class Labelled:
    text: str
    flag: bool | None
    """True: should be flagged; False: should pass; None: not detectable by a literal check (left out)."""
    category: str
    kind: str = ""
    """``uncited`` or ``unsupported`` for sentences that should be flagged."""


@dataclass
class Draft:
    answer: str
    evidence: dict[int, Evidence]
    sentences: list[Labelled]
    grounded: bool
    invalid: list[int] = field(default_factory=list)


MEANING_KINDS = {"negated": "negation", "negation removed": "negation", "opposite": "opposite",
                 "moved name": "together"}
"""Each meaning error category and the checker rule that should report it."""
CONTROLS = ["cut at a clause", "two sentences joined", "light paraphrase"]


def cite(sentence: str, numbers: list[int], rng: random.Random) -> str:
    """Put a marker for ``numbers`` into the sentence, in one of the styles models write."""
    inner = ", ".join(map(str, numbers))
    style = rng.randrange(6)
    if style == 1:
        inner = ",".join(map(str, numbers))
    marker = {2: f"[ {inner} ]", 3: f"［{inner}］"}.get(style, f"[{inner}]")
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        marker = f"[{numbers[0]}-{numbers[-1]}]"
    end = _END.search(sentence)
    if end is None:
        return f"{sentence} {marker}"
    if style == 4:
        return f"{sentence} {marker}"  # after the full stop
    return f"{sentence[:end.start()]} {marker}{sentence[end.start():]}"


def split_paragraph(text: str) -> list[str]:
    """This bench's own sentence split of a 2Wiki paragraph (the corpus has no sentence list)."""
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


def wiki_questions(questions: list[dict[str, Any]], corpus: dict[str, dict[str, Any]], rng: random.Random
                   ) -> list[dict[str, Any]]:
    """2Wiki questions in the HotpotQA shape: 10 paragraphs (the gold ones plus random distractors), each with a
    sentence list, and the first two sentences of each gold paragraph as its supporting facts."""
    ids = sorted(corpus)
    out = []
    for q in questions:
        pids = list(q["paragraph_ids"])
        while len(pids) < 10:
            pid = rng.choice(ids)
            if pid not in pids:
                pids.append(pid)
        for pid in pids:
            corpus[pid].setdefault("sentences", split_paragraph(corpus[pid]["text"]))
        rng.shuffle(pids)
        facts = [[corpus[pid]["title"], i] for pid in q["supporting_paragraph_ids"]
                 for i in range(min(2, len(corpus[pid]["sentences"])))]
        out.append({**q, "paragraph_ids": pids, "supporting_facts": facts})
    return out


def _title(paragraph: dict[str, Any]) -> str:
    return re.sub(r"\s*\(.*\)$", "", paragraph["title"]).strip()


def _body(sentence: str) -> tuple[str, str]:
    end = _END.search(sentence)
    return (sentence[:end.start()], end.group()) if end else (sentence, ".")


def negate(sentence: str) -> str | None:
    """``not`` after the first auxiliary past the first word, else ``never`` before the first past participle."""
    if _NEGATION.search(sentence):
        return None
    aux = _AUX.search(sentence, sentence.find(" ") + 1)
    if aux is not None:
        return sentence[:aux.end()] + " not" + sentence[aux.end():]
    part = _PARTICIPLE.search(sentence, sentence.find(" ") + 1)
    return None if part is None else sentence[:part.start()] + "never " + sentence[part.start():]


def swap_opposite(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    hits = list(_SWAP_RE.finditer(sentence))
    if not hits:
        return None
    m = rng.choice(hits)
    word = m.group()
    new = _SWAPS[word.lower()]
    new = new.capitalize() if word[0].isupper() else new
    return sentence[:m.start()] + new + sentence[m.end():], new.lower()


def _runs(sentence: str) -> list[re.Match[str]]:
    first = re.search(r"[^\W\d_]", sentence)
    start = first.end() if first else 0
    return [m for m in _CAP_RUN.finditer(sentence) if m.start() >= start and m.group()[0].isupper()
            and len(m.group()) >= 3 and m.group().split()[0].casefold() not in _OPENERS]


def move_name(sentences: list[str], i: int, rng: random.Random) -> str | None:
    own = _runs(sentences[i])
    words = {w.casefold() for w in re.findall(r"\w+", sentences[i])}
    others = [m.group() for j, s in enumerate(sentences) if j != i for m in _runs(s)
              if not {w.casefold() for w in re.findall(r"\w+", m.group())} & words]
    if not own or not others:
        return None
    m = rng.choice(own)
    return sentences[i][:m.start()] + rng.choice(others) + sentences[i][m.end():]


def cut_at_clause(sentence: str) -> str | None:
    for m in re.finditer(r",\s|\s(?:and|which|who|while)\s", sentence):
        left = sentence[:m.start()]
        if len(left.split()) >= 5 and left.count("(") == left.count(")") and (
                re.search(r"\d", left) or _runs(left)):
            return left.rstrip(" ,;:") + "."
    return None


def join(first: str, second: str, rng: random.Random) -> str:
    body, _ = _body(first)
    word = second.split(" ", 1)[0]
    rest = second[0].lower() + second[1:] if word.casefold() in _OPENERS else second
    return f"{body}, and {rest}" if rng.random() < 0.6 else f"{body}; {rest}"


def paraphrase(sentence: str, title: str, index: int, paragraph: str) -> str | None:
    out = sentence
    known = {w.casefold() for w in re.findall(r"\w+", paragraph)}
    if index > 0 and all(w.casefold() in known for w in re.findall(r"\w+", title)):
        out = _PRONOUN.sub(title + " ", out, count=1)
    for pattern, new in _SYNONYMS:
        out = re.sub(pattern, new, out, count=1)
    year = _LEADING_YEAR.match(out)
    if year:
        rest = year.group(2)
        out = f"{rest[0].upper() + rest[1:] if rest.split(' ', 1)[0].casefold() in _OPENERS else rest} in " \
              f"{year.group(1)}{year.group(3)}"
    return out if out != sentence else None


def meaning_drafts(paragraph: dict[str, Any], i: int, n: int, evidence: dict[int, Evidence], rng: random.Random
                   ) -> list[Draft]:
    """The meaning errors and controls built from sentence ``i`` of ``paragraph``, cited as evidence ``n``."""
    sentences = [s.strip() for s in paragraph["sentences"]]
    text = sentences[i]

    def one(claim: str, flag: bool | None, category: str) -> Draft:
        return Draft(cite(claim, [n], rng), evidence, [Labelled(claim, flag, category,
                                                                "unsupported" if flag else "")], True)

    out: list[Draft] = []
    negated = negate(text)
    if negated is not None:
        out.append(one(negated, True, "negated"))
    swapped = swap_opposite(text, rng)
    if swapped is not None:
        claim, new = swapped
        out.append(one(claim, None if re.search(rf"\b{new}\b", text, re.IGNORECASE) else True, "opposite"))
    moved = move_name(sentences, i, rng)
    if moved is not None:
        out.append(one(moved, True, "moved name"))
    cut = cut_at_clause(text)
    if cut is not None:
        out.append(one(cut, False, "cut at a clause"))
    if i + 1 < len(sentences):
        out.append(one(join(text, sentences[i + 1], rng), False, "two sentences joined"))
    para = paraphrase(text, _title(paragraph), i, paragraph["text"])
    if para is not None:
        out.append(one(para, False, "light paraphrase"))
    return out


def negation_removed_drafts(paragraph: dict[str, Any], n: int, evidence: dict[int, Evidence], rng: random.Random
                            ) -> list[Draft]:
    """Every sentence of the paragraph that says "not" or "never", with it removed, cited as evidence ``n``."""
    out = []
    for text in paragraph["sentences"]:
        text = text.strip()
        if _NEGATION.search(text) and not re.search(r"\bnot only\b", text):
            claim = _NEGATION.sub("", text, count=1)
            label = Labelled(claim, True, "negation removed", "unsupported")
            out.append(Draft(cite(claim, [n], rng), evidence, [label], True))
    return out
