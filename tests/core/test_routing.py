"""The routing rule: exactly one unit parser owns a document; none, several or an error is a visible rejection."""

from __future__ import annotations

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.routing import (
    AMBIGUOUS,
    FAILED,
    UNSUPPORTED,
    route_document,
)


class Accepts(UnitParser):
    """Accepts documents whose text contains ``marker``; raises when the marker is ``!``."""

    def __init__(self, name: str, marker: str) -> None:
        self.name, self.marker = name, marker

    @property
    def parser_name(self) -> str:
        return self.name

    def parser_can_handle_document(self, document: Document) -> bool:
        if self.marker == "!":
            raise KeyError("no title line")
        return self.marker in document.text

    def parse_document(self, document: Document):
        yield ParsedUnit(topic="all", fulltext=document.text)


DOC = Document(id="orders/o1.txt", text="คำสั่ง ข้อ 1 Section 1")
ACT, ORDER, MANUAL = Accepts("english-act", "Section"), Accepts("thai-order", "คำสั่ง"), Accepts("manual", "Chapter")


def test_exactly_one_acceptance_routes_to_that_parser():
    route = route_document(DOC, [MANUAL, ORDER])
    assert route.parser is ORDER and route.rejection is None


def test_no_acceptance_is_unsupported_listing_the_parsers_tried():
    route = route_document(DOC, [MANUAL, Accepts("policy", "Policy")])
    assert route.parser is None
    rejection = route.rejection
    assert (rejection.document_id, rejection.status) == ("orders/o1.txt", UNSUPPORTED)
    assert rejection.parser_names == ("manual", "policy")
    assert "no unit parser accepts" in rejection.reason and "manual, policy" in rejection.reason


def test_no_parsers_at_all_is_unsupported_too():
    rejection = route_document(DOC, []).rejection
    assert rejection.status == UNSUPPORTED and "none registered" in rejection.reason


def test_several_acceptances_are_ambiguous_naming_only_the_accepting_parsers():
    route = route_document(DOC, [ACT, MANUAL, ORDER])
    assert route.parser is None
    rejection = route.rejection
    assert rejection.status == AMBIGUOUS
    assert rejection.parser_names == ("english-act", "thai-order")
    assert "2 unit parsers accept" in rejection.reason and "english-act, thai-order" in rejection.reason


def test_an_exception_in_acceptance_fails_naming_the_parser_and_the_error():
    route = route_document(DOC, [ORDER, Accepts("broken", "!")])
    assert route.parser is None
    rejection = route.rejection
    assert (rejection.status, rejection.parser_names) == (FAILED, ("broken",))
    assert rejection.reason == "broken.parser_can_handle_document raised KeyError: 'no title line'"


GENERIC = Accepts("generic", "")  # accepts every document, as the generic fallback does


def test_the_fallback_takes_a_document_no_parser_accepts():
    route = route_document(DOC, [MANUAL], fallback=GENERIC)
    assert route.parser is GENERIC and route.fallback and route.rejection is None


def test_the_fallback_is_not_asked_when_one_parser_accepts():
    route = route_document(DOC, [MANUAL, ORDER], fallback=Accepts("broken", "!"))
    assert route.parser is ORDER and not route.fallback


def test_the_fallback_never_resolves_an_ambiguity():
    route = route_document(DOC, [ACT, ORDER], fallback=GENERIC)
    assert route.parser is None and route.rejection.status == AMBIGUOUS and not route.fallback


def test_a_declining_fallback_leaves_the_document_unsupported_and_says_so():
    rejection = route_document(DOC, [MANUAL], fallback=Accepts("picky", "Chapter")).rejection
    assert rejection.status == UNSUPPORTED and "the fallback 'picky' declined it too" in rejection.reason


def test_an_exception_in_the_fallback_fails_naming_it():
    rejection = route_document(DOC, [MANUAL], fallback=Accepts("broken", "!")).rejection
    assert (rejection.status, rejection.parser_names) == (FAILED, ("broken",))
