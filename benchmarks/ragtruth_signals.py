"""Does a learned combination of sentence-level signals detect RAGTruth's hallucinated answers better than the
default check? A small logistic model, fitted on the tuning halves only, against the default and the best single
signal, in the same run.

    python benchmarks/ragtruth_signals.py [--eval-dir ../shared/eval] [--limit N] [--embed] [--cache FILE]
        [--weights] [--splits N]

Every checked sentence of every answer (as ``check_citations`` splits it) gets the features below and a label:
positive when it overlaps a human-annotated span of the response. A logistic model (numpy, L2, its strength
chosen by 5-fold cross-validation over sources within the tuning half) gives each sentence a score; an answer's
score is its highest sentence score, and it is flagged above a threshold chosen on the tuning half (the best
balanced accuracy there). Reported per file and half: sentence-level and answer-level AUC, balanced accuracy of
the default check (flagged = not verified), of the best single feature (chosen by its tuning-half sentence AUC),
of the learned score alone and of the default OR the learned score, and, as an upper bound only, the held-out BA
at the held-out half's own best threshold. Models: one per file, and one for both files; an answer's score also as
the noisy-or of its sentences; and a logistic model over answer-level features (each feature's max and mean over
the answer's sentences, their count, the default's verdict). ``--splits N`` refits the per-file model on N other
source splits (salted hashes) and prints the spread of its held-out gain over the default: one split's gain on
about 440 answers moves by a few points with the threshold alone.

Features (all deterministic): the default check's findings for the sentence (one-hot by rule), the count and
share of its content words no passage says in any form (the support rule's word keys), the idf-weighted share
(idf over the passages' sentences), the share of its adjacent content-word pairs no passage sentence holds, the
share no two adjacent passage sentences hold, the best passage sentence's word precision and recall, its length,
position, whether it has a digit or a mid-sentence capital; with ``--embed`` also the MiniLM cosine to its best
passage sentence (vectors cached in ``--cache``).

The halves are ``ragtruth_bench.half``: by source, so no source's answers are on both sides.
Data: RAGTruth (MIT, Copyright (c) 2023 Particle Media), see the eval folder's README.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ragtruth_bench import evidence_of, half

from graphrag_agents.citations._evidence import FUNCTION_WORDS, EvidenceIndex
from graphrag_agents.citations._lemmas import evidence_keys, key_found, word_key
from graphrag_agents.citations._support import GLUE_WORDS
from graphrag_agents.text.markers import INLINE_CODE_RE, MARKER_RE
from graphrag_agents.text.sentences import split_sentences
from graphrag_agents.text.words import LETTERS, claim_text, fold
from graphrag_agents.tools.citations import check_citations

_DEFAULT_EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
_RULES = ("figures", "names", "support", "together", "polarity", "opposite", "direction", "record", "hours",
          "other")
_MID_CAPITAL = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+")
Array = npt.NDArray[np.float64]


def _content(text: str) -> list[str]:
    """The claim's content words, as the support rule reads them (3+ letters, no function or glue word)."""
    out = []
    for word in LETTERS.findall(text):
        folded = fold(word)
        if len(folded) >= 3 and folded not in FUNCTION_WORDS and folded not in GLUE_WORDS and not word.isupper():
            out.append(folded)
    return out


class Passages:
    """The passages of one answer: keys per sentence, idf, content-key pairs."""

    def __init__(self, passages: list[str]) -> None:
        self.indexes = [EvidenceIndex(p) for p in passages]
        self.sentences = [s.text for ix in self.indexes for s in ix.sentences] or [" ".join(passages)]
        self.keys = [evidence_keys(frozenset(LETTERS.findall(s))) for s in self.sentences]
        self.whole = [ix.keys for ix in self.indexes]
        df: dict[str, int] = {}
        for keys, _ in self.keys:
            for k in keys:
                df[k] = df.get(k, 0) + 1
        self.df = df
        self.n = len(self.sentences)
        pairs: set[tuple[str, str]] = set()
        for s in self.sentences:
            seq = [word_key(w) for w in _content(s)]
            pairs.update(itertools.pairwise(seq))
        self.pairs = pairs

    def idf(self, key: str) -> float:
        return math.log((self.n + 1) / (self.df.get(key, 0) + 1)) + 1


