#!/usr/bin/env python3
"""The online tables on 1 and on 2 server processes behind HAProxy, side by side in one run, and a failover's cost.

This is a benchmark, not a test. Each measurement is one round of ``benchmarks/server_load.py`` (imported: the same
load clients, every seat a WebSocket client in ``--workers`` processes, acting as fast as the rules allow or at a
person's pace) against a fresh server set-up:

* ``pg-1``: one ``royal-revenge serve --node`` process behind HAProxy, on PostgreSQL;
* ``pg-2``: two such processes behind HAProxy (the table's code hashed over them), on the same PostgreSQL;
* ``sqlite-1``, for reference: one process on a SQLite file, without a balancer, as ``make run`` serves.

The cluster is :class:`royal_revenge.server.cluster.LocalCluster` (the processes with ``--no-rate-limits``, since
every simulated player has one address, and ``--lease-seconds``) on one throwaway PostgreSQL
(:class:`~royal_revenge.server.localdb.LocalPostgres`, started once for the run, a new database for every
measurement; like the tests' it runs without ``fsync`` and ``synchronous_commit``, while ``sqlite-1`` syncs every
group commit, ``serve``'s default). Two loads: **all-out** (``--all-out-tables``, 250 by default, every client acting
as soon as its decision comes: a closed loop that saturates what serves it) and **person pace**
(``--person-tables``, 2,000 by default, a mean ``--think-ms`` of 1,000 ms before each action, uniform 0.5x-1.5x, the
pace of docs/benchmarks.md's person-pace figures). The configurations alternate within each of ``--repeat`` rounds
(``sqlite-1 pg-1 pg-2``, then ``pg-2 pg-1 sqlite-1``...), so that the machine's drift hits each of them alike; the
summary gives medians of actions/s, ack p50 and p99, errors, and the CPU (percent of one core over the measured
window) of the server processes, HAProxy, PostgreSQL (its postmaster and every backend), the load clients and the
whole machine. **The figure** is the ratio of pg-2's to pg-1's actions/s all-out (medians, and the median of the
rounds' paired ratios).

On a cluster, creating a table may cost a handover (the process that created it is not the one its code hashes to),
and a request or an upgrade that meets a table while it moves is answered 503 ``moved``: the load clients try those
again, and count them. They also reconnect after a closed connection as docs/protocol.md suggests (at once after
4307, else after 0.5 s, 1 s, 2 s...), counting each reconnection; in a throughput measurement there should be none.

**Failover** (``--failover-tables``, ``--failover-repeat``): ``--failover-processes`` processes (2 by default) with
that many tables playing at a person's pace; ``--failover-kill-after`` seconds into the measured window, the process
that owns the most tables (by their leases in PostgreSQL) is killed with SIGKILL. From that moment every table it
owned is asked for through the balancer (``GET /api/tables/{code}``, again until it answers 200), and its players'
clients reconnect by themselves. Reported: when HAProxy marked the process down, when the last of its tables
answered the GET (**the failover's cost**), when the last of its seats had a state on a new connection, and when the
last of its tables had an acknowledged action again (that one includes a person's think time), medians over the
repeats. A lease runs out ``--lease-seconds`` (2 s) after its last renewal, so that is roughly the floor.

**The machine.** Everything runs on this one machine (2 cores here): the server processes, HAProxy, PostgreSQL and
the load clients share its cores, so two processes cannot get a core each while the others also need CPU. The
all-out load of one process already takes most of a core for the server and much of the other for the clients,
HAProxy and PostgreSQL, so the 1.6x target of two processes over one may be physically out of reach here; the CPU
columns say which part was saturated (the machine's total is out of ``100 x cores`` percent, and what it used beyond
this benchmark's processes was other work on the machine). The core count and the load average are printed.

Examples::

    PYTHONPATH=build/compiled .venv/bin/python benchmarks/cluster_load.py --repeat 3 --seconds 25 --json out.json
    .venv/bin/python benchmarks/cluster_load.py --all-out-tables 20 --person-tables 40 --seconds 5 \\
        --failover-tables 40 --failover-repeat 1                     # a quick check at small scale
    .venv/bin/python benchmarks/cluster_load.py --loads all-out --configs pg-1 pg-2 --repeat 5   # the ratio alone
    .venv/bin/python benchmarks/cluster_load.py --failover-only --failover-tables 250 2000 --failover-repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import server_load

from royal_revenge.server.cluster import LocalCluster
from royal_revenge.server.localdb import LocalPostgres

CONFIGS = ("sqlite-1", "pg-1", "pg-2")
LOADS = ("all-out", "person")
DESCRIPTIONS = {
    "sqlite-1": "1 process, SQLite, no balancer (make run)",
    "pg-1": "1 process behind HAProxy, PostgreSQL",
    "pg-2": "2 processes behind HAProxy, PostgreSQL",
}


def _median(values: list[float]) -> float | None:
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def _load_args(tables: int, think_ms: float, seconds: float, warmup: float, workers: int, seed: int,
               url: str | None) -> argparse.Namespace:
    argv = ["--tables", str(tables), "--think-ms", str(think_ms), "--seconds", str(seconds), "--warmup", str(warmup),
            "--workers", str(workers), "--seed", str(seed)]
    if url is not None:
        argv += ["--url", url]
    return server_load._parser().parse_args(argv)


def _log_events(paths: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Per process: how many of each lease event (``table_created``, ``table_taken``, ``table_let_go``...), warning
    and error line its log holds (the processes log JSON lines to their files)."""
    found: dict[str, dict[str, int]] = {}
    for name, path in paths.items():
        counts: Counter[str] = Counter()
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.startswith("{"):
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            event, level = str(record.get("event", "")), str(record.get("level", "")).lower()
            if event.startswith("table_"):
                counts[event + (f":{record['reason']}" if "reason" in record else "")] += 1
            if level in ("warning", "error", "critical"):
                counts[f"{level}:{event[:60]}"] += 1
            if "Traceback" in str(record.get("error", "")):
                counts["traceback"] += 1
        found[name] = dict(counts)
    return found


