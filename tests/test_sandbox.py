"""files_root sandbox: hostile paths, real-path identity, limits, listing, symlinks swapped in mid-open."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphrag_agents.errors import ToolError
from graphrag_agents.tools.write import sandbox
from graphrag_agents.tools.write.sandbox import FilesRoot

posix_only = pytest.mark.skipif(not sandbox._POSIX, reason="needs O_NOFOLLOW and dir_fd (POSIX)")
SECRET = b"root:x:0:0:SECRET"


@pytest.fixture(params=["posix", "fallback"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on the POSIX handle walk and on the weaker open-by-name fallback used on Windows."""
    if request.param == "posix" and not sandbox._POSIX:
        pytest.skip("POSIX walk unavailable")
    if request.param == "fallback":
        monkeypatch.setattr(sandbox, "_POSIX", False)
    return str(request.param)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/ with documents, hidden entries and symlinks in and out; tmp_path/outside holds a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_bytes(SECRET)
    (outside / "x.md").write_bytes(SECRET)
    root = tmp_path / "root"
    for folder in ["notes/deep", "reports", ".git", "Reports2", "file:x"]:
        (root / folder).mkdir(parents=True)
    files = {
        "a.md": b"# A", "b.txt": b"bee", "c.pdf": b"%PDF-", "notes/x.md": b"x", "notes/deep/y.md": b"y",
        "notes/.secret.md": b"hidden", ".git/config": b"cfg", ".env": b"KEY=1", "reports/q1.pdf": b"%PDF-q1",
        "weird[1].md": b"brackets", "Reports2/Q1.MD": b"case", "file:x/lit.md": b"literal",
    }
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    links = {
        "evil.md": str(outside / "passwd"),  # absolute, outside
        "rel_evil.md": "../outside/passwd",  # relative, outside
        "outdir": str(outside),  # folder outside
        "link_in.md": "notes/x.md",  # inside: same document as its target
        "abs_in.md": str(root / "notes" / "x.md"),  # absolute but inside
        "linkdir": "notes",  # folder inside
        "notes/up": "..",  # back to the root
        "loop": ".",
        "to_hidden.md": "notes/.secret.md",
        "cycle_a": "cycle_b",
        "cycle_b": "cycle_a",
        "dangling.md": "nowhere.md",
    }
    for rel, target in links.items():
        os.symlink(target, root / rel)
    return root


HOSTILE = [
    ("../outside/passwd", "'..' may not be used"),
    ("notes/../../outside/passwd", "'..' may not be used"),
    ("/etc/passwd", "Absolute path"),
    (".env", "is hidden"),
    (".git/config", "is hidden"),
    ("notes/.secret.md", "is hidden"),
    ("evil.md", "outside the files root"),
    ("rel_evil.md", "outside the files root"),
    ("outdir/passwd", "outside the files root"),
    ("notes/up/evil.md", "outside the files root"),
    ("to_hidden.md", "hidden"),
    ("cycle_a", "too many symlinks"),
    ("dangling.md", "not found"),
    ("missing.md", "not found"),
    ("a.md/child", "not found"),
    ("notes", "is a folder"),
    ("", "give a non-empty path"),
    (".", "names the files root itself"),
    ("a.md\x00.txt", "give a non-empty path"),
]


@pytest.mark.parametrize(("path", "message"), HOSTILE)
def test_hostile_paths_are_refused(tree: Path, mode: str, path: str, message: str) -> None:
    files = FilesRoot(tree)
    for call in (files.read_bytes, files.doc_id, files.stat_size, lambda p: files.read_window(p, 0, 10)):
        with pytest.raises(ToolError) as caught:
            call(path)
        assert message in caught.value.message
        assert caught.value.hint


