"""Under `dagster dev`: seconds from saving a new file in the documents folder to `right-rag query` citing it.

``.venv/bin/python bench/save_to_answer.py [--corpus DIR] [--repeat 3] [--timeout 240] [--keep]``: the sample
project (its spec/, right_rag.toml, questions and, unless --corpus, documents) is indexed with `right-rag index`,
then `dagster dev` starts on a free port with DAGSTER_HOME in the project. Once the webserver answers, each
repetition waits until no run is queued or running, saves a Debian copyright file holding a unique word (at
any point of the sensor's interval, as a user would) and polls `right-rag query ... --json` until a citation
names it. Dagster's GraphQL API then tells where the seconds went (sensor, queue, run). Target (issue 11):
< 10 s. The dagster dev process group is always killed at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import kill_group, measure  # noqa: E402
from _projects import REPO, RIGHT_RAG, sample  # noqa: E402

DAGSTER = Path(sys.executable).parent / "dagster"
SENSOR_TICK = "Checking for new runs for sensor: documents_folder_sensor"
RUNS_QUERY = """{ runsOrError(limit: 20) { __typename ... on Runs { results { runId jobName status
  creationTime startTime endTime } } } }"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FORMATS = ("copyright", "markdown")


def new_document(documents: Path, number: int, rng: random.Random, form: str = "copyright") -> tuple[Path, str]:
    """A file holding a word found nowhere else: a machine-readable Debian copyright file (the sample spec parses
    it), or a Markdown notice (read through Docling; the generic parser takes it)."""
    word = "zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(10))
    if form == "markdown":
        path = documents / f"saved-{number}-{word}.md"
        path.write_text(f"# The {word} notice\n\nCopyright 2026 The {word} authors. Licensed under the MIT License; "
                        f"the unique word is {word}.\n\n## Terms\n\nPermission is hereby granted, free of charge, to "
                        "any person obtaining a copy of this software.\n", encoding="utf-8")
        return path, word
    path = documents / f"saved-{number}-{word}.copyright"
    path.write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        f"Upstream-Name: {word}\n\n"
        f"Files: *\nCopyright: 2026 The {word} authors\nLicense: MIT\n"
        f"Comment: Saved by bench/save_to_answer.py; the unique word is {word}.\n\n"
        "License: MIT\n Permission is hereby granted, free of charge, to any person obtaining a copy of this\n"
        " software, to deal in the Software without restriction.\n", encoding="utf-8")
    return path, word


def cites(project: Path, word: str, document: str, env: dict[str, str]) -> bool:
    """Whether ``right-rag query WORD --json`` answers with a citation of ``document``."""
    done = subprocess.run([str(RIGHT_RAG), "--project", str(project), "query", f"Who holds the copyright of {word}?",
                           "--json"], capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        return False
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        return False
    return any(c.get("document") == document for c in answer.get("citations", []))


def wait_for(predicate, timeout: float, every: float = 0.5) -> float | None:  # noqa: ANN001
    """Poll ``predicate`` until true; the seconds it took, or None after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(every)
    return None


def webserver_up(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def runs(port: int) -> list[dict[str, Any]]:
    """The last runs as Dagster's GraphQL API reports them (times in epoch seconds); [] if it does not answer."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=json.dumps(
        {"query": RUNS_QUERY}).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            payload = json.loads(response.read())
    except (urllib.error.URLError, OSError, json.JSONDecodeError):
        return []
    found = (payload.get("data") or {}).get("runsOrError") or {}
    return found.get("results", [])


def breakdown(found: list[dict[str, Any]], saved_at: float, answered_at: float) -> dict[str, Any] | None:
    """Where one save's seconds went, from the first run created after it (epoch seconds): waiting for the
    sensor, queued, running until the answer (the search index may be ready before the run ends), the run."""
    after = sorted((r for r in found if (r.get("creationTime") or 0) >= saved_at - 1), key=lambda r: r["creationTime"])
    if not after:
        return None
    run = after[0]
    start, end = run.get("startTime"), run.get("endTime")
    return {"sensor_wait": run["creationTime"] - saved_at, "queued": (start or answered_at) - run["creationTime"],
            "run_until_answer": answered_at - start if start else None, "run": end - start if start and end else None,
            "runs_before_answer": sum(1 for r in after if r["creationTime"] <= answered_at), "job": run.get("jobName"),
            "status": run.get("status")}


def settle(port: int, timeout: float) -> list[dict[str, Any]]:
    """The runs once none is queued or running (or after ``timeout``): complete times for the breakdown, and
    no run interrupted by stopping dagster dev."""
    active = {"QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING"}
    wait_for(lambda: not any(r.get("status") in active for r in runs(port)), timeout, every=1.0)
    return runs(port)