def _live_tables(cluster: LocalCluster) -> dict[str, Any]:
    live: dict[str, Any] = {}
    for index, process in enumerate(cluster.processes):
        try:
            health = cluster.health(index)
        except (httpx.HTTPError, ValueError):
            live[process.name] = None
            continue
        live[process.name] = health.get("tables", health.get("live_tables", health))
    return live


def _measure(config: str, load: str, args: argparse.Namespace, postgres: LocalPostgres | None,
             *, processes: int | None = None, tables: int | None = None, think_ms: float | None = None,
             seconds: float | None = None, failover: bool = False) -> dict[str, Any]:
    """One measurement: a fresh server set-up of ``config``, one round of server_load against it."""
    if tables is None:
        tables = args.all_out_tables if load == "all-out" else args.person_tables
    if think_ms is None:
        think_ms = 0.0 if load == "all-out" else args.think_ms
    seconds = seconds if seconds is not None else args.seconds
    settings = json.loads(server_load._parser().get_default("settings"))
    settings.setdefault("players", 4)
    workers = max(1, min(args.workers, tables))
    started = time.monotonic()
    if config == "sqlite-1":
        load_args = _load_args(tables, think_ms, seconds, args.warmup, workers, args.seed, None)
        figures = server_load._round(load_args, server_load._parser(), settings, workers)
        figures["cpu_percent"] = {"p1": figures["server_cpu_percent"]}
        figures["config"], figures["load"] = config, load
        figures["wall_seconds"] = round(time.monotonic() - started, 1)
        return figures
    assert postgres is not None
    count = processes if processes is not None else int(config.split("-")[1])
    db = postgres.new_database()
    folder = Path(tempfile.mkdtemp(prefix="rr-cluster-load-"))
    cluster = LocalCluster(count, db=db, lease_seconds=args.lease_seconds, no_rate_limits=True,
                           log_level="info", folder=folder)
    try:
        cluster.start()
        assert cluster.haproxy is not None and postgres._server is not None
        watch = {process.name: [process.pid] for process in cluster.processes if process.pid is not None}
        watch["haproxy"] = [cluster.haproxy.pid]
        # the postmaster (LocalPostgres keeps its process to itself): its backends are counted with it
        watch["postgres"] = [postgres._server.pid]
        load_args = _load_args(tables, think_ms, seconds, args.warmup, workers, args.seed, cluster.url)
        hook = (lambda: _failover(cluster, db, args)) if failover else None
        figures = server_load._round(load_args, server_load._parser(), settings, workers, watch=watch,
                                     during=hook, reconnect=True)
        figures["live_tables_after"] = _live_tables(cluster)
        figures["log_events"] = _log_events({process.name: process.log for process in cluster.processes})
        gone = cluster.check()
        if failover:
            gone = [line for line in gone if "status -9" not in line]
        if gone:  # (a process that died by itself makes the measurement worthless: say so)
            figures["stopped"] = gone
            print("WARNING: " + "; ".join(gone))
    finally:
        cluster.stop(drain_seconds=15)
        if args.keep_logs:
            print(f"(the cluster's logs are kept in {folder})")
        else:
            shutil.rmtree(folder, ignore_errors=True)
        postgres.psql(f"DROP DATABASE IF EXISTS {db.rsplit('/', 1)[1]} WITH (FORCE)")
    figures["config"], figures["load"] = config, load
    figures["processes"] = count
    figures["wall_seconds"] = round(time.monotonic() - started, 1)
    if failover:
        _failover_from_clients(figures)
    figures.pop("reconnection_records", None)
    return figures