def _features(claim: str, position: float, passages: Passages, rules: set[str]) -> dict[str, float]:
    words = _content(claim)
    keys = list(dict.fromkeys(word_key(w) for w in words))
    missing = [k for k in keys if not any(key_found(k, *whole) for whole in passages.whole)]
    total_idf = sum(passages.idf(k) for k in keys) or 1.0
    seq = [word_key(w) for w in words]
    pairs = list(itertools.pairwise(seq))
    present = np.array([[key_found(k, *sk) for sk in passages.keys] for k in keys], dtype=bool).reshape(
        len(keys), passages.n)
    if keys:
        per_sentence = present.mean(axis=0)
        best = int(per_sentence.argmax())
        window = present if passages.n < 2 else present[:, :-1] | present[:, 1:]
        adjacent = 1 - float(window.mean(axis=0).max())
        best_size = max(1, len(passages.keys[best][0]))
        precision, recall = float(per_sentence[best]), float(present[:, best].sum()) / best_size
    else:
        adjacent, precision, recall = 0.0, 1.0, 0.0
    out = {
        "missing count": float(len(missing)),
        "missing share": len(missing) / max(1, len(keys)),
        "missing idf share": sum(passages.idf(k) for k in missing) / total_idf,
        "pairs absent share": sum(p not in passages.pairs for p in pairs) / max(1, len(pairs)),
        "adjacent absent share": adjacent,
        "best precision": precision,
        "best recall": recall,
        "log length": math.log1p(len(words)),
        "position": position,
        "has digit": float(any(ch.isdigit() for ch in claim)),
        "mid capital": float(bool(_MID_CAPITAL.search(claim))),
        "default flagged": float(bool(rules)),
    }
    for rule in _RULES:
        out[f"rule {rule}"] = float(rule in rules)
    return out


def _rules_of(check: Any) -> dict[str, set[str]]:
    """The default check's findings per displayed sentence."""
    out: dict[str, set[str]] = {}
    for u in check.unsupported:
        rules = out.setdefault(u.sentence, set())
        if u.missing_figures:
            rules.add("figures")
        if u.missing_names:
            rules.add("names")
        for c in u.conflicts:
            rules.add(c.rule if c.rule in _RULES else "other")
        if not rules:
            rules.add("other")
    return out


def _overlaps(response: str, text: str, cursor: int, spans: list[dict[str, Any]]) -> tuple[bool, int]:
    """Whether the sentence ``text`` (found in ``response`` from ``cursor``) overlaps an annotated span."""
    probe = text.strip()
    at = response.find(probe, cursor)
    if at < 0:
        at = response.find(probe[:40], cursor)
    if at < 0:
        at = response.find(probe[:20])
    if at < 0:
        return False, cursor
    end = at + len(probe)
    return any(s["start"] < end and s["end"] > at for s in spans), at + 1


def sentences_of(row: dict[str, Any]) -> tuple[bool, list[tuple[str, float, set[str], bool]]]:
    """(the default flags the answer, [(claim, position, default findings, label)] per checked sentence)."""
    check = check_citations(row["answer"], evidence_of(row))
    findings = _rules_of(check)
    cleaned = check.answer
    found = [s for s in split_sentences(cleaned) if s.checked]
    out = []
    cursor = 0
    for i, s in enumerate(found):
        raw = cleaned[s.start:s.end]
        claim = claim_text(MARKER_RE.sub(" ", INLINE_CODE_RE.sub(" ", raw)))
        if not LETTERS.search(claim):
            continue
        label, cursor = _overlaps(row["response"], MARKER_RE.sub("", raw), cursor, row["spans"])
        out.append((claim, i / max(1, len(found) - 1), findings.get(" ".join(raw.split()), set()), label))
    return not check.verified, out


