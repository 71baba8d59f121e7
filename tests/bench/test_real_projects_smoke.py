"""bench/real_projects.py end to end on three tiny documents (store and loop parts: two index runs, ~30 s), so
the command does not rot; and save_to_answer's breakdown on made-up runs. The full benchmark is not in the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import save_to_answer

BENCH = Path(__file__).resolve().parents[2] / "bench"
STANZAS = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: {name}\n\n" \
          "Files: *\nCopyright: 2024 The {name} authors\nLicense: MIT\n\nLicense: MIT\n Permission is granted.\n"


def test_the_command_prints_one_table_and_writes_every_figure(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (corpus / f"{name}.copyright").write_text(STANZAS.format(name=name), encoding="utf-8")
    report = tmp_path / "report.json"

    done = subprocess.run([sys.executable, str(BENCH / "real_projects.py"), "--corpus", str(corpus), "--only",
                           "store,loop", "--repeat", "1", "--workdir", str(tmp_path / "work"), "--json", str(report)],
                          capture_output=True, text=True, timeout=300)

    assert done.returncode == 0, done.stderr[-2000:]
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0].startswith("| workload") and len(table) == 4  # header, rule, full index, 10% changed
    assert "full index" in table[2] and "x text" in table[2] and "10% of files changed" in table[3]
    figures = json.loads(report.read_text())
    assert figures["runs"]["sample-q"]["full"][0]["ok"], figures["runs"]["sample-q"]["full"][0]["last_line"]
    assert figures["projects"]["sample-q"]["store_bytes"]["full"] > 0
    assert figures["loop"]["sample"]["documents"] == 3 and figures["loop"]["same-plugin"]["chunks"] > 0
    assert not (tmp_path / "work").exists()  # removed without --keep


def test_the_latency_breakdown_reads_the_first_run_created_after_the_save():
    runs = [{"creationTime": 90.0, "startTime": 91.0, "endTime": 95.0, "jobName": "old", "status": "SUCCESS"},
            {"creationTime": 130.0, "startTime": 138.0, "endTime": 155.0, "jobName": "index_documents",
             "status": "SUCCESS"}]
    part = save_to_answer.breakdown(runs, saved_at=100.0, answered_at=146.0)

    assert part["sensor_wait"] == 30.0 and part["queued"] == 8.0
    assert part["run_until_answer"] == 8.0 and part["run"] == 17.0 and part["job"] == "index_documents"
    assert save_to_answer.breakdown(runs[:1], saved_at=100.0, answered_at=146.0) is None