@pytest.mark.parametrize(
    ("path", "doc_id", "data"),
    [
        ("a.md", "file:a.md", b"# A"),
        ("./notes//x.md", "file:notes/x.md", b"x"),
        ("link_in.md", "file:notes/x.md", b"x"),
        ("abs_in.md", "file:notes/x.md", b"x"),
        ("linkdir/deep/y.md", "file:notes/deep/y.md", b"y"),
        ("notes/up/a.md", "file:a.md", b"# A"),
        ("loop/loop/b.txt", "file:b.txt", b"bee"),
        ("Reports2/Q1.MD", "file:Reports2/Q1.MD", b"case"),
        ("weird[1].md", "file:weird[1].md", b"brackets"),
        ("file:notes/x.md", "file:notes/x.md", b"x"),
        ("file:x/lit.md", "file:file:x/lit.md", b"literal"),  # a real path starting with file: is as given
    ],
)
def test_allowed_paths_read_under_their_real_path(tree: Path, mode: str, path: str, doc_id: str,
                                                 data: bytes) -> None:
    files = FilesRoot(tree)
    assert files.read_bytes(path) == (doc_id, data)
    assert files.doc_id(path) == doc_id
    assert files.stat_size(path) == len(data)
    with files.open_file(path) as (opened_id, handle):
        assert (opened_id, handle.read()) == (doc_id, data)


def test_case_as_stored(tree: Path, mode: str) -> None:
    files = FilesRoot(tree)
    try:
        doc_id = files.doc_id("reports2/q1.md")
    except ToolError as exc:  # case-sensitive file system: the other spelling names nothing
        assert "not found" in exc.message
    else:  # case-insensitive file system: the stored spelling is the identity
        assert doc_id == "file:Reports2/Q1.MD"


@posix_only
def test_stored_name_prefers_the_name_on_disk(tree: Path) -> None:
    files = FilesRoot(tree)
    folder = os.open(tree / "Reports2", os.O_RDONLY)
    try:
        st = os.stat("Q1.MD", dir_fd=folder, follow_symlinks=False)
        # as a case-insensitive lookup would: asked for q1.md, it opened Q1.MD (same inode)
        assert files._stored_name(folder, "q1.md", st) == "Q1.MD"
        other = os.stat(tree / "a.md")
        assert files._stored_name(folder, "q1.md", other) == "q1.md"  # another file: no substitution
    finally:
        os.close(folder)


def test_size_limit(tree: Path, mode: str) -> None:
    (tree / "big.txt").write_bytes(b"x" * 101)
    with pytest.raises(ToolError) as caught:
        FilesRoot(tree, max_file_bytes=100).read_bytes("big.txt")
    assert "101 bytes, over max_file_bytes (100)" in caught.value.message
    assert "Split the file or raise max_file_bytes" in caught.value.hint
    assert FilesRoot(tree, max_file_bytes=101).read_bytes("big.txt")[1] == b"x" * 101
    assert len(FilesRoot(tree, max_file_bytes=None).read_bytes("big.txt")[1]) == 101
    assert FilesRoot(tree, max_file_bytes=10).read_window("big.txt", 50, 5) == b"xxxxx"  # windows are bounded


def test_read_window(tree: Path, mode: str) -> None:
    (tree / "digits.txt").write_bytes(b"0123456789")
    files = FilesRoot(tree)
    assert files.read_window("digits.txt", 3, 4) == b"3456"
    assert files.read_window("digits.txt", 8, 10) == b"89"
    assert files.read_window("digits.txt", 20, 5) == b""
    with pytest.raises(ValueError):
        files.read_window("digits.txt", -1, 5)


@pytest.mark.timeout(10)
def test_fifo_is_refused_without_blocking(tree: Path, mode: str) -> None:
    os.mkfifo(tree / "pipe.txt")
    with pytest.raises(ToolError, match="not a regular file"):
        FilesRoot(tree).read_bytes("pipe.txt")
    assert FilesRoot(tree).list_files("*.txt") == ["b.txt"]


def test_device_is_refused(tree: Path, mode: str) -> None:
    try:
        os.mknod(tree / "null.txt", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError):
        pytest.skip("cannot create a device node here")
    with pytest.raises(ToolError, match="not a regular file"):
        FilesRoot(tree).read_bytes("null.txt")