# ---------------------------------------------------------------------------- failover


async def _owners(db: str) -> dict[str, str]:
    """Each table's owner (``p1``...) by its lease (a handed-back lease has none)."""
    import asyncpg  # type: ignore[import-untyped]

    connection = await asyncpg.connect(db)
    try:
        rows = await connection.fetch("SELECT code, owner FROM rr_leases WHERE owner IS NOT NULL AND owner <> ''")
    finally:
        await connection.close()
    return {row["code"]: row["owner"].split(":")[0] for row in rows}


async def _probe(url: str, codes: list[str], since: float, limit: int, timeout: float) -> dict[str, Any]:
    """``GET /api/tables/{code}`` for every code through the balancer, again until it answers 200: when each did
    (seconds after ``since``), and how many tries answered otherwise."""
    answered: dict[str, float] = {}
    others: Counter[str] = Counter()
    gate = asyncio.Semaphore(limit)
    deadline = since + timeout
    async with httpx.AsyncClient(base_url=url, timeout=10,
                                 limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit)) as http:
        async def one(code: str) -> None:
            async with gate:
                while time.monotonic() < deadline:
                    try:
                        response = await http.get(f"/api/tables/{code}")
                    except httpx.HTTPError as error:
                        others[type(error).__name__] += 1
                        await asyncio.sleep(0.05)
                        continue
                    if response.status_code == 200:
                        answered[code] = time.monotonic() - since
                        return
                    others[str(response.status_code)] += 1
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(one(code) for code in codes))
    return {"answered": answered, "other_answers": dict(others)}


def _failover(cluster: LocalCluster, db: str, args: argparse.Namespace) -> dict[str, Any]:
    """In the measured window: SIGKILL the process owning the most tables, then wait until all of them answer."""
    time.sleep(args.failover_kill_after)
    owners = asyncio.run(_owners(db))
    by_process = Counter(owners.values())
    if not by_process:
        return {"error": "no process held a lease: nothing to kill"}
    victim = max(by_process, key=lambda name: (by_process[name], name))
    index = next(i for i, process in enumerate(cluster.processes) if process.name == victim)
    codes = sorted(code for code, owner in owners.items() if owner == victim)
    killed_at = time.monotonic()
    cluster.kill(index)
    marked: dict[str, float] = {}

    async def watch_balancer() -> None:
        while "down" not in marked and time.monotonic() - killed_at < args.failover_timeout:
            states = await asyncio.to_thread(cluster.balancer_states)
            if states.get(victim) == "DOWN":
                marked["down"] = time.monotonic() - killed_at
            await asyncio.sleep(0.02)

    async def both() -> dict[str, Any]:
        watcher = asyncio.create_task(watch_balancer())
        probed = await _probe(cluster.url, codes, killed_at, args.failover_probe_limit, args.failover_timeout)
        await watcher
        return probed

    probed = asyncio.run(both())
    times = sorted(probed["answered"].values())
    return {
        "killed": victim, "killed_at": killed_at, "tables_by_process": dict(by_process), "killed_tables": len(codes),
        "killed_codes": codes, "marked_down_s": round(marked["down"], 2) if "down" in marked else None,
        "answered": len(times), "unanswered": len(codes) - len(times),
        "all_answer_s": round(times[-1], 2) if times and len(times) == len(codes) else None,
        "answer_s": {"p50": round(server_load._percentile(times, 0.5), 2),
                     "p90": round(server_load._percentile(times, 0.9), 2)} if times else None,
        "probe_other_answers": probed["other_answers"],
    }


