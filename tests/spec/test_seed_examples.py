"""The seed's example parsers (Thai organic act, Thai order, English act) on small fixtures written for them."""

from __future__ import annotations

import pytest

from right_rag_dagster.core.routing import route_document

from .conftest import FIXTURES
from .invariants import check_tree, find_unit


def test_thai_organic_act(parse) -> None:
    document, units = parse("thai-organic-act", FIXTURES / "thai_organic_act.txt")
    check_tree(document, units)
    assert [u.key for u in units] == ["preamble", "๑", "๒", "๓", "หมวด ๑", "หมวด ๒", "บทเฉพาะกาล"]
    definitions = find_unit(units, "๓").subunits
    assert [u.attributes["defined_term"] for u in definitions] == ["เจ้าหน้าที่ของรัฐ", "ทุจริตต่อหน้าที่"]
    powers = find_unit(units, "หมวด ๑", "๔")
    assert [u.key for u in powers.subunits] == ["๑", "๒"] and powers.attributes["numbering_arabic"] == "4"
    assert find_unit(units, "หมวด ๒", "๖").attributes["role"] == "penalty"
    assert find_unit(units, "หมวด ๑", "๕").attributes["role"] == "prohibition"
    assert find_unit(units, "บทเฉพาะกาล").attributes["role"] == "transitory_provision"


def test_thai_order(parse) -> None:
    document, units = parse("thai-order", FIXTURES / "thai_order.txt")
    check_tree(document, units)
    assert [u.topic for u in units] == ["Preamble", "ข้อ ๑", "ข้อ ๒", "ข้อ ๓"]
    assert [u.key for u in find_unit(units, "๑").subunits] == ["๑", "๒"]
    assert find_unit(units, "๒").attributes["role"] == "prohibition"


def test_english_act(parse) -> None:
    document, units = parse("english-act", FIXTURES / "english_act.txt")
    check_tree(document, units)
    assert [u.key for u in units] == ["preamble", "Part 1", "Part 2"]
    interpretation = find_unit(units, "Part 1", "2")
    assert [u.attributes["defined_term"] for u in interpretation.subunits] == ["controller", "personal data"]
    assert find_unit(units, "Part 2", "3", "2").attributes["role"] == "prohibition"
    assert find_unit(units, "Part 2", "4").attributes["role"] == "penalty"
    assert find_unit(units, "Part 1", "1", "2").attributes["role"] == "commencement"


@pytest.mark.parametrize(("name", "parser"), [("thai_organic_act.txt", "thai-organic-act"),
                                               ("thai_order.txt", "thai-order"), ("english_act.txt", "english-act")])
def test_each_fixture_is_owned_by_exactly_its_parser(spec_registry, load_document, name: str, parser: str) -> None:
    route = route_document(load_document(FIXTURES / name), spec_registry.resolve("unit_parsers", None))
    assert route.rejection is None and route.parser.parser_name == parser