def test_refused_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "docs").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    cases: list[tuple[str | Path, str]] = [
        ("/", "is the filesystem root"),
        (home, "is the home folder"),
        (tmp_path, "contains the home folder"),
        (tmp_path / "missing", "does not exist"),
        (home / "docs" / "..", "is the home folder"),
    ]
    for root, message in cases:
        with pytest.raises(ToolError) as caught:
            FilesRoot(root)
        assert message in caught.value.message
        assert "folder that holds the documents" in caught.value.hint or "does not exist" in message
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ToolError, match="is not a folder"):
        FilesRoot(tmp_path / "file.txt")
    assert FilesRoot(home / "docs").root == (home / "docs").resolve()  # inside home is fine


def test_root_replaced_after_start_is_refused(tree: Path, tmp_path: Path, mode: str) -> None:
    files = FilesRoot(tree)
    assert files.read_bytes("a.md")[1] == b"# A"
    tree.rename(tmp_path / "moved")
    os.symlink(tmp_path / "outside", tree)
    with pytest.raises(ToolError, match="no longer the folder it was at start"):
        files.read_bytes("passwd")
    with pytest.raises(ToolError, match="no longer the folder"):
        files.list_files("*")


def test_closed_root(tree: Path, mode: str) -> None:
    files = FilesRoot(tree)
    files.close()
    files.close()
    with pytest.raises(ToolError, match="closed"):
        files.read_bytes("a.md")


LISTINGS = [
    (["*.md"], ["a.md", "notes/x.md", "weird[1].md"]),
    (["**/*.md"], ["a.md", "file:x/lit.md", "notes/deep/y.md", "notes/x.md", "weird[1].md"]),
    (["notes/**/*.md"], ["notes/deep/y.md", "notes/x.md"]),
    (["notes/up/*.txt"], ["b.txt"]),
    (["reports/*.pdf"], ["reports/q1.pdf"]),
    (["*.pdf", "reports/*.pdf"], ["c.pdf", "reports/q1.pdf"]),
    (["notes"], ["notes/deep/y.md", "notes/x.md"]),
    (["linkdir/*"], ["notes/x.md"]),
    (["weird[1].md"], ["weird[1].md"]),
    (["weird[0-9].md"], []),
    (["file:notes/x.md", "notes/x.md", "link_in.md"], ["notes/x.md"]),
    (["file:x/*.md"], ["file:x/lit.md"]),
    (["file:notes/*.md"], ["notes/x.md"]),
    (["nomatch/*.md"], []),
    (["a.md/*.md"], []),
    (["?.txt"], ["b.txt"]),
    (["Reports2/*"], ["Reports2/Q1.MD"]),
]


@pytest.mark.parametrize(("patterns", "expected"), LISTINGS)
def test_list_files(tree: Path, mode: str, patterns: list[str], expected: list[str]) -> None:
    assert sorted(FilesRoot(tree).list_files(patterns)) == expected


def test_list_files_never_leaves_the_root_or_shows_hidden(tree: Path, mode: str) -> None:
    everything = FilesRoot(tree).list_files("**")
    assert everything == sorted(everything)
    assert set(everything) == {"a.md", "b.txt", "c.pdf", "notes/x.md", "notes/deep/y.md", "reports/q1.pdf",
                               "weird[1].md", "Reports2/Q1.MD", "file:x/lit.md"}
    suffixed = FilesRoot(tree).list_files(["**/*"], suffixes=[".MD", ".pdf"])
    assert set(suffixed) == {p for p in everything if p.lower().endswith((".md", ".pdf"))}


@pytest.mark.parametrize(("pattern", "message"), [("missing.md", "not found"), ("../*.md", "'..'"),
                                                  (".git/*", "hidden"), ("/abs/*.md", "Absolute")])
