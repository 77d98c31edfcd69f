"""Soak: mixed ingest, update, delete and retrieve from several processes and sessions on one data folder, then a
check that every document is stored exactly once with the text of its latest version.

    python benchmarks/soak_bench.py [--processes 3] [--sessions 8] [--ops 40 | --minutes M] [--docs 30]
                                    [--force-rewrite] [--compare-threshold US] [--no-lock | --url URL]

Each of ``--processes`` processes opens the same embedded data folder (or, with ``--no-lock``, the same embedded
server by its socket URL, or ``--url``: a FalkorDB reached by URL; the folder's write lock does not apply there)
and runs ``--sessions`` concurrent sessions of ``--ops`` operations each over ``--docs`` shared document ids:
ingest a new version (40 %), update one (20 %), delete one (15 %), retrieve (25 %). Every operation is logged
with its start and end on the machine's monotonic clock. The baseline, measured in the same run on a graph of its
own, is 1 process with 1 session doing the same number of operations per session.

The check, per document id: the operations no other operation started after (the "last" ones: any of them may have
won the race) name the states the document may be in, and the stored one must be one of them: absent after a
delete; after a write, exactly one ``Document`` node whose chunks are that version's text and whose content hash is
that text's. A write reported ``failed`` (another writer stored another version meanwhile) stored nothing and
names no state. It prints the throughput of both phases and their ratio, latency per kind, and the check's counts
(documents checked, wrong, doubled: the last two must be 0).

On the embedded folder, each phase ends the way a user's work does: the server is stopped cleanly, the folder is
opened again (a new server replays the append-only file), and the check reads the reopened graph. A start that had
to recover the folder (``falkordb.unreplayable-*``) is a failure, as is one that does not start. The append-only
rewrites seen during the phase are counted from ``INFO persistence`` (``aof_rewrites``), both the automatic ones
(past 64 MB, doubling) and, with ``--force-rewrite``, one sent halfway if none came by then. With ``--minutes``
the sessions run for that long instead of ``--ops`` operations (the baseline for ``--baseline-minutes``).

``--compare-threshold US`` measures the cost of the durable logging setting: the soak runs twice more, alternating,
on fresh folders, once with the package's ``EFFECTS_THRESHOLD`` (0: every write logged as its effects) and once
with ``US`` (FalkorDB's default is 300), and prints the throughput ratio and whether each folder reopened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import graphrag_agents.store.embedded as embedded
from graphrag_agents.ingest import IngestPlan
from graphrag_agents.ingest.records import content_hash
from graphrag_agents.kg import KnowledgeGraph

_PLAN = IngestPlan(extractor="none", chunker="fixed", chunk_params={"size": 120, "overlap": 0})
_WEIGHTS = {"ingest": 40, "update": 20, "delete": 15, "retrieve": 25}


def version_text(doc: int, tag: str, rng: random.Random) -> str:
    """A version of document ``doc``: one to six sentences (one to several chunks), tagged with its writer."""
    return " ".join(f"Report {doc} [{tag}] line {k} reads {rng.randint(0, 10**6)} units."
                    for k in range(rng.randint(1, 6)))


def _set_threshold(threshold: int | None) -> None:
    """Run this process's embedded servers with ``threshold`` (None: the package's durable default)."""
    if threshold is not None:
        embedded.DURABLE_MODULE_ARGS = ("EFFECTS_THRESHOLD", str(threshold))


async def _session(kg: KnowledgeGraph, name: str, ops: int, docs: int, seed: int,
                   deadline: float | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    kinds, weights = list(_WEIGHTS), list(_WEIGHTS.values())
    log: list[dict[str, Any]] = []
    k = -1
    while (k := k + 1) < ops if deadline is None else time.monotonic() < deadline:
        kind = rng.choices(kinds, weights)[0]
        doc = rng.randrange(docs)
        entry: dict[str, Any] = {"kind": kind, "doc": f"r{doc}", "start": time.monotonic()}
        try:
            if kind in ("ingest", "update"):
                text = version_text(doc, f"{name}-{k}", rng)
                call = kg.ingest if kind == "ingest" else kg.update
                report = await call(text=text, document_id=f"r{doc}", plan=_PLAN)
                entry.update(text=text, status=report.documents[0].status)
            elif kind == "delete":
                entry["status"] = "deleted" if await kg.delete_document(f"r{doc}") else "absent"
            else:
                if await kg.store.exists():
                    await kg.retrieve(f"What does report {doc} read?", paths=["passages"], top_k=3)
                entry["status"] = "ok"
        except Exception as exc:  # any raw error is a finding: logged, reported, never hidden
            entry["status"] = f"error: {type(exc).__name__}: {exc}"
        entry["end"] = time.monotonic()
        log.append(entry)
    return log


async def _worker(target: dict[str, Any], graph: str, sessions: int, ops: int, docs: int, seed: int) -> None:
    _set_threshold(target.get("threshold"))
    kg = await KnowledgeGraph.open(url=target.get("url"), graph=graph, data_dir=target.get("data_dir"))
    await kg.ensure_schema()
    print("ready", flush=True)
    go = Path(target["go"])
    while not go.exists():
        await asyncio.sleep(0.005)
    started = time.monotonic()
    deadline = started + target["seconds"] if target.get("seconds") else None
    logs = await asyncio.gather(*(_session(kg, f"p{seed}s{i}", ops, docs, seed * 1000 + i, deadline)
                                  for i in range(sessions)))
    elapsed = time.monotonic() - started
    await kg.close()
    print(json.dumps({"elapsed": elapsed, "ops": [e for log in logs for e in log]}), flush=True)


class _Rewrites:
    """Counts the append-only rewrites of the embedded server during a phase (``INFO persistence``), and forces
    one halfway through when asked and none came by then."""

    def __init__(self, socket_path: Path, force_at: float | None) -> None:
        import redis

        self._client = redis.Redis(unix_socket_path=str(socket_path))
        self._start = int(self._client.info("persistence")["aof_rewrites"])
        self._force_at, self._stop = force_at, threading.Event()
        self.forced = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(0.5):
            if (self._force_at is not None and not self.forced and time.monotonic() - started >= self._force_at
                    and int(self._client.info("persistence")["aof_rewrites"]) == self._start):
                self._client.bgrewriteaof()
                self.forced = True

    def finish(self) -> dict[str, Any]:
        """Stop watching; the rewrites seen and the append-only file's size."""
        self._stop.set()
        self._thread.join()
        while self._client.info("persistence")["aof_rewrite_in_progress"]:
            time.sleep(0.05)
        info = self._client.info("persistence")
        self._client.close()
        return {"rewrites": int(info["aof_rewrites"]) - self._start, "forced": self.forced,
                "aof_mb": int(info["aof_current_size"]) / 2**20}


