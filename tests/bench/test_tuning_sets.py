"""bench/tuning_sets.py without indexing: which sets it runs, the projects it makes, and the totals it prints."""

from __future__ import annotations

import tomllib

import tuning_sets
from tuning_sets import FIXTURES, REPO, SetResult, prepare, table

from tests.retrieval import test_heldout_floors


def test_the_default_sets_are_dev_and_every_held_out_set_with_a_floor():
    names = tuning_sets.tuning_sets()
    numbers = sorted(int(p.name.removeprefix("heldout") or 1) for p in FIXTURES.glob("heldout*")
                     if (p / "questions.jsonl").exists())
    floors = {f"heldout{n}" for n in numbers} & set(test_heldout_floors.SETS)
    assert names[0] == "dev" and "heldout" in names and "heldout2" in names
    assert f"heldout{numbers[-1]}" not in names  # still held out: its per-set row must not be read
    assert set(names) == {"dev", "heldout", *floors}


def test_a_set_written_before_the_last_one_got_its_floor_stays_out(tmp_path, monkeypatch):
    """While a new set is being written, the last unseen one has no floor yet: neither is a tuning set."""
    newest = max(int(name.removeprefix("heldout")) for name in test_heldout_floors.SETS)
    floors = tmp_path / "floors.py"
    floors.write_text(tuning_sets.FLOORS.read_text(encoding="utf-8").replace(f'    "heldout{newest}": (', "    # (", 1),
                      encoding="utf-8")
    monkeypatch.setattr(tuning_sets, "FLOORS", floors)
    names = tuning_sets.tuning_sets()
    assert f"heldout{newest}" not in names and f"heldout{newest - 1}" in names


def test_a_set_is_copied_with_its_links_dereferenced_and_this_checkouts_spec(tmp_path):
    project = prepare("heldout7", tmp_path)
    settings = tomllib.loads((project / "right_rag.toml").read_text(encoding="utf-8"))["right-rag"]
    assert settings["spec_dir"] == str(REPO / "spec")
    documents = list((project / "documents").iterdir())
    assert len(documents) == len(list((FIXTURES / "heldout7" / "documents").iterdir()))
    assert not any(path.is_symlink() for path in documents)
    dev = prepare("dev", tmp_path)
    settings = tomllib.loads((dev / "right_rag.toml").read_text(encoding="utf-8"))["right-rag"]
    assert (settings["documents_dir"], settings["questions_file"]) == ("documents", "questions.jsonl")
    assert (dev / "questions.jsonl").read_bytes() == (REPO / "eval" / "questions.jsonl").read_bytes()


def test_the_totals_count_questions_and_weigh_mrr_by_them():
    metrics = [("a", {"retriever": "bm25", "scored": 10, "hit@1": 0.5, "hit@5": 0.9, "mrr@10": 0.6,
                      "answer_quotes_evidence": 0.4, "context_chars@5": 1000.0}),
               ("b", {"retriever": "bm25", "scored": 30, "hit@1": 0.8, "hit@5": 1.0, "mrr@10": 0.9,
                      "answer_quotes_evidence": None, "context_chars@5": 2000.0})]
    lines = table({name: [SetResult.of(name, m)] for name, m in metrics}).splitlines()
    assert lines[2] == "| a | bm25 | 10 | 5 | 9 | 0.600 | 1,000 | 4 |"
    assert lines[-1] == "| **2 sets** | bm25 | 40 | **29** | **39** | **0.825** | 1,750 | **4** |"
