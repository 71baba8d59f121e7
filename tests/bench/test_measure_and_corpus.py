"""bench/_measure.py on real subprocesses (peak memory, error line, timeout) and bench/_corpus.py's copies."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import _corpus
import _measure


def test_measure_reports_peak_memory_and_last_line_of_a_real_subprocess(tmp_path):
    code = "b = bytearray(80 * 2**20); b[::4096] = b'x' * len(b[::4096]); print('allocated')"
    result = _measure.measure([sys.executable, "-c", code], tmp_path, tmp_path / "log.txt")

    assert result.ok and result.last_line == "allocated"
    assert result.peak_rss_mb >= 80
    assert result.wall_seconds > 0 and result.cpu_seconds > 0


def test_the_sampled_tree_holds_children_started_from_other_threads_and_grandchildren(tmp_path):
    code = ("import subprocess, sys, threading, time\n"
            "sleeper = [sys.executable, '-c', 'import subprocess, sys, time; "
            "subprocess.Popen([sys.executable, \"-c\", \"import time; time.sleep(30)\"]); time.sleep(30)']\n"
            "threading.Thread(target=subprocess.Popen, args=(sleeper,)).start()\n"
            "print('started', flush=True); time.sleep(30)\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 20
        while len(_measure._tree(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        tree = _measure._tree(process.pid)
    finally:
        for pid in reversed(_measure._tree(process.pid)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()

    assert tree[0] == process.pid and len(tree) == 3


def test_a_failure_reports_the_last_stderr_line_naming_the_error_not_the_hints_after_it(tmp_path):
    code = ("import sys; print('progress'); sys.stderr.write("
            "'right-rag: error: out of memory\\nPossible solutions:\\n* Increase the memory limit\\n'); sys.exit(2)")
    result = _measure.measure([sys.executable, "-c", code], tmp_path, tmp_path / "log.txt")

    assert result.returncode == 2 and not result.ok
    assert result.last_line == "right-rag: error: out of memory"


def test_a_run_past_its_timeout_is_killed_with_its_children(tmp_path):
    code = ("import subprocess, sys, time; "
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)")
    result = _measure.measure([sys.executable, "-c", code], tmp_path, tmp_path / "log.txt", timeout=1.0)

    assert result.timed_out and not result.ok and result.wall_seconds < 30
    assert "timeout" in result.last_line


def test_the_scaled_corpus_is_deterministic_distinct_and_keeps_each_block(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    (source / "a.copyright").write_text("Format: x\nUpstream-Name: a\n\nFiles: *\nLicense: MIT\n", encoding="utf-8")
    (source / "b.txt").write_text("one paragraph\n\n\nanother\n", encoding="utf-8")

    scaled = _corpus.scaled_corpus(source, 3, cache=tmp_path / "cache")
    again = _corpus.scaled_corpus(source, 3, cache=tmp_path / "cache")
    names = sorted(p.name for p in _corpus.corpus_files(scaled))

    assert again == scaled and len(names) == 6 and len(set(names)) == 6
    assert "a.copy2.copyright" in names and "a.copyright" in names
    assert (scaled / "a.copyright").read_text() == (source / "a.copyright").read_text()
    assert (scaled / "a.copy1.copyright").read_text() == \
        "Format: x\nUpstream-Name: a [copy 1]\n\nFiles: *\nLicense: MIT [copy 1]\n"
    assert (scaled / "b.copy2.txt").read_text() == "one paragraph [copy 2]\n\n\nanother [copy 2]\n"


def test_edits_change_the_share_of_files_asked_for(tmp_path):
    for i in range(20):
        (tmp_path / f"{i:02d}.txt").write_text("x\n", encoding="utf-8")
    edited = _corpus.edit_share(tmp_path, 0.1, "test")

    assert [p.name for p in edited] == ["00.txt", "10.txt"]
    assert "Edited by" in (tmp_path / "10.txt").read_text() and _corpus.middle_file(edited).name == "10.txt"
    assert _corpus.text_bytes(tmp_path) > 40


def test_machine_names_the_cpu_model_and_count(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu\n\n"
                       "processor\t: 1\nmodel name\t: AMD EPYC\n", encoding="utf-8")
    assert _measure.machine(cpuinfo) == f"AMD EPYC, {os.cpu_count()} CPUs"
    assert _measure.machine(tmp_path / "missing").endswith(f", {os.cpu_count()} CPUs")
    if os.path.exists("/proc/cpuinfo"):  # this machine's own model, as the scale-out demo prints it
        models = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                  if line.startswith("model name")]
        assert _measure.machine().startswith(models[0] if models else "")
