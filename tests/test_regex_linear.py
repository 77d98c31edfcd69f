"""Every regular expression the package applies to input runs without catastrophic backtracking.

Python's ``re`` backtracks: a pattern that can read one stretch of text in many ways (``(\\w+\\s?)+``,
``(?:-{3,})+``, ``.*?[ \\t]*$``) takes exponential or polynomial time on a text where the match fails, and holds
the GIL while it does, which freezes every caller of the process. The test collects every pattern of the package
(compiled at module level, in classes, or written as a constant in a ``re.*`` call) and parses each with
``re._parser``. It fails on:

* **nested** repeats: inside a repeat that may run more than once, a repeat of variable length whose text can be
  read by what follows it (the repeat's next round included), as in ``(\\w+\\s?)+`` or ``(a|aa)+`` written
  ``(aa?)+``; a repeat whose following character cannot start it (``(\\w+\\s)+``, ``\\d+(?!\\d)``) is read one
  way only and passes;
* **adjacent** unbounded repeats over shared characters with nothing but optional items between them
  (``\\s*,?\\s*``, ``(.*?)(?:[ \\t]+#+)?[ \\t]*$``): quadratic in a run of those characters.

The times are measured in ``benchmarks/regex_adversarial_bench.py`` (figures in ``docs/liveness.md``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphrag_agents
from graphrag_agents.agent.fit.kind import answer_kind
from graphrag_agents.citations._prose import is_sentence_start
from graphrag_agents.ingest.chunkers import get_chunker
from graphrag_agents.ingest.code_spans import mask_code
from graphrag_agents.text.acronyms import defined_acronyms

if sys.version_info < (3, 11):  # re._parser and re._constants are sre_parse and sre_constants before 3.11
    pytest.skip("the pattern walk reads Python 3.11's re._parser", allow_module_level=True)

from re import _constants as C
from re import _parser as P

PACKAGE = Path(graphrag_agents.__file__).parent
CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
# Characters stand for their classes: ASCII and a sample of Unicode letters, digits, spaces and punctuation.
ALPHABET = [chr(c) for c in range(128)] + list("\u00a0\u2009\u3000\u2028éÉßЖж中٣²’‘”“«»–—…。！？、，；：")
REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT)
SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN)
ENDS = (C.AT_END, C.AT_END_LINE, C.AT_END_STRING)

Chars = frozenset[str]
Signature = tuple[Chars, Chars]
"""What a text read from some point begins with: characters it may skip first (optional runs), then the set of
its first required character (empty when nothing is required)."""


# ------------------------------------------------------------------------------------------- the patterns

def _flags(node: ast.expr | None) -> int:
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        return int(getattr(re, node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


def _source_patterns() -> Iterator[tuple[str, int, str]]:
    """Constant patterns written in ``re.<call>(...)`` anywhere in the package, compiled in functions too."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CALLS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                flags = next((k.value for k in node.keywords if k.arg == "flags"), None)
                if flags is None and node.func.attr in ("compile", "search", "match", "fullmatch", "findall",
                                                        "finditer") and len(node.args) > 2:
                    flags = node.args[2]
                if flags is None and node.func.attr == "compile" and len(node.args) > 1:
                    flags = node.args[1]
                yield node.args[0].value, _flags(flags), f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"


