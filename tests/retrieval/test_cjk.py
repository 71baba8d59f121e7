"""Chinese and Japanese text is segmented into words, so BM25 finds a word inside a run without spaces."""

from __future__ import annotations

import pytest

from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.formats import BM25_FORMAT
from right_rag_dagster.retrieval.tokenize import TOKENIZER_VERSION, tokenize
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import index_documents

# Article 1 and 4 of the PRC Personal Information Protection Law and of Japan's Act on the Protection of Personal
# Information (abridged), plus an unrelated paragraph in each language so a word must pick the right passage.
CHINESE = """中华人民共和国个人信息保护法

第一条 为了保护个人信息权益，规范个人信息处理活动，促进个人信息合理利用，根据宪法，制定本法。

第四条 个人信息是以电子或者其他方式记录的与已识别或者可识别的自然人有关的各种信息，不包括匿名化处理后的信息。

第五十条 本法自二〇二一年十一月一日起施行。
"""
JAPANESE = """個人情報の保護に関する法律

第一条 この法律は、デジタル社会の進展に伴い個人情報の利用が著しく拡大していることに鑑み、個人情報の適正な取扱いに関し、基本理念を定める。

第二条 この法律において「個人情報」とは、生存する個人に関する情報であって、当該情報に含まれる氏名、生年月日その他の記述等により特定の個人を識別することができるものをいう。

附則 この法律は、公布の日から起算して二年を超えない範囲内において政令で定める日から施行する。
"""


@pytest.fixture(scope="module")
def cjk_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    documents = tmp_path_factory.mktemp("cjk")
    (documents / "pipl-zh.txt").write_text(CHINESE, encoding="utf-8")
    (documents / "appi-ja.txt").write_text(JAPANESE, encoding="utf-8")
    store = Store(tmp_path_factory.mktemp("store") / "right_rag.duckdb")
    index_documents(documents, store)
    build_search_index(store, "default")
    return store


def test_chinese_runs_are_split_into_words_and_their_compounds() -> None:
    tokens = tokenize("规范个人信息处理活动")
    assert {"个人", "信息", "处理", "信息处理", "活动"} <= set(tokens)
    assert "规范个人信息处理活动" not in tokens


def test_japanese_runs_are_split_into_dictionary_forms_without_particles() -> None:
    tokens = tokenize("基本理念を定める。個人情報の適正な取扱い")
    assert {"基本", "理念", "定める", "個人", "情報", "取扱い"} <= set(tokens)
    assert "を" not in tokens and "の" not in tokens  # particles are dropped like stopwords


def test_a_kanji_question_meets_the_words_of_a_japanese_passage() -> None:
    passage = set(tokenize("氏名、生年月日その他の記述等により"))
    assert "生年月日" in passage and "生年月日" in tokenize("生年月日")


def test_the_bm25_format_names_the_tokenizer_so_old_indexes_are_rebuilt() -> None:
    assert TOKENIZER_VERSION != "rr-tok-1" and BM25_FORMAT.startswith(TOKENIZER_VERSION)


@pytest.mark.parametrize("question, document, expected", [
    ("匿名化", "pipl-zh.txt", "匿名化处理"),       # a word in the middle of a Chinese sentence
    ("什么是自然人的信息", "pipl-zh.txt", "自然人"),
    ("生年月日", "appi-ja.txt", "生年月日"),          # a word in the middle of a Japanese sentence
    ("デジタル社会とは", "appi-ja.txt", "デジタル社会"),
])
def test_a_chinese_or_japanese_word_finds_its_passage(cjk_store: Store, question: str, document: str,
                                                      expected: str) -> None:
    hits = search(cjk_store, question, chunker="default", k=3)
    assert hits and hits[0].document_id == document and expected in hits[0].text