def _run_phase(target: dict[str, Any], processes: int, sessions: int, ops: int, docs: int,
               force_rewrite: bool = False) -> dict[str, Any]:
    graph = f"soak_{uuid.uuid4().hex[:8]}"
    go = Path(tempfile.mkdtemp()) / "go"
    spec = json.dumps({**target, "go": str(go)})
    server = None
    if target.get("data_dir") and not target.get("url"):
        server = embedded.acquire_server(target["data_dir"])  # kept up for the phase; stopped cleanly after it
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", spec, graph, str(sessions), str(ops), str(docs),
                               str(p + 1)], stdout=subprocess.PIPE, text=True) for p in range(processes)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    half = target["seconds"] / 2 if target.get("seconds") else 1.0
    rewrites = _Rewrites(server.socket_path, half if force_rewrite else None) if server is not None else None
    wall = time.monotonic()
    go.touch()
    outputs = [json.loads(proc.communicate()[0].strip().splitlines()[-1]) for proc in procs]
    wall = time.monotonic() - wall
    seen = rewrites.finish() if rewrites is not None else None
    if server is not None:
        embedded.release_server(server)  # a clean stop: the check reads what a new start replays
    ops_log = [e for out in outputs for e in out["ops"]]
    try:
        check = asyncio.run(_check(target, graph, ops_log))
    except Exception as exc:  # the folder did not open again: the finding this soak exists for
        check = {"documents": 0, "stored": 0, "wrong": [], "doubled": [], "never_stored": 0, "errors": [],
                 "reopened": f"no: {type(exc).__name__}: {str(exc)[:200]}"}
    return {"wall": wall, "ops": ops_log, "check": check, "rewrites": seen}