def _failover_from_clients(figures: dict[str, Any]) -> None:
    """From the clients' reconnections: when the killed process's seats had a state again, and its tables an
    acknowledged action."""
    during = figures.get("during") or {}
    if "killed_at" not in during:
        return
    killed_at, codes = during["killed_at"], set(during.pop("killed_codes"))
    records = [r for r in figures.get("reconnection_records", []) if r["closed_at"] >= killed_at - 0.5]
    ours = [r for r in records if r["code"] in codes]
    back = [r["back_at"] - killed_at for r in ours if r["back_at"] is not None]
    acted: dict[str, float] = {}
    for record in ours:
        if record["ack_at"] is not None:
            seconds = record["ack_at"] - killed_at
            acted[record["code"]] = min(seconds, acted.get(record["code"], seconds))
    during["clients"] = {
        "reconnections": len(ours), "of_other_tables": len(records) - len(ours),
        "seats_back": len(back), "seats_not_back": len(ours) - len(back),
        "all_seats_back_s": round(max(back), 2) if back and len(back) == len(ours) else None,
        "seats_back_p50_s": round(statistics.median(back), 2) if back else None,
        "tables_acting_again": len(acted),
        "all_tables_acting_s": round(max(acted.values()), 2) if acted and len(acted) == len(codes) else None,
        "attempts_max": max((r["attempts"] for r in ours), default=0),
    }
    during.pop("killed_at")


# ---------------------------------------------------------------------------- the run


