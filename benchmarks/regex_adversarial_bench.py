"""Adversarial texts through ingest, the chunkers and ``check_citations``: the time at 2n over the time at n.

Every pattern these paths apply to input must run in linear time (``tests/test_regex_linear.py`` checks the
patterns themselves); this measures it. Each text family (runs of one character, long runs of spaces,
alternating classes, and the inputs of issue 42: a line of dashes ending in a letter, a Markdown heading with a
long run of spaces, a draft of letters and invented capitalised names) is cut to n and 2n characters and fed to:

* ``ingest``: what ingest does to a file before the embedding and the store: ``load_bytes`` as a ``.md`` file
  (the title), the ``auto`` chunker (``structural``), and the code mask of the ``ner`` extractor
  (``mask_chunks``);
* ``sentence`` and ``fixed``: the other chunkers;
* ``check_citations``: the text as a draft ending in a citation, against two evidence items.

Each time is the best of ``--repeat`` runs (a row over the budget is measured again, with three times the runs). A
row fails when its 2n time is over ``--budget`` seconds, or over 50 ms with a ratio above ``--ratio``; the script
exits 1 when one does.

Run: ``.venv/bin/python benchmarks/regex_adversarial_bench.py [--n 20000] [--repeat 3]`` (2n = 40,000, the longest
draft ``check_citations`` takes). ``tests/test_regex_linear.py::test_the_adversarial_benchmark_is_linear`` (marked
``slow``) runs it at the default size.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphrag_agents.citations import check_citations  # noqa: E402
from graphrag_agents.evidence import Evidence  # noqa: E402
from graphrag_agents.ingest.chunkers import chunker_for, get_chunker  # noqa: E402
from graphrag_agents.ingest.code_spans import mask_chunks  # noqa: E402
from graphrag_agents.ingest.loaders import load_bytes  # noqa: E402

EVIDENCE = [
    Evidence(n=1, tool="retrieve", kind="passage",
             content="Alice Smith works at Acme Corp in Zurich. Revenue was 2.8 million dollars in 2021."),
    Evidence(n=2, tool="retrieve", kind="passage", content="Globex acquired Initech in 1999. Bob Stone met Carol."),
]


def _names(n: int, capitalised: float) -> str:
    """Letters and invented names: random words, a share of them capitalised."""
    rnd = random.Random(42)
    words: list[str] = []
    size = 0
    while size < n:
        word = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(1, 9)))
        words.append(word.capitalize() if rnd.random() < capitalised else word)
        size += len(word) + 1
    return " ".join(words)


def _run(unit: str, tail: str = "") -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n] + tail


FAMILIES: dict[str, Callable[[int], str]] = {
    "dashes then a letter": _run("-", "a\n"),
    "heading, spaces, letter": lambda n: "# a" + " " * n + "b\n\nText.\n",
    "names (half capitalised)": lambda n: _names(n, 0.5),
    "names (all capitalised)": lambda n: _names(n, 1.0),
    "names (all) + citation": lambda n: _names(n, 1.0) + " (AB) [1].",
    "names joined by 'of'": _run("Bob of ", "!"),
    "spaces": _run(" "),
    "word, spaces, words": lambda n: "Alice works" + " " * n + "at Acme Corp [1].",
    "tabs then a letter": _run("\t", "x"),
    "newlines": _run("\n", "x"),
    "one letter": _run("a", "!"),
    "one capital": _run("A", "!"),
    "digits": _run("1", "x"),
    "dots": _run(".", "x"),
    "stars": _run("*", "x"),
    "underscores": _run("_", "x"),
    "bars": _run("|", "x"),
    "hashes": _run("#", " x"),
    "backticks": _run("`", "x"),
    "brackets": _run("[", "1"),
    "lower-upper": _run("aB", "!"),
    "word, space": _run("Ab ", "!"),
    "capital, dot": _run("A.", "!"),
    "digit, comma": _run("1,", "x"),
    "dash, space": _run("- ", "x"),
    "bar, dashes": _run("|---", "a"),
    "quote marks": _run("> ", "x"),
    "colon labels": _run("Note ", ": x"),
    "list markers": _run("1. ", "x"),
}


def _ingest(text: str) -> None:
    doc = load_bytes(f"{text}\n\nEnd.\n".encode(), "adversarial.md")  # a file of spaces alone is refused
    chunks = get_chunker(chunker_for("auto", doc.loader)).chunk(doc.text)
    mask_chunks([chunk.text for chunk in chunks])


ENTRIES: dict[str, Callable[[str], object]] = {
    "ingest (.md)": _ingest,
    "sentence chunker": lambda text: get_chunker("sentence").chunk(text),
    "fixed chunker": lambda text: get_chunker("fixed").chunk(text),
    "check_citations": lambda text: check_citations(text + " [1].", EVIDENCE),
}


def _seconds(entry: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    entry(text)
    return time.perf_counter() - start


def _row(entry_name: str, family: str, n: int, repeat: int) -> tuple[str, str, float, float]:
    """The best time at n and at 2n, the two measured in turn (so that both see the same load)."""
    make, entry = FAMILIES[family], ENTRIES[entry_name]
    small, large = make(n), make(2 * n)
    times = [(_seconds(entry, small), _seconds(entry, large)) for _ in range(repeat)]
    return entry_name, family, min(t[0] for t in times), min(t[1] for t in times)


def run(n: int, repeat: int = 3) -> list[tuple[str, str, float, float]]:
    """(entry, family, seconds at n, seconds at 2n) for every entry and family; a row over the budget is
    measured once more with three times the repeats (the machine's other load makes single figures noisy)."""
    rows = [_row(entry, family, n, repeat) for family in FAMILIES for entry in ENTRIES]
    return [_row(row[0], row[1], n, 3 * repeat) if over_budget([row]) else row for row in rows]


def over_budget(rows: list[tuple[str, str, float, float]], budget: float = 1.0, ratio: float = 2.5,
                floor: float = 0.05) -> list[tuple[str, str, float, float]]:
    """The rows whose 2n time is over ``budget``, or over ``floor`` with a 2n/n ratio above ``ratio``."""
    return [row for row in rows if row[3] > budget or (row[3] > floor and row[3] / max(row[2], 1e-9) > ratio)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a 2n text may take")
    parser.add_argument("--ratio", type=float, default=2.5, help="2n/n ratio allowed over 50 ms")
    args = parser.parse_args()
    rows = run(args.n, args.repeat)
    print(f"| entry | text | ms at n={args.n:,} | ms at 2n | 2n / n |")
    print("| - | - | - | - | - |")
    for entry, family, small, large in rows:
        print(f"| {entry} | {family} | {small * 1000:.1f} | {large * 1000:.1f} | {large / max(small, 1e-9):.2f} |")
    worst = max(rows, key=lambda row: row[3])
    print(f"\nslowest at 2n: {worst[0]}, {worst[1]}: {worst[3] * 1000:.1f} ms")
    bad = over_budget(rows, args.budget, args.ratio)
    for entry, family, small, large in bad:
        print(f"OVER: {entry}, {family}: {small:.3f} s -> {large:.3f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