def measure_latency(work: Path, corpus: Path, repeat: int, timeout: float, seed: int = 11,
                    form: str = "copyright") -> dict[str, Any]:
    """Make the project, index it, run ``dagster dev`` and time ``repeat`` saved files; never leaves it running."""
    project = sample("latency", "dagster dev", work / "latency", corpus, questions=True, extra_env={})
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"label": f"dagster dev, sample project, {sum(1 for _ in project.documents.iterdir())} "
                                       f"documents, {form} files saved", "seconds": [], "breakdown": []}
    index = measure(project.command, project.root, logs / "latency-index.log", project.env, timeout=timeout * 5)
    result["index"] = index.to_dict()
    if not index.ok:
        result["error"] = f"right-rag index failed (exit {index.returncode}): {index.last_line}"
        return result
    port = free_port()
    env = {**project.env, "DAGSTER_HOME": str(project.root / ".dagster")}
    log = (logs / "dagster-dev.log").open("w", encoding="utf-8")
    server = subprocess.Popen([str(DAGSTER), "dev", "-h", "127.0.0.1", "-p", str(port)], cwd=project.root, env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        up = wait_for(lambda: server.poll() is None and webserver_up(port), timeout)
        result["webserver_seconds"] = up
        if up is None:
            result["error"] = f"the webserver did not answer within {timeout:.0f} s (log: {log.name})"
            return result
        ticked = wait_for(lambda: SENSOR_TICK in (logs / "dagster-dev.log").read_text(errors="replace"), 90)
        result["first_sensor_tick_seconds"] = ticked
        rng = random.Random(seed)
        saves = []
        for number in range(repeat):
            settle(port, timeout)  # each save starts with no run queued or running: the saves do not interfere
            path, word = new_document(project.documents, number, rng, form)
            saved_at_wall, saved_at = time.time(), time.monotonic()
            found = wait_for(lambda: cites(project.root, word, path.name, project.env), timeout, every=0.2)
            if found is None:
                result["error"] = f"no answer cited {path.name} within {timeout:.0f} s"
                break
            seconds = time.monotonic() - saved_at
            result["seconds"].append(round(seconds, 2))
            saves.append((saved_at_wall, saved_at_wall + seconds))
        found_runs = settle(port, timeout)
        result["runs"] = found_runs
        result["breakdown"] = [breakdown(found_runs, saved, answered) for saved, answered in saves]
    finally:
        kill_group(server.pid)
        server.wait()
        log.close()
    if result["seconds"]:
        result["median_seconds"] = statistics.median(result["seconds"])
    return result


def describe(result: dict[str, Any]) -> str:
    """The lines printed under the tables: each save, where its seconds went, the start-up times."""
    lines = [f"save -> answer ({result['label']}): " + (", ".join(f"{s:.1f} s" for s in result["seconds"]) or "-")
             + (f"; {result['error']}" if result.get("error") else "")]
    for number, part in enumerate(result.get("breakdown", [])):
        if part:
            lines.append(f"  save {number}: sensor wait {part['sensor_wait']:.1f} s, queued {part['queued']:.1f} s, "
                         f"run until the answer {_maybe(part['run_until_answer'])} "
                         f"(the whole run {_maybe(part['run'])},"
                         f" {part['job']}, {part['status']}); {part['runs_before_answer']} run(s) created before the "
                         "answer")
    if result.get("webserver_seconds") is not None:
        lines.append(f"  dagster dev: the webserver answered after {result['webserver_seconds']:.1f} s, the sensor's "
                     f"first tick was logged {result.get('first_sensor_tick_seconds') or 0:.1f} s after that; "
                     f"`right-rag index` of the project before it: {result['index']['wall_seconds']:.1f} s")
    return "\n".join(lines)


def _maybe(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.1f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO / "data" / "documents", help="the project's documents")
    parser.add_argument("--repeat", type=int, default=3, help="files saved one after the other (median reported)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds to wait for each step")
    parser.add_argument("--format", choices=FORMATS, default="copyright",
                        help="the kind of file saved (markdown: converted by Docling in the run's parsing worker)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the project and logs afterwards")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally that stops dagster dev
    work = Path(tempfile.mkdtemp(prefix="right-rag-latency-"))
    result = measure_latency(work, args.corpus.resolve(), args.repeat, args.timeout, form=args.format)
    print(describe(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    if args.keep or result.get("error"):
        print(f"project and logs in {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if result.get("seconds") else 1


if __name__ == "__main__":
    raise SystemExit(main())