class Cosines:
    """MiniLM best cosine of a claim to its passages' sentences, vectors cached on disk by text."""

    def __init__(self, path: Path) -> None:
        from graphrag_agents.models.onnx_minilm import OnnxMiniLMEmbedder
        self.embedder = OnnxMiniLMEmbedder(threads=1)
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self.seconds = 0.0
        self.embedded = 0

    def ensure(self, texts: list[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if self._key(t) not in self.vectors))
        if todo:
            start = time.perf_counter()
            for i in range(0, len(todo), 256):
                chunk = todo[i:i + 256]
                for t, v in zip(chunk, self.embedder.embed(chunk), strict=True):
                    self.vectors[self._key(t)] = v
            self.seconds += time.perf_counter() - start
            self.embedded += len(todo)

    def best(self, claim: str, sentences: list[str]) -> float:
        c = self.vectors[self._key(claim)]
        return float(max(float(self.vectors[self._key(s)] @ c) for s in sentences))

    def save(self) -> None:
        keys = list(self.vectors)
        np.savez(self.path, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()


def auc(scores: Array, labels: Array) -> float:
    """Area under the ROC curve (ties shared), .5 = chance."""
    pos, neg = labels.sum(), len(labels) - labels.sum()
    if not pos or not neg:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[labels == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def balanced(flags: Array, labels: Array) -> float:
    tpr = (flags & (labels == 1)).sum() / max(1, (labels == 1).sum())
    tnr = (~flags & (labels == 0)).sum() / max(1, (labels == 0).sum())
    return float((tpr + tnr) / 2)


def best_threshold(scores: Array, labels: Array) -> float:
    """The threshold of the best balanced accuracy on (scores, labels): flagged when score > threshold."""
    candidates = np.unique(scores)
    cuts = np.concatenate([[candidates[0] - 1], (candidates[:-1] + candidates[1:]) / 2, [candidates[-1] + 1]])
    return float(max(cuts, key=lambda t: balanced(scores > t, labels)))


def fit(x: Array, y: Array, l2: float) -> Array:
    """Logistic regression by Newton's method, L2 on the weights (not the intercept); returns [bias, *w]."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[0] = 0
    for _ in range(50):
        p = 1 / (1 + np.exp(-xb @ w))
        grad = xb.T @ (p - y) + penalty * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(x: Array, w: Array) -> Array:
    return 1 / (1 + np.exp(-(x @ w[1:] + w[0])))


class Model:
    """Standardised features, L2 chosen by 5-fold cross-validation over groups (sentence AUC)."""

    def __init__(self, x: Array, y: Array, groups: Array) -> None:
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0) + 1e-9
        z = (x - self.mean) / self.scale
        folds = np.array([int(hashlib.sha1(str(g).encode()).hexdigest(), 16) % 5 for g in groups])
        best = (-1.0, 1.0)
        for l2 in (1.0, 10.0, 100.0, 300.0, 1000.0):
            held = np.zeros(len(y))
            for f in range(5):
                w = fit(z[folds != f], y[folds != f], l2)
                held[folds == f] = predict(z[folds == f], w)
            best = max(best, (auc(held, y), l2))
        self.cv_auc, self.l2 = best
        self.w = fit(z, y, self.l2)

    def score(self, x: Array) -> Array:
        return predict((x - self.mean) / self.scale, self.w)

    def weights(self, names: list[str]) -> list[tuple[str, float]]:
        """The weights in raw feature units (bias first), largest standardised weight first."""
        raw = self.w[1:] / self.scale
        bias = self.w[0] - float((self.w[1:] * self.mean / self.scale).sum())
        order = np.argsort(-np.abs(self.w[1:]))
        return [("bias", bias)] + [(names[i], float(raw[i])) for i in order]


class Data:
    """Every sentence of one file's answers: features, labels, answer and source of each."""

    def __init__(self, name: str, rows: list[dict[str, Any]], cosines: Cosines | None) -> None:
        self.name = name
        self.rows = rows
        feats: list[dict[str, float]] = []
        labels, answers = [], []
        self.default = np.zeros(len(rows), dtype=bool)
        self.label = np.array([row["label"] for row in rows])
        self.tune = np.array([half(row) == "tune" for row in rows])
        self.source = np.array([row["source_id"] for row in rows])
        start = time.perf_counter()
        per_row = []
        for i, row in enumerate(rows):
            flagged, sents = sentences_of(row)
            self.default[i] = flagged
            passages = Passages(row["passages"])
            per_row.append((passages, sents))
            for claim, position, rules, label in sents:
                feats.append(_features(claim, position, passages, rules))
                labels.append(label)
                answers.append(i)
        self.feature_seconds = time.perf_counter() - start
        if cosines is not None:
            cosines.ensure([c for _, sents in per_row for c, *_ in sents]
                           + [s for passages, _ in per_row for s in passages.sentences])
            k = 0
            for passages, sents in per_row:
                for claim, *_ in sents:
                    feats[k]["minilm best cosine"] = cosines.best(claim, passages.sentences)
                    k += 1
        self.names = list(feats[0])
        self.x = np.array([[f[n] for n in self.names] for f in feats])
        self.y = np.array(labels, dtype=float)
        self.answer = np.array(answers)

    def sentence_tune(self) -> Array:
        return self.tune[self.answer]

    def answer_scores(self, sentence_scores: Array, noisy_or: bool = False) -> Array:
        """Per answer: its highest sentence score, or with ``noisy_or`` 1 - the product of (1 - p)."""
        if noisy_or:
            keep = np.zeros(len(self.rows))
            np.add.at(keep, self.answer, np.log1p(-np.clip(sentence_scores, 0, 1 - 1e-12)))
            return 1 - np.exp(keep)
        out = np.full(len(self.rows), -np.inf)
        np.maximum.at(out, self.answer, sentence_scores)
        return np.where(np.isinf(out), sentence_scores.min() - 1, out)


def answer_features(data: Data) -> Array:
    """Per answer: the max and the mean of each sentence feature, its sentence count and the default's verdict."""
    n, k = len(data.rows), data.x.shape[1]
    high = np.full((n, k), -np.inf)
    np.maximum.at(high, data.answer, data.x)
    total = np.zeros((n, k))
    np.add.at(total, data.answer, data.x)
    count = np.bincount(data.answer, minlength=n).astype(float)
    high = np.where(np.isinf(high), 0.0, high)
    mean = total / np.maximum(1, count)[:, None]
    return np.hstack([high, mean, np.log1p(count)[:, None], data.default[:, None].astype(float)])


def _report_answers(data: Data, label: str, scores: Array) -> None:
    """BA and answer AUC per half of answer-level scores, at the tuning-half threshold."""
    tune, held = data.tune, ~data.tune
    cut = best_threshold(scores[tune], data.label[tune])
    flags = scores > cut
    print(f"  {label:<34} {'':>33}answer AUC {auc(scores[tune], data.label[tune]):.3f} / "
          f"{auc(scores[held], data.label[held]):.3f}  BA {balanced(flags[tune], data.label[tune]):.3f} / "
          f"{balanced(flags[held], data.label[held]):.3f}")


def _report(data: Data, label: str, sentence_scores: Array, or_default: bool = True,
            noisy_or: bool = False) -> dict[str, float]:
    """Sentence and answer AUC per half; BA per half at the tuning-half threshold (alone, and OR the default)."""
    st = data.sentence_tune()
    answers = data.answer_scores(sentence_scores, noisy_or)
    tune, held = data.tune, ~data.tune
    cut = best_threshold(answers[tune], data.label[tune])
    flags = answers > cut
    out = {"s-auc tune": auc(sentence_scores[st], data.y[st]), "s-auc held": auc(sentence_scores[~st], data.y[~st]),
           "a-auc tune": auc(answers[tune], data.label[tune]), "a-auc held": auc(answers[held], data.label[held]),
           "ba tune": balanced(flags[tune], data.label[tune]), "ba held": balanced(flags[held], data.label[held])}
    # an upper bound, not a result: the threshold chosen on the held-out half itself
    out["ba held ceiling"] = balanced(answers[held] > best_threshold(answers[held], data.label[held]),
                                      data.label[held])
    line = (f"  {label:<34} sentence AUC {out['s-auc tune']:.3f} / {out['s-auc held']:.3f}  answer AUC "
            f"{out['a-auc tune']:.3f} / {out['a-auc held']:.3f}  BA {out['ba tune']:.3f} / {out['ba held']:.3f} "
            f"(held-out at its own best threshold {out['ba held ceiling']:.3f})")
    if or_default:
        combined = np.where(data.default, np.inf, answers)
        cut_or = best_threshold(np.where(np.isinf(combined), answers.max() + 1, combined)[tune], data.label[tune])
        flags_or = data.default | (answers > cut_or)
        out["or tune"] = balanced(flags_or[tune], data.label[tune])
        out["or held"] = balanced(flags_or[held], data.label[held])
        line += f"  OR default {out['or tune']:.3f} / {out['or held']:.3f}"
    print(line)
    return out


def resplit_gains(data: Data, splits: int, columns: list[int]) -> Array:
    """Held-out BA gain of the own-file learned score (max over sentences) over the default, on ``splits``
    other source splits (salted hashes): the spread says how much one split's gain is worth."""
    gains = []
    for salt in range(1, splits + 1):
        tune = np.array([hashlib.sha1(f"{salt}:{s}".encode()).digest()[0] % 2 == 0 for s in data.source])
        st = tune[data.answer]
        model = Model(data.x[st][:, columns], data.y[st], data.source[data.answer][st])
        answers = data.answer_scores(model.score(data.x[:, columns]))
        cut = best_threshold(answers[tune], data.label[tune])
        gains.append(balanced(answers[~tune] > cut, data.label[~tune])
                     - balanced(data.default[~tune], data.label[~tune]))
    return np.array(gains)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=_DEFAULT_EVAL)
    parser.add_argument("--limit", type=int, default=0, help="the first N rows of each file (0: all)")
    parser.add_argument("--embed", action="store_true", help="add the MiniLM best-sentence cosine")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ragtruth_minilm.npz"))
    parser.add_argument("--weights", action="store_true", help="print each model's weights")
    parser.add_argument("--splits", type=int, default=0, help="also refit on this many other source splits")
    args = parser.parse_args()
    cosines = Cosines(args.cache) if args.embed else None
    files: dict[str, Data] = {}
    for name in ("summary", "data2txt"):
        rows = [json.loads(line) for line in (args.eval_dir / f"ragtruth_{name}.jsonl").open()]
        rows = rows[:args.limit] if args.limit else rows
        files[name] = Data(name, rows, cosines)
        d = files[name]
        print(f"== {name}: {len(rows)} answers ({d.tune.sum()} tune), {len(d.y)} sentences "
              f"({int(d.y.sum())} in a span), features {1000 * d.feature_seconds / len(rows):.1f} ms/answer")
    if cosines is not None:
        cosines.save()
        if cosines.embedded:
            print(f"MiniLM: {cosines.embedded} new texts in {cosines.seconds:.1f} s "
                  f"({1000 * cosines.seconds / cosines.embedded:.2f} ms per text, 1 thread)")
    both_x = np.vstack([d.x[d.sentence_tune()] for d in files.values()])
    both_y = np.concatenate([d.y[d.sentence_tune()] for d in files.values()])
    both_g = np.concatenate([d.source[d.answer][d.sentence_tune()] for d in files.values()])
    joint = Model(both_x, both_y, both_g)
    for name, d in files.items():
        print(f"\n== {name}  (tune / held-out)")
        tune_flags = d.default[d.tune]
        print(f"  {'default check':<34} BA {balanced(tune_flags, d.label[d.tune]):.3f} / "
              f"{balanced(d.default[~d.tune], d.label[~d.tune]):.3f}")
        st = d.sentence_tune()
        single = []
        for j, feature in enumerate(d.names):
            a = auc(d.x[st, j], d.y[st])
            single.append((max(a, 1 - a), feature, 1.0 if a >= 0.5 else -1.0))
        single.sort(reverse=True)
        print("  single features by tuning-half sentence AUC: "
              + ", ".join(f"{f} {a:.3f}" for a, f, _ in single[:6]))
        _, feature, sign = single[0]
        _report(d, f"best single: {feature}", sign * d.x[:, d.names.index(feature)])
        own = Model(d.x[st], d.y[st], d.source[d.answer][st])
        print(f"  (own model: L2 {own.l2}, cross-validated tuning sentence AUC {own.cv_auc:.3f}; "
              f"joint: L2 {joint.l2}, {joint.cv_auc:.3f})")
        _report(d, "learned, own file", own.score(d.x))
        _report(d, "learned, own file, noisy-or", own.score(d.x), noisy_or=True)
        _report(d, "learned, both files", joint.score(d.x))
        _report(d, "learned, both files, noisy-or", joint.score(d.x), noisy_or=True)
        ax = answer_features(d)
        answer_model = Model(ax[d.tune], d.label[d.tune].astype(float), d.source[d.tune])
        _report_answers(d, f"learned on answers (L2 {answer_model.l2})", answer_model.score(ax))
        if args.weights:
            for n, w in own.weights(d.names):
                print(f"      {n:<24} {w:+.3f}")
        if args.splits:
            sets = {"all features": list(range(len(d.names)))}
            if "minilm best cosine" in d.names:
                sets["without MiniLM"] = [j for j, n in enumerate(d.names) if n != "minilm best cosine"]
            for label, columns in sets.items():
                gains = resplit_gains(d, args.splits, columns)
                print(f"  {args.splits} other splits, {label}: held-out BA gain over the default "
                      f"mean {gains.mean():+.3f}, sd {gains.std():.3f}, min {gains.min():+.3f}, "
                      f"max {gains.max():+.3f}, >= .03 in {int((gains >= 0.03).sum())}")


if __name__ == "__main__":
    main()
