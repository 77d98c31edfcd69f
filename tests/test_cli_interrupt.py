"""Ctrl-C and SIGTERM during ``ingest`` and ``finalize``: a clean stop, one line saying what is stored, and a rerun
that resumes. Real subprocesses on a pseudo-terminal (so the progress bars are drawn), real signals.

The end-to-end run is slow; the default suite runs the embedder's orderly stop, the root of the native abort, and
a SIGINT to a short ``status``.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path("/work/shared/eval/hotpotqa.corpus.jsonl")
DOCS = 1971  # the whole sample
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SHOW_CURSOR = "\x1b[?25h"  # rich hides the cursor while bars are live and shows it again when they stop



def _cli(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "graphrag_agents.cli", *args, "--data-dir", str(data_dir)]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHRAG_", "FALKOR_"))}
    return env | {"PYTHONPATH": str(ROOT), "COLUMNS": "120"}


def _interrupt(command: list[str], when: str, sig: signal.Signals, cwd: Path) -> tuple[int, str]:
    """Run ``command`` with stderr on a pseudo-terminal, send ``sig`` once the pattern ``when`` appears there, and
    return the exit code and everything it wrote."""
    leader, follower = pty.openpty()
    stdout = tempfile.TemporaryFile()  # noqa: SIM115 - not a pipe: a full pipe would block the child's report
    child = subprocess.Popen(command, stdout=stdout, stderr=follower, stdin=subprocess.DEVNULL, cwd=cwd,
                             env=_env(), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(follower)
    seen, sent, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        if not sent and re.search(when, ANSI.sub("", seen.decode(errors="replace"))):
            child.send_signal(sig)
            sent = True
        if child.poll() is not None and not ready:
            break
    os.close(leader)
    child.wait(timeout=120)
    stdout.seek(0)
    out = stdout.read().decode()
    assert sent, f"{when!r} never appeared: {seen.decode(errors='replace')[-2000:]}"
    return child.returncode, seen.decode(errors="replace") + out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPUS.is_file():
        pytest.skip("needs the HotpotQA corpus of ../shared/eval")
    folder = tmp_path_factory.mktemp("interrupt") / "corpus"
    folder.mkdir()
    with CORPUS.open(encoding="utf-8") as rows:
        for i, line in zip(range(DOCS), rows, strict=False):
            row = json.loads(line)
            (folder / f"p{i:04d}.txt").write_text(f"{row['title']}\n\n{row['text']}", encoding="utf-8")
    return folder


def _waiting(text: str) -> int:
    line = next(t for t in text.splitlines() if "interrupted (" in t)
    assert f"graph 'default' holds {DOCS:,} documents" in line, line
    return int(re.search(r"; ([\d,]+) items wait for finalize", line).group(1).replace(",", ""))


@pytest.mark.slow  # about 80 s on the 2-core machine: five CLI processes and a partial finalize of 2,000 chunks
def test_ctrl_c_during_ingest_and_finalize_stops_cleanly_and_says_what_is_stored(corpus: Path) -> None:
    work, data = corpus.parent, corpus.parent / "data"
    ingest = _cli(data, "ingest", "-r", "corpus", "--extractor", "none")
    # Before: exit 130, nothing printed, the bars left frozen on the terminal.
    code, text = _interrupt(ingest, "Writing documents", signal.SIGINT, work)
    assert code == 130, text
    assert "interrupted (SIGINT): graph 'default' holds" in text, text
    assert "Re-run the same command to resume" in text and SHOW_CURSOR in text and "Traceback" not in text
    stored = int(re.search(r"holds ([\d,]+) documents", text).group(1).replace(",", ""))
    assert stored < DOCS, text
    rerun = subprocess.run([*ingest, "--json"], capture_output=True, text=True, cwd=work, env=_env(), timeout=240)
    assert rerun.returncode == 0, rerun.stderr
    documents = json.loads(rerun.stdout[:rerun.stdout.rindex("}") + 1])["documents"]
    statuses = [d["status"] for d in documents]
    assert (statuses.count("ingested"), statuses.count("unchanged")) == (DOCS - stored, stored)

    # Before: "terminate called without an active exception", a native abort (exit 134 / -6).
    code, text = _interrupt(_cli(data, "finalize"), r"Embedding chunks\W+[1-9]\d*/", signal.SIGINT,
                            work)
    assert code == 130, text
    assert "terminate called" not in text and "Traceback" not in text and SHOW_CURSOR in text
    first = _waiting(text)
    code, text = _interrupt(_cli(data, "finalize"), r"Embedding chunks\W+[1-9]\d*/", signal.SIGTERM,
                            work)
    assert code == 143 and "interrupted (SIGTERM)" in text and "terminate called" not in text, text
    assert _waiting(text) <= first


def test_the_embedder_worker_stops_after_its_current_batch_and_fails_the_rest() -> None:
    import threading

    import numpy as np

    from graphrag_agents.models._batching import EmbedBatcher, EmbedderStopped

    started, release = threading.Event(), threading.Event()

    def embed(texts: list[str]) -> np.ndarray:
        started.set()
        release.wait(5)
        return np.ones((len(texts), 2), dtype=np.float32)

    async def go() -> None:
        batcher = EmbedBatcher(embed, max_texts=2)
        running = asyncio.ensure_future(batcher.embed(["a", "b", "c", "d"]))  # two model calls
        await asyncio.to_thread(started.wait, 5)
        stopper = threading.Thread(target=batcher.stop)
        stopper.start()
        release.set()
        await asyncio.to_thread(stopper.join, 10)
        # Before: no stop at all; at exit the daemon worker was torn down inside the model call (native abort).
        assert not stopper.is_alive() and batcher._worker is None
        with pytest.raises(EmbedderStopped):
            await running
        assert (await batcher.embed(["e"])).shape == (1, 2)  # a later request starts a new worker

    asyncio.run(go())


def test_a_signal_prints_the_interrupted_line(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"n{i}.txt").write_text(f"Alice Smith {i} works at Acme Corp in Berlin.", encoding="utf-8")
    ingest = _cli(tmp_path / "data", "ingest", "n0.txt", "n1.txt", "n2.txt", "--extractor", "ner")
    code, text = _interrupt(ingest, "Extracting documents", signal.SIGINT, tmp_path)  # spaCy is loading
    assert code == 130 and "Traceback" not in text, text
    line = next(t for t in ANSI.sub("", text).replace("\r", "").splitlines() if t.startswith("interrupted (SIGINT): "))
    assert line.endswith("Re-run the same command to resume: what is stored is kept and not done again."), line


_WINDING_DOWN = """
import asyncio, sys
from graphrag_agents.cli import interrupt