def _summary(measurements: list[dict[str, Any]], configs: list[str], loads: list[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for load in loads:
        rows: dict[str, Any] = {}
        for config in configs:
            runs = [m for m in measurements if m["config"] == config and m["load"] == load]
            if not runs:
                continue
            parts = list(dict.fromkeys(name for m in runs for name in m["cpu_percent"]))  # (p1, p2, haproxy...)
            rows[config] = {
                "rounds": len(runs),
                "tables": runs[0]["tables"],
                "clients": runs[0]["clients"],
                "actions_per_s": _median([m["actions_per_s"] for m in runs]),
                "actions_per_s_range": [min(m["actions_per_s"] for m in runs), max(m["actions_per_s"] for m in runs)],
                "ack_p50_ms": _median([m["ack_ms"]["p50"] for m in runs]),
                "ack_p99_ms": _median([m["ack_ms"]["p99"] for m in runs]),
                "ack_p99_ms_range": [min(m["ack_ms"]["p99"] for m in runs), max(m["ack_ms"]["p99"] for m in runs)],
                "errors": sum(m["total_errors"] for m in runs),
                "moved_retries": sum(m.get("moved_retries", 0) for m in runs),
                "reconnections": sum(m.get("reconnections", 0) for m in runs),
                "cpu_percent": {name: _median([m["cpu_percent"].get(name) for m in runs]) for name in parts}
                | {"clients": _median([m["clients_cpu_percent"] for m in runs]),
                   "machine": _median([m["machine_busy_percent"] for m in runs])},
                "cpu_probe_ms": _median([m["cpu_probe_ms"] for m in runs]),
            }
        entry: dict[str, Any] = {"configs": rows}
        if "pg-1" in rows and "pg-2" in rows and rows["pg-1"]["actions_per_s"]:
            one = [m for m in measurements if m["config"] == "pg-1" and m["load"] == load]
            two = [m for m in measurements if m["config"] == "pg-2" and m["load"] == load]
            paired = [b["actions_per_s"] / a["actions_per_s"] for a, b in zip(one, two, strict=False)
                      if a["actions_per_s"]]
            entry["ratio_2_over_1"] = round(rows["pg-2"]["actions_per_s"] / rows["pg-1"]["actions_per_s"], 2)
            entry["ratio_paired_median"] = round(statistics.median(paired), 2) if paired else None
            entry["ratio_paired"] = [round(value, 2) for value in paired]
        summary[load] = entry
    return summary


def _failover_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    by_size: dict[str, Any] = {}
    for tables in sorted({m["tables"] for m in runs}):
        kills = [m for m in runs if m["tables"] == tables and "killed" in m.get("during", {})]
        these = [m["during"] for m in kills]
        clients = [d.get("clients", {}) for d in these]
        by_size[str(tables)] = {
            "repeats": len(these),
            "killed_tables": [d["killed_tables"] for d in these],
            "marked_down_s": _median([d["marked_down_s"] for d in these]),
            "all_answer_s": _median([d["all_answer_s"] for d in these]),
            "all_answer_s_each": [d["all_answer_s"] for d in these],
            "answer_p50_s": _median([d["answer_s"]["p50"] for d in these if d["answer_s"]]),
            "all_seats_back_s": _median([c.get("all_seats_back_s") for c in clients]),
            "all_tables_acting_s": _median([c.get("all_tables_acting_s") for c in clients]),
            "unanswered": sum(d["unanswered"] for d in these),
            "errors": sum(m["total_errors"] for m in kills),
            "lost_in_reconnect": sum(m["lost_in_reconnect"] for m in kills),
        }
    return by_size


def _print_summary(summary: dict[str, Any], failover: dict[str, Any]) -> None:
    print(f"\n=== summary: medians (this machine has {os.cpu_count()} cores; CPU in % of one core)")
    for load, entry in summary.items():
        print(f"--- {load}")
        for config, row in entry["configs"].items():
            cpu = ", ".join(f"{name} {value:.0f}" for name, value in row["cpu_percent"].items() if value is not None)
            print(f"  {config:<8} {row['tables']:>5} tables  {row['actions_per_s']:>8.0f} actions/s "
                  f"({row['actions_per_s_range'][0]:.0f}-{row['actions_per_s_range'][1]:.0f})  ack p50 "
                  f"{row['ack_p50_ms']:.1f} ms  p99 {row['ack_p99_ms']:.1f} ms  errors {row['errors']}  "
                  f"moved retries {row['moved_retries']}  reconnections {row['reconnections']}")
            print(f"           CPU: {cpu}")
        if "ratio_2_over_1" in entry:
            print(f"  2 processes / 1 process: {entry['ratio_2_over_1']}x (medians), paired rounds "
                  f"{entry['ratio_paired']} (median {entry['ratio_paired_median']}x)")
    for tables, row in failover.items():
        print(f"--- failover, {tables} tables at a person's pace, {row['repeats']} kills (tables of the killed "
              f"process: {row['killed_tables']})")
        print(f"  marked down {row['marked_down_s']} s; every table answers again {row['all_answer_s']} s "
              f"(each: {row['all_answer_s_each']}; half of them by {row['answer_p50_s']} s); every seat back "
              f"{row['all_seats_back_s']} s; every table acting again {row['all_tables_acting_s']} s; "
              f"unanswered {row['unanswered']}; errors {row['errors']} (unacknowledged actions dropped with the "
              f"connections: {row['lost_in_reconnect']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__[__doc__.index("Examples::"):],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=CONFIGS,
                        help="set-ups to compare (default: all three; " + "; ".join(
                            f"{name}: {text}" for name, text in DESCRIPTIONS.items()) + ")")
    parser.add_argument("--loads", nargs="+", default=list(LOADS), choices=LOADS,
                        help="all-out (as fast as the rules allow) and/or person (a person's pace); default both")
    parser.add_argument("--all-out-tables", type=int, default=250, help="tables of the all-out load (default 250)")
    parser.add_argument("--person-tables", type=int, default=2000,
                        help="tables of the person-pace load (default 2000)")
    parser.add_argument("--think-ms", type=float, default=1000.0,
                        help="mean think time of the person-pace load (default 1000)")
    parser.add_argument("--seconds", type=float, default=25.0, help="measured seconds per measurement (default 25)")
    parser.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds of play first (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every configuration (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="load client processes (default 2)")
    parser.add_argument("--lease-seconds", type=float, default=2.0, help="the processes' --lease-seconds (default 2)")
    parser.add_argument("--failover-tables", type=int, nargs="*", default=[250, 2000],
                        help="table counts to measure a failover at (default 250 2000; none: no failover)")
    parser.add_argument("--failover-repeat", type=int, default=3, help="kills per table count (default 3)")
    parser.add_argument("--failover-processes", type=int, default=2, help="processes of the failover (default 2)")
    parser.add_argument("--failover-seconds", type=float, default=30.0,
                        help="the failover measurement's window (default 30)")
    parser.add_argument("--failover-kill-after", type=float, default=5.0,
                        help="seconds into the window before the kill (default 5)")
    parser.add_argument("--failover-timeout", type=float, default=60.0,
                        help="give up waiting for the tables this long after the kill (default 60)")
    parser.add_argument("--failover-probe-limit", type=int, default=256,
                        help="GETs in flight at once after the kill (default 256)")
    parser.add_argument("--failover-only", action="store_true", help="only the failover measurements")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-logs", action="store_true",
                        help="keep every cluster's folder (the processes' logs, HAProxy's configuration); printed")
    parser.add_argument("--json", dest="json_path", help="also write every measurement and the summary here")
    args = parser.parse_args(argv)
    if not 1 <= args.repeat <= 50:
        parser.error("--repeat must be 1..50")
    if not all(1 <= tables <= 2000 for tables in (args.all_out_tables, args.person_tables, *args.failover_tables)):
        parser.error("table counts must be 1..2000 (server_load.py's --max-tables)")
    if min(args.seconds, args.failover_seconds) <= 0 or args.warmup < 0:
        parser.error("--seconds and --failover-seconds must be positive, --warmup not negative")
    if args.failover_kill_after + 1 >= args.failover_seconds:
        parser.error("--failover-kill-after must leave time in --failover-seconds")

    loads = [] if args.failover_only else list(args.loads)
    configs = list(args.configs)
    uptime_before = Path("/proc/loadavg").read_text().split()[:3]
    print(f"cores: {os.cpu_count()}; load average before: {' '.join(uptime_before)}; "
          f"PYTHONPATH={os.environ.get('PYTHONPATH', '')!r}")
    run_started = time.monotonic()
    measurements: list[dict[str, Any]] = []
    failovers: list[dict[str, Any]] = []
    postgres: LocalPostgres | None = None
    try:
        if any(config != "sqlite-1" for config in configs) or args.failover_tables:
            postgres = LocalPostgres(max_connections=200).start()
            version = subprocess.run([str(postgres.bin_dir / "postgres"), "--version"], capture_output=True,
                                     text=True, check=False).stdout.strip() if postgres.bin_dir else "?"
            print(f"PostgreSQL: {version}, on 127.0.0.1:{postgres.port} (fsync off: a throwaway one)")
        for number in range(args.repeat if loads else 0):
            order = configs if number % 2 == 0 else configs[::-1]
            for load in loads:
                for config in order:
                    print(f"\n=== round {number + 1} of {args.repeat}: {load}, {config} ({DESCRIPTIONS[config]})")
                    figures = _measure(config, load, args, postgres)
                    figures["round"] = number + 1
                    measurements.append(figures)
        for number in range(args.failover_repeat):
            for tables in args.failover_tables:
                print(f"\n=== failover {number + 1} of {args.failover_repeat}: {tables} tables on "
                      f"{args.failover_processes} processes, person pace")
                figures = _measure(f"pg-{args.failover_processes}", "failover", args, postgres,
                                   processes=args.failover_processes, tables=tables, think_ms=args.think_ms,
                                   seconds=args.failover_seconds, failover=True)
                figures["round"] = number + 1
                print(f"failover: {json.dumps(figures.get('during'))}")
                failovers.append(figures)
    finally:
        if postgres is not None:
            postgres.stop()
    uptime_after = Path("/proc/loadavg").read_text().split()[:3]
    summary = _summary(measurements, configs, loads)
    failover = _failover_summary(failovers)
    _print_summary(summary, failover)
    print(f"load average before {' '.join(uptime_before)}, after {' '.join(uptime_after)}; "
          f"{(time.monotonic() - run_started) / 60:.1f} minutes")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({
            "cores": os.cpu_count(), "load_average_before": uptime_before, "load_average_after": uptime_after,
            "pythonpath": os.environ.get("PYTHONPATH", ""), "arguments": vars(args),
            "summary": summary, "failover": failover, "measurements": measurements, "failovers": failovers,
        }, indent=2) + "\n")
    # as server_load.py: a failed status when anything went wrong (the figures are printed all the same)
    failed = any(m["total_errors"] or m.get("stopped") for m in measurements + failovers) or any(
        row["unanswered"] or row["repeats"] < args.failover_repeat for row in failover.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