def test_list_files_errors(tree: Path, mode: str, pattern: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        FilesRoot(tree).list_files([pattern])


def test_listing_cap(tree: Path, mode: str) -> None:
    with pytest.raises(ToolError) as caught:
        FilesRoot(tree, max_entries=5).list_files(["**/*.md"])
    assert "after walking 5 entries" in caught.value.message
    assert "folder that holds the documents" in caught.value.hint
    assert FilesRoot(tree, max_entries=5).list_files(["reports/*.pdf"]) == ["reports/q1.pdf"]


@pytest.fixture
def swap_env(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_bytes(b"inside")
    (outside / "docs").mkdir(parents=True)
    (outside / "a.md").write_bytes(SECRET)
    (outside / "docs" / "a.md").write_bytes(SECRET)
    yield root, outside


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, name: str, swap: object) -> list[str]:
    """Make the entry ``name`` change right after the sandbox stat-checks it, before it opens it."""
    done: list[str] = []
    original = FilesRoot._lstat

    def lstat_then_swap(self: FilesRoot, entry: str, dir_fd: int, shown: str) -> os.stat_result:
        result = original(self, entry, dir_fd, shown)
        if entry == name and not done:
            swap()  # type: ignore[operator]
            done.append(entry)
        return result

    monkeypatch.setattr(FilesRoot, "_lstat", lstat_then_swap)
    return done


@posix_only
def test_folder_swapped_for_symlink_after_check_is_refused(swap_env: tuple[Path, Path],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root, outside = swap_env
    files = FilesRoot(root)
    assert files.read_bytes("docs/a.md") == ("file:docs/a.md", b"inside")

    def swap() -> None:
        (root / "docs").rename(root / "docs-old")
        os.symlink(outside / "docs", root / "docs")

    done = _swap_after_check(monkeypatch, "docs", swap)
    with pytest.raises(ToolError) as caught:
        files.read_bytes("docs/a.md")
    assert done == ["docs"]
    assert "turned into a symlink" in caught.value.message
    assert (root / "docs" / "a.md").read_bytes() == SECRET  # a read by name would have leaked it


@posix_only
def test_file_swapped_for_symlink_after_check_is_refused(swap_env: tuple[Path, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root, outside = swap_env
    target = root / "docs" / "a.md"

    def swap() -> None:
        target.unlink()
        os.symlink(outside / "a.md", target)

    done = _swap_after_check(monkeypatch, "a.md", swap)
    with pytest.raises(ToolError, match="turned into a symlink"):
        FilesRoot(root).read_bytes("docs/a.md")
    assert done == ["a.md"]
    assert target.read_bytes() == SECRET


@posix_only
@pytest.mark.timeout(10)
def test_file_swapped_for_fifo_after_check_is_refused_on_the_handle(swap_env: tuple[Path, Path],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = swap_env
    target = root / "docs" / "a.md"

    def swap() -> None:
        target.unlink()
        os.mkfifo(target)

    _swap_after_check(monkeypatch, "a.md", swap)
    with pytest.raises(ToolError, match="not a regular file"):
        FilesRoot(root).read_bytes("docs/a.md")


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("a.md", "*.md", True),
        ("notes/a.md", "*.md", False),  # '*' stays within one name
        ("notes/a.md", "**/*.md", True),
        ("a.md", "**/*.md", True),  # '**' may span no folder
        ("a/b/c/d.md", "a/**/d.md", True),
        ("a/b/c/d.md", "a/**/c/**/d.md", True),
        ("a/b/c/d.md", "a/**/x/**/d.md", False),
        ("reports/q1.pdf", "reports/q?.pdf", True),
        ("reports/q10.pdf", "reports/q?.pdf", False),
        ("r/q1.pdf", "r/q[0-9].pdf", True),
        ("A.MD", "*.md", False),  # case-sensitive, as stored
        ("x" * 3, "/".join(["**"] * 60 + ["y"]), False),  # many '**' stay cheap
    ],
)
def test_glob_match(path: str, pattern: str, expected: bool) -> None:
    assert sandbox.glob_match(path, pattern) is expected