async def command() -> int:
    try:
        print("running", file=sys.stderr, flush=True)
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        print("winding down", file=sys.stderr, flush=True)  # a stop that takes its time, as a large finalize's
        await asyncio.sleep(60)
        raise
    return 0

sys.exit(interrupt.run(command))
"""


def _wait_for(child: subprocess.Popen[str], text: str) -> None:
    assert child.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = child.stderr.readline()
        if text in line:
            return
        assert line, f"the command ended before {text!r}"
    raise AssertionError(f"{text!r} never appeared")


def test_a_second_signal_stops_at_once_and_names_the_signal() -> None:
    for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        _signal_twice(sig, code)


def _signal_twice(sig: signal.Signals, code: int) -> None:
    child = subprocess.Popen([sys.executable, "-c", _WINDING_DOWN], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env(),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(child, "running")
        child.send_signal(sig)  # the first signal starts the clean stop...
        _wait_for(child, "winding down")
        started = time.monotonic()
        child.send_signal(sig)  # ...the second ends it now
        assert child.wait(timeout=30) == code and time.monotonic() - started < 20
        assert child.stderr is not None
        rest = child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
    # Before: a second SIGTERM printed "interrupted (SIGINT)" and exited 130, as if Ctrl-C had been pressed.
    line = next(t for t in rest.splitlines() if t.startswith("interrupted ("))
    assert line.startswith(f"interrupted ({sig.name}): nothing half-written is kept."), rest
    assert "Traceback" not in rest, rest