def _allowed(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The operations on one document that name a state it may end in: effective ones no other effective one
    started after (ignoring retrieves, failed writes and updates of an absent document)."""
    effective = [e for e in entries if e["kind"] in ("ingest", "update", "delete")
                 and e["status"] in ("ingested", "updated", "unchanged", "reextracted", "deleted", "absent")]
    return [e for e in effective if not any(o["start"] > e["end"] for o in effective)]


async def _check(target: dict[str, Any], graph: str, ops_log: list[dict[str, Any]]) -> dict[str, Any]:
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in ops_log:
        by_doc[entry["doc"]].append(entry)
    _set_threshold(target.get("threshold"))
    async with await KnowledgeGraph.open(url=target.get("url"), graph=graph, data_dir=target.get("data_dir")) as kg:
        server = kg.store._client.server
        recovered = server.recovery if server is not None else None
        rows = await kg.store.ro_query(
            "MATCH (d:Document) OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk) WITH d, c ORDER BY c.index "
            "RETURN d.id, d.content_hash, collect(c.text)")
        await kg.store.delete()
    stored: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for doc_id, digest, texts in rows:
        stored[str(doc_id)].append((str(digest), " ".join(str(t) for t in texts)))
    wrong, doubled, unsettled = [], [d for d, found in stored.items() if len(found) > 1], 0
    for doc, entries in by_doc.items():
        last = _allowed(entries)
        if not last:
            unsettled += 1  # only retrieves or failed writes: the document was never stored
            if doc in stored:
                wrong.append(doc)
            continue
        found = stored.get(doc, [])
        ok = any((e["kind"] == "delete" and not found) or (
            e["kind"] != "delete" and len(found) == 1 and found[0][0] == content_hash(e["text"])
            and found[0][1].split() == e["text"].split()) for e in last)
        if not ok:
            wrong.append(doc)
    errors = [e["status"] for e in ops_log if str(e["status"]).startswith("error")]
    reopened = "n/a (a URL)" if target.get("url") else (
        "yes" if recovered is None else f"only by recovery: {recovered.describe()}")
    return {"documents": len(by_doc), "stored": len(stored), "wrong": wrong, "doubled": doubled,
            "never_stored": unsettled, "errors": errors, "reopened": reopened}


def _latency(ops_log: list[dict[str, Any]]) -> str:
    parts = []
    for kind in _WEIGHTS:
        times = sorted((e["end"] - e["start"]) * 1000 for e in ops_log if e["kind"] == kind)
        if times:
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            parts.append(f"{kind} n={len(times)} p50 {statistics.median(times):.0f} ms p95 {p95:.0f} ms")
    return "; ".join(parts)


def _report(name: str, phase: dict[str, Any]) -> float:
    ops = len(phase["ops"])
    rate = float(ops / phase["wall"])
    statuses: dict[str, int] = defaultdict(int)
    for e in phase["ops"]:
        statuses[str(e["status"]).split(":")[0]] += 1
    check = phase["check"]
    print(f"{name}: {ops} operations in {phase['wall']:.1f} s = {rate:.1f} ops/s")
    print(f"  latency: {_latency(phase['ops'])}")
    print(f"  statuses: {dict(sorted(statuses.items()))}")
    print(f"  check: {check['documents']} documents, {check['stored']} stored, {len(check['wrong'])} wrong "
          f"{check['wrong'][:5]}, {len(check['doubled'])} doubled, {check['never_stored']} never stored, "
          f"{len(check['errors'])} raw errors {check['errors'][:3]}")
    if phase.get("rewrites") is not None:
        seen = phase["rewrites"]
        print(f"  append-only rewrites during the writes: {seen['rewrites']}"
              f"{' (one forced halfway)' if seen['forced'] else ' (automatic)'}; file {seen['aof_mb']:.1f} MB")
    print(f"  folder reopened after a clean stop: {check['reopened']}")
    return rate


def _failed(check: dict[str, Any]) -> bool:
    reopened = check["reopened"] in ("yes", "n/a (a URL)")
    return bool(check["wrong"] or check["doubled"] or check["errors"] or not reopened)


def _compare(args: argparse.Namespace, seconds: float | None) -> int:
    """The soak on fresh folders, alternating the durable setting and ``--compare-threshold``."""
    rates: dict[str, list[float]] = defaultdict(list)
    lost: dict[str, int] = defaultdict(int)
    for round_ in range(args.rounds):
        for name, threshold in (("EFFECTS_THRESHOLD 0", None), (f"EFFECTS_THRESHOLD {args.compare_threshold}",
                                                                args.compare_threshold)):
            setting = threshold if threshold is not None else 0
            target = {"data_dir": tempfile.mkdtemp(prefix="soak-"), "seconds": seconds, "threshold": setting}
            _set_threshold(setting)
            phase = _run_phase(target, args.processes, args.sessions, args.ops, args.docs, args.force_rewrite)
            rates[name].append(_report(f"round {round_ + 1}, {name}", phase))
            lost[name] += _failed(phase["check"])
    durable, old = (statistics.median(v) for v in rates.values())
    names = list(rates)
    print(f"write throughput {names[0]} / {names[1]}: {durable / old:.2f}x (medians of {args.rounds} rounds: "
          f"{durable:.1f} and {old:.1f} ops/s); folders lost or wrong: {lost[names[0]]} and {lost[names[1]]} "
          f"of {args.rounds}")
    return 1 if lost[names[0]] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--ops", type=int, default=40, help="operations per session")
    parser.add_argument("--docs", type=int, default=30, help="document ids the sessions share")
    parser.add_argument("--minutes", type=float, default=None,
                        help="run the soak's sessions this long instead of --ops operations each")
    parser.add_argument("--baseline-minutes", type=float, default=1.0, help="the baseline's length with --minutes")
    parser.add_argument("--force-rewrite", action="store_true",
                        help="send BGREWRITEAOF halfway through the soak when no automatic rewrite came by then")
    parser.add_argument("--compare-threshold", type=int, default=None, metavar="US",
                        help="also run the soak with this EFFECTS_THRESHOLD (FalkorDB's default: 300), alternating "
                             "with the durable 0, and print the throughput ratio")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of that comparison")
    parser.add_argument("--data-dir", default=None, help="embedded data folder (default: a new temporary one)")
    parser.add_argument("--url", default=None, help="a FalkorDB URL instead (no folder lock between writers)")
    parser.add_argument("--no-lock", action="store_true",
                        help="reach the embedded server by its socket URL: writers share no folder lock")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        spec, graph, sessions, ops, docs, seed = args.worker
        asyncio.run(_worker(json.loads(spec), graph, int(sessions), int(ops), int(docs), int(seed)))
        return 0
    seconds = args.minutes * 60 if args.minutes else None
    length = f"{args.minutes:g} minutes" if seconds else f"{args.ops} operations per session"
    if args.compare_threshold is not None:
        print(f"durable logging against EFFECTS_THRESHOLD {args.compare_threshold}: {args.rounds} rounds of "
              f"{args.processes} processes x {args.sessions} sessions, {length} over {args.docs} document ids",
              flush=True)
        return _compare(args, seconds)
    folder = Path(args.data_dir or tempfile.mkdtemp(prefix="soak-"))
    server = embedded.acquire_server(folder) if args.url is None and args.no_lock else None
    url = f"unix://{server.socket_path}" if server is not None else args.url
    target: dict[str, Any] = {"url": url} if url else {"data_dir": str(folder)}
    try:
        where = f"{url} (no folder lock)" if url else str(folder)
        print(f"soak on {where}: baseline 1 x 1, then {args.processes} processes x {args.sessions} sessions, "
              f"{length} over {args.docs} document ids", flush=True)
        base_target = {**target, "seconds": args.baseline_minutes * 60 if seconds else None}
        base = _report("baseline 1 process x 1 session", _run_phase(base_target, 1, 1, args.ops, args.docs))
        soak = _run_phase({**target, "seconds": seconds}, args.processes, args.sessions, args.ops, args.docs,
                          args.force_rewrite)
        rate = _report(f"soak {args.processes} processes x {args.sessions} sessions", soak)
        print(f"throughput ratio soak / baseline: {rate / base:.2f}x")
        return 1 if _failed(soak["check"]) else 0
    finally:
        if server is not None:
            embedded.release_server(server)


if __name__ == "__main__":
    raise SystemExit(main())
