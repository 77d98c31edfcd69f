"""Chunkers: sentence splitting, sizes, structure, and parameter validation."""

from __future__ import annotations

import itertools
import random
from typing import Literal

import pytest

from graphrag_agents.ingest.chunkers import (
    CHUNKERS,
    Chunk,
    FixedChunker,
    SentenceChunker,
    StructuralChunker,
    get_chunker,
    split_sentences,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Smith arrived. He sat down.", ["Dr. Smith arrived.", "He sat down."]),
        ("The U.S. Army won. Then it rained.", ["The U.S. Army won.", "Then it rained."]),
        ("Fruit, e.g. Apples, is good. Veg, i.e. Kale, too.",
         ["Fruit, e.g. Apples, is good.", "Veg, i.e. Kale, too."]),
        ("Mr. and Mrs. Jones met St. Peter. Fine.", ["Mr. and Mrs. Jones met St. Peter.", "Fine."]),
        ("Pi is 3.14 today. It was 2.5 before.", ["Pi is 3.14 today.", "It was 2.5 before."]),
        ("J. R. R. Tolkien wrote it. Readers agree.", ["J. R. R. Tolkien wrote it.", "Readers agree."]),
        ("Is it? Yes! Sure.", ["Is it?", "Yes!", "Sure."]),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("It ended in 2020. (Then more.)", ["It ended in 2020.", "(Then more.)"]),
        ("lower. case does not split", ["lower. case does not split"]),
        ("Wait... What now?", ["Wait...", "What now?"]),
        ("Para one\n\nPara two", ["Para one", "Para two"]),
        ("第一句。第二句！第三句？", ["第一句。", "第二句！", "第三句？"]),
        ("Version 2.0.1 shipped. Good.", ["Version 2.0.1 shipped.", "Good."]),
        ("", []),
        ("   \n\t ", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def _check_chunks(text: str, chunks: list[Chunk]) -> None:
    """Invariants every chunker keeps: ordered indexes, exact slices, nothing empty."""
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert chunk.text.strip() == chunk.text != ""
        assert text[chunk.metadata["start"]:chunk.metadata["end"]] == chunk.text


LONG = " ".join(f"Sentence number {i} talks about topic {i % 7} in some detail." for i in range(60))


@pytest.mark.parametrize("name", sorted(CHUNKERS))
@pytest.mark.parametrize("text", ["", "   ", "\n\n\t\n"])
def test_blank_input_gives_no_chunks(name: str, text: str) -> None:
    assert get_chunker(name).chunk(text) == []


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_every_chunker_covers_all_words(name: str) -> None:
    chunks = get_chunker(name).chunk(LONG)
    _check_chunks(LONG, chunks)
    words = {w for c in chunks for w in c.text.split()}
    assert words == set(LONG.split())


def test_sentence_chunker_groups_up_to_target_without_splitting_sentences() -> None:
    chunks = SentenceChunker(target_chars=200, max_chars=300).chunk(LONG)
    _check_chunks(LONG, chunks)
    assert len(chunks) > 5
    sentences = split_sentences(LONG)
    for chunk in chunks:
        assert len(chunk.text) <= 200
        assert chunk.text.endswith("detail.")
        assert all(s in sentences for s in split_sentences(chunk.text))


def test_sentence_longer_than_target_stays_whole_until_max() -> None:
    long_sentence = "This sentence " + "goes on " * 20 + "and ends."
    text = f"Short one. {long_sentence} Short two."
    chunks = SentenceChunker(target_chars=50, max_chars=400).chunk(text)
    assert [c.text for c in chunks] == ["Short one.", long_sentence, "Short two."]
    cut = SentenceChunker(target_chars=50, max_chars=60).chunk(long_sentence)
    _check_chunks(long_sentence, cut)
    assert len(cut) > 1 and all(len(c.text) <= 60 for c in cut)
    assert " ".join(c.text for c in cut).split() == long_sentence.split()


def test_fixed_chunker_sizes_overlap_and_word_boundaries() -> None:
    text = "The quick brown fox jumps over the lazy dog and keeps running far away"
    chunks = FixedChunker(size=20, overlap=5).chunk(text)
    _check_chunks(text, chunks)
    words = set(text.split())
    for chunk in chunks:
        assert len(chunk.text) <= 20
        assert set(chunk.text.split()) <= words  # never a cut word
    for before, after in itertools.pairwise(chunks):
        assert after.metadata["start"] < before.metadata["end"]  # overlapping
        assert after.metadata["end"] > before.metadata["end"]  # and progressing
    no_overlap = FixedChunker(size=20, overlap=0).chunk(text)
    assert " ".join(c.text for c in no_overlap) == text


def test_fixed_chunker_cuts_a_word_longer_than_size() -> None:
    text = "a" * 25 + " tail"
    chunks = FixedChunker(size=10, overlap=0).chunk(text)
    _check_chunks(text, chunks)
    assert [c.text for c in chunks] == ["a" * 10, "a" * 10, "aaaaa tail"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"size": 100, "overlap": 100}, r"overlap \(100\) must be smaller than size \(100\)"),
        ({"size": 100, "overlap": 150}, "must be smaller than size"),
        ({"size": 0}, "size must be an integer >= 1"),
        ({"overlap": -1}, "overlap must be an integer >= 0"),
        ({"size": True}, "size must be an integer >= 1"),
    ],
)
def test_fixed_chunker_validates(params: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_chunker("fixed", **params)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("semantic", {}, "unknown chunker 'semantic'; valid chunkers are: fixed, sentence, structural"),
        ("sentence", {"size": 10}, "unknown parameter.*size.*valid parameters are: target_chars, max_chars"),
        ("sentence", {"target_chars": 500, "max_chars": 100},
         r"max_chars must be an integer >= target_chars \(500\)"),
        ("structural", {"syntax": "html"}, "syntax must be"),
        ("structural", {"target_chars": 0}, "target_chars must be an integer >= 1"),
    ],
)
def test_get_chunker_errors(name: str, params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_chunker(name, **params)


def test_get_chunker_builds_configured_instances() -> None:
    chunker = get_chunker("fixed", size=500, overlap=50)
    assert isinstance(chunker, FixedChunker) and (chunker.size, chunker.overlap) == (500, 50)
    assert isinstance(get_chunker("structural", syntax="rst"), StructuralChunker)
    assert {name: cls.name for name, cls in CHUNKERS.items()} == {n: n for n in CHUNKERS}


MARKDOWN = """Preamble before any heading.

# Guide

## Install

Run the installer.

## Use
### Basics

Start it.

Setext Part
-----------

Text under setext.

```python
# not a heading
print("x")
```
"""


def test_structural_markdown_heading_paths() -> None:
    chunks = StructuralChunker().chunk(MARKDOWN)
    _check_chunks(MARKDOWN, chunks)
    got = [(c.metadata["heading_path"], c.text.split("\n")[-1]) for c in chunks]
    assert got == [
        ([], "Preamble before any heading."),
        (["Guide", "Install"], "Run the installer."),
        (["Guide", "Use", "Basics"], "Start it."),
        (["Guide", "Setext Part"], "```"),
    ]
    assert chunks[1].text.startswith("# Guide")  # the empty parent heading joins its first subsection
    assert chunks[2].text.startswith("## Use")
    assert "# not a heading" in chunks[3].text


RST = """==========
User Guide
==========

Intro text.

Setup
-----

Install it.

Details
~~~~~~~

Fine print.

Usage
-----

Use it.
"""


def test_structural_rst_levels_by_first_use() -> None:
    chunks = get_chunker("structural").chunk(RST)
    _check_chunks(RST, chunks)
    assert [c.metadata["heading_path"] for c in chunks] == [
        ["User Guide"],
        ["User Guide", "Setup"],
        ["User Guide", "Setup", "Details"],
        ["User Guide", "Usage"],
    ]
    assert chunks[2].text == "Details\n~~~~~~~\n\nFine print."


def test_structural_long_section_splits_by_paragraph_then_sentence() -> None:
    paragraphs = [" ".join(f"Para {p} sentence {s} has words." for s in range(4)) for p in range(6)]
    huge = "Huge " + "run-on " * 60 + "end."
    text = "# Big\n\n" + "\n\n".join(paragraphs) + "\n\n" + huge
    chunks = StructuralChunker(target_chars=250, max_chars=300).chunk(text)
    _check_chunks(text, chunks)
    assert all(c.metadata["heading_path"] == ["Big"] for c in chunks)
    assert all(len(c.text) <= 300 for c in chunks)
    assert chunks[0].text.startswith("# Big")
    for paragraph in paragraphs:  # each paragraph (~130 chars) stays within one chunk
        assert any(paragraph in c.text for c in chunks)
    assert {w for c in chunks for w in c.text.split()} == set(text.split())


def test_structural_without_headings_is_one_section() -> None:
    text = "Just a paragraph.\n\nAnd another."
    chunks = StructuralChunker().chunk(text)
    assert [(c.text, c.metadata["heading_path"]) for c in chunks] == [(text, [])]


def test_structural_markdown_syntax_forced() -> None:
    text = "Title\n=====\n\nBody.\n\nNext\n----\n\nMore."
    md = StructuralChunker(syntax="markdown").chunk(text)
    assert [c.metadata["heading_path"] for c in md] == [["Title"], ["Title", "Next"]]
    hashtag = "#hashtag line\n\nText."
    assert [c.metadata["heading_path"] for c in StructuralChunker(syntax="markdown").chunk(hashtag)] == [[]]


def test_fixed_overlap_never_cuts_a_word_that_fits() -> None:
    text = "short words here " + "x" * 50 + " tail end"
    chunks = FixedChunker(size=50, overlap=40).chunk(text)
    _check_chunks(text, chunks)
    assert "x" * 50 in [c.text for c in chunks]
    assert {w for c in chunks for w in c.text.split()} == set(text.split())


@pytest.mark.parametrize("seed", range(5))
def test_invariants_on_random_text(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["Dr.", "U.S.", "e.g.", "3.14", "word", "Word", "A.", "!", "?", ".", "\n", "\n\n", "# Head",
              "## Sub", "===", "---", "~~~", "```", "é", "中文。", "y" * 40, "\t", '"Quote."', "(", ")"]
    for _ in range(100):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(0, 150)))
        chunkers: list[SentenceChunker | FixedChunker | StructuralChunker] = [
            SentenceChunker(target_chars=rng.randint(1, 80), max_chars=80),
            FixedChunker(size=60, overlap=rng.randint(0, 59)),
            StructuralChunker(target_chars=rng.randint(5, 60), max_chars=60, syntax=rng.choice(SYNTAXES)),
        ]
        for chunker in chunkers:
            chunks = chunker.chunk(text)
            _check_chunks(text, chunks)
            limit = chunker.size if isinstance(chunker, FixedChunker) else chunker.max_chars
            assert all(len(c.text) <= limit for c in chunks)
            assert {w for c in chunks for w in c.text.split()} == set(text.split())


SYNTAXES: list[Literal["auto", "markdown", "rst"]] = ["auto", "markdown", "rst"]