def _held(value: Any, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 2 and isinstance(value, (list, tuple, frozenset, set)):
        for item in value:
            yield from _held(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _held(item, depth + 1)


def _module_patterns() -> Iterator[tuple[str, int, str]]:
    """Patterns held by every module of the package (globals, class attributes, lists and tables of them)."""
    for info in pkgutil.walk_packages(graphrag_agents.__path__, "graphrag_agents."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            for pattern in _held(value):
                yield pattern.pattern, pattern.flags, f"{info.name}.{name}"
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for attr, held in vars(value).items():
                    for pattern in _held(held):
                        yield pattern.pattern, pattern.flags, f"{info.name}.{name}.{attr}"


def all_patterns() -> dict[tuple[str, int], list[str]]:
    """Every pattern (text, flags) with the places it is written or held."""
    found: dict[tuple[str, int], list[str]] = {}
    for pattern, flags, where in [*_source_patterns(), *_module_patterns()]:
        if isinstance(pattern, str):
            found.setdefault((pattern, flags & ~re.UNICODE), []).append(where)
    return found


# ------------------------------------------------------------------------------------------------ the walk

def _category(name: str, ch: str) -> bool:
    if "DIGIT" in name:
        hit = ch.isdecimal()
    elif "WORD" in name:
        hit = ch.isalnum() or ch == "_"
    elif "SPACE" in name:
        hit = ch.isspace()
    else:  # LINEBREAK
        hit = ch == "\n"
    return hit != ("NOT" in name)


def _matches(op: Any, av: Any, ch: str, flags: int) -> bool:
    if op is C.LITERAL:
        return ord(ch) == av
    if op is C.NOT_LITERAL:
        return ord(ch) != av
    if op is C.ANY:
        return bool(flags & re.S) or ch != "\n"
    hit = False
    negate = False
    for item, value in av:
        if item is C.NEGATE:
            negate = True
        elif item is C.LITERAL:
            hit |= ord(ch) == value
        elif item is C.RANGE:
            hit |= value[0] <= ord(ch) <= value[1]
        else:
            hit |= _category(str(value), ch)
    return hit != negate


def _one_char(op: Any, av: Any, flags: int) -> Chars:
    key = (op, repr(av), flags)
    if key not in _ONE_CHAR:
        _ONE_CHAR[key] = _chars_of(op, av, flags)
    return _ONE_CHAR[key]


_ONE_CHAR: dict[tuple[Any, str, int], Chars] = {}


def _chars_of(op: Any, av: Any, flags: int) -> Chars:
    def hit(ch: str) -> bool:
        forms = {f for f in (ch, ch.lower(), ch.upper()) if len(f) == 1} if flags & re.I else {ch}
        return any(_matches(op, av, f, flags) for f in forms)
    return frozenset(ch for ch in ALPHABET if hit(ch))


class Walk:
    """The findings for one pattern."""

    def __init__(self, pattern: str, flags: int) -> None:
        parsed = P.parse(pattern, flags)
        self.state = parsed.state
        self.problems: list[str] = []
        self._seq(list(parsed), self.state.flags, False, (frozenset(), frozenset()))

    def _min(self, items: list[Any]) -> int:
        return int(P.SubPattern(self.state, items).getwidth()[0])

    def _single(self, body: Any, flags: int) -> Chars | None:
        """The characters of a repeat's body when it is one character, else None."""
        items = list(body)
        if len(items) == 1 and items[0][0] in SINGLE:
            return _one_char(items[0][0], items[0][1], flags)
        return None

    def _first(self, items: list[Any], flags: int) -> tuple[Chars, bool]:
        """The characters a text read by ``items`` may begin with, and whether it may be empty."""
        out: set[str] = set()
        for op, av in items:
            if op in SINGLE:
                return frozenset(out | _one_char(op, av, flags)), False
            if op is C.AT and av in ENDS:
                return frozenset(out | {"\n"}), False  # only a line break (or nothing) follows an end
            parts: list[tuple[Chars, bool]] = []
            if op in REPEATS or op is C.POSSESSIVE_REPEAT:
                first, empty = self._first(list(av[2]), flags)
                parts.append((first, empty or av[0] == 0))
            elif op is C.SUBPATTERN:
                parts.append(self._first(list(av[3]), (flags | av[1]) & ~av[2]))
            elif op is C.ATOMIC_GROUP:
                parts.append(self._first(list(av), flags))
            elif op is C.BRANCH:
                parts += [self._first(list(alt), flags) for alt in av[1]]
            elif op is C.GROUPREF_EXISTS:
                parts += [self._first(list(alt), flags) if alt else (frozenset(), True) for alt in av[1:]]
            elif op is C.GROUPREF:
                parts.append((frozenset(ALPHABET), True))
            for first, _ in parts:
                out |= first
            if parts and not any(empty for _, empty in parts):
                return frozenset(out), False
        return frozenset(out), True

    def _signature(self, items: list[Any], flags: int, end: Signature) -> Signature:
        skip: set[str] = set()
        for index, (op, av) in enumerate(items):
            if op in (C.ASSERT, C.ASSERT_NOT) or (op is C.AT and av not in ENDS):
                continue
            if op in REPEATS and av[0] == 0 and (chars := self._single(av[2], flags)) is not None:
                skip |= chars
                continue
            if op in SINGLE:
                return frozenset(skip), _one_char(op, av, flags)
            if op in REPEATS and av[0] > 0 and (chars := self._single(av[2], flags)) is not None:
                return frozenset(skip), chars
            first, empty = self._first(items[index:], flags)
            return frozenset(skip), first | (end[0] | end[1] if empty else frozenset())
        return frozenset(skip) | end[0], end[1]

    def _follow(self, items: list[Any], index: int, flags: int, end: Signature) -> Signature:
        skip, required = self._signature(items[index + 1:], flags, end)
        ahead = items[index + 1] if index + 1 < len(items) else None
        if ahead is not None and ahead[0] is C.ASSERT_NOT and ahead[1][0] == 1:
            excluded = self._single(ahead[1][1], flags)
            if excluded is not None:  # "\d+(?!\d)": the next character is none of these
                return skip - excluded, required - excluded
        return skip, required

    @staticmethod
    def _overlap(body: Signature, follow: Signature) -> bool:
        """Whether a text may be read both as one more round of a repeat (``body``) and by what follows it."""
        (skip1, need1), (skip2, need2) = body, follow
        if not (skip1 | need1) & (skip2 | need2):
            return False
        return bool(need1 & (skip2 | need2) or need2 & skip1 or not need1 or not need2)

    def _edge(self, items: list[Any], flags: int, last: bool) -> list[tuple[Chars, str]]:
        """The unbounded one-character repeats that may read the last (or first) characters of ``items``."""
        out: list[tuple[Chars, str]] = []
        for op, av in reversed(items) if last else items:
            if op is C.AT and av is not C.AT_NON_BOUNDARY:
                break  # an anchor or a word boundary fixes where one repeat ends and the next begins
            if op in (C.ASSERT, C.ASSERT_NOT) or op is C.AT:
                continue
            if op in REPEATS and (chars := self._single(av[2], flags)) is not None:
                if av[1] == C.MAXREPEAT:
                    out.append((chars, f"{{{av[0]},}}"))
            elif op in REPEATS and av[1] == 1:
                out += self._edge(list(av[2]), flags, last)
            elif op is C.SUBPATTERN:
                out += self._edge(list(av[3]), (flags | av[1]) & ~av[2], last)
            elif op is C.BRANCH:
                for alt in av[1]:
                    out += self._edge(list(alt), flags, last)
            if self._min([(op, av)]) > 0:
                break
        return out

    def _seq(self, items: list[Any], flags: int, inside: bool, end: Signature) -> None:
        for index, (op, av) in enumerate(items):
            follow = self._follow(items, index, flags, end)
            if op in REPEATS:
                low, high, body = av
                if (inside and high > low and P.SubPattern(self.state, list(body)).getwidth()[1] > 0
                        and self._overlap(self._signature(list(body), flags, follow), follow)):
                    upper = "" if high == C.MAXREPEAT else high
                    self.problems.append(f"nested: a repeat {{{low},{upper}}} inside a repeat, and what follows it "
                                         "may read the same text")
                nested_end = self._signature(list(body), flags, follow) if high > 1 else follow
                self._seq(list(body), flags, inside or high > 1, nested_end)
            elif op is C.POSSESSIVE_REPEAT:
                self._seq(list(av[2]), flags, False, follow)
            elif op is C.ATOMIC_GROUP:
                self._seq(list(av), flags, False, follow)
            elif op is C.SUBPATTERN:
                self._seq(list(av[3]), (flags | av[1]) & ~av[2], inside, follow)
            elif op is C.BRANCH:
                for alt in av[1]:
                    self._seq(list(alt), flags, inside, follow)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                self._seq(list(av[1]), flags, False, (frozenset(), frozenset()))
            elif op is C.GROUPREF_EXISTS:
                for alt in av[1:]:
                    if alt:
                        self._seq(list(alt), flags, inside, follow)
            self._adjacent(items, index, flags)

    def _adjacent(self, items: list[Any], index: int, flags: int) -> None:
        before = self._edge([items[index]], flags, last=True)
        for later in items[index + 1:]:
            if later[0] is C.AT and later[1] is not C.AT_NON_BOUNDARY:
                return
            for chars, shape in self._edge([later], flags, last=False):
                for earlier, earlier_shape in before:
                    if chars & earlier:
                        self.problems.append(f"adjacent: a repeat {earlier_shape} then a repeat {shape} that may "
                                             "read the same characters")
                        return
            if self._min([later]) > 0:
                return


def findings(pattern: str, flags: int = 0) -> list[str]:
    """What makes ``pattern`` backtrack badly (empty when nothing does)."""
    return Walk(pattern, flags).problems


# ------------------------------------------------------------------------------------------------ the tests

@pytest.mark.parametrize(("pattern", "bad"), [
    (r"(\w+\s?)+$", True),
    (r"(-+)+$", True),
    (r"(aa?)+$", True),
    (r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|?)+$", True),  # the table rule of the code mask at 75f0126
    (r"(?:[^\W\d_]+\s*){1,2}\d{0,2}\s*:", True),  # the label before a name at 75f0126
    (r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$", True),  # the Markdown heading at 75f0126
    (r"^(?:(?:\d{1,4}|may|s)\W*)+$", True),  # the date-only answer at 75f0126
    (r"\s*,?\s*x", True),
    (r"(\w+\s)+$", False),
    (r"(?:\d+(?!\d)\W*)+$", False),
    (r"[a-z]+(?:\s+[a-z]+)*\.", False),
    (r"\[\d{1,12}(?:[ \t]*-[ \t]*\d{1,12})?(?:[ \t]*,[ \t]*\d{1,12}(?:[ \t]*-[ \t]*\d{1,12})?)*[ \t]*\]", False),
    (r"(?:(?: {4}|\t)[^\n]*(?:\n|\Z))+", False),
    (r"(?:(?>\w+)\s?)+$", False),
    (r"(\w+\s?)++", False),
])
def test_the_walk_tells_backtracking_patterns_from_linear_ones(pattern: str, bad: bool) -> None:
    assert bool(findings(pattern)) is bad, findings(pattern)


def test_the_walk_finds_the_patterns_of_the_package() -> None:
    found = all_patterns()
    places = [where for wheres in found.values() for where in wheres]
    assert len(found) > 200
    assert "graphrag_agents.ingest.code_spans._EMPHASIS" in places  # held at module level
    assert any(where.startswith("graphrag_agents/ingest/code_spans.py:") for where in places)  # written in a call


def test_no_pattern_of_the_package_backtracks_badly() -> None:
    bad = {f"{', '.join(wheres)}: {pattern!r}: {'; '.join(dict.fromkeys(problems))}"
           for (pattern, flags), wheres in all_patterns().items()
           if (problems := findings(pattern, flags))}
    assert not bad, "patterns that backtrack badly on a text where they fail:\n" + "\n".join(sorted(bad))


# The inputs of the report, through the functions that read them: each now finishes (the pattern test above is
# the guard; the times are the benchmark's) and reads as before.

def test_a_line_of_dashes_ending_in_a_letter_is_not_a_table_rule() -> None:
    text = "-" * 60 + "a\n| --- | :---: |\n"
    assert mask_code(text) == "-" * 60 + "a\n" + " " * 15 + "\n"


def test_a_heading_with_a_long_run_of_spaces_keeps_its_title() -> None:
    chunks = get_chunker("structural").chunk("# a" + " " * 16_000 + "b ##\n\nText under it.\n")
    assert chunks[-1].metadata["heading_path"] == ["a" + " " * 16_000 + "b"]  # the closing "##" cut, as before
    assert "Text under it." in chunks[-1].text


def test_a_label_read_past_a_long_run_of_spaces() -> None:
    text = "Alice" + " " * 39_000 + "works at Acme"
    assert not is_sentence_start(text, text.index("Acme"))
    assert is_sentence_start("Note 2:  Acme", len("Note 2:  "))


def test_a_long_run_of_capitalised_names_defines_no_acronym() -> None:
    names = " ".join(["Qorvex", "Blandt", "Ostrava", "Wenlo"] * 2_000)
    assert defined_acronyms(names + ".") == []
    assert defined_acronyms(names + " Fair Labor Standards Act (FLSA)") == [
        (len(names) + 1, len(names) + 32, "flsa")]


def test_a_long_run_of_digits_is_still_a_date_only_answer() -> None:
    assert answer_kind("1" * 40 + "x", {}) == frozenset()
    assert answer_kind("12 May 2024", {}) == frozenset({"date"})


@pytest.mark.slow  # the benchmark: every text family at 20,000 and 40,000 characters through four entries
def test_the_adversarial_benchmark_is_linear() -> None:
    sys.path.insert(0, str(PACKAGE.parent / "benchmarks"))
    import regex_adversarial_bench as bench

    rows = bench.run(20_000)
    assert not bench.over_budget(rows), bench.over_budget(rows)
