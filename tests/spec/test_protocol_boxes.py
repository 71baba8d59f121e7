"""X protocol specifications as text describe each request and event in a box (``┌───``, its name and fields, ``▶``
and the reply, ``└───``) followed by its description: each box is a unit of its section, named by the request."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage

from .conftest import REPO_ROOT
from .invariants import check_tree, find_unit

DRI2 = REPO_ROOT / "tests" / "fixtures" / "heldout21" / "documents" / "dri2proto.txt"


def test_each_request_and_event_box_is_a_unit_with_its_description(parse) -> None:
    document, units = parse("text-manual", DRI2)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    requests = find_unit(units, "8")
    assert [u.topic for u in requests.subunits][:3] == ["DRI2Connect", "DRI2Authenticate", "DRI2GetBuffers"]
    assert len(requests.subunits) == 11 and {u.attributes["unit_type"] for u in requests.subunits} == {"request"}
    connect = requests.subunits[0]
    assert connect.raw_text.startswith("┌───\n    DRI2Connect") and connect.attributes["defined_term"] == "DRI2Connect"
    assert "'driver' and 'device' will be empty strings" in " ".join(connect.raw_text.split())  # its description
    events = find_unit(units, "9")
    assert [(u.topic, u.attributes["unit_type"]) for u in events.subunits] == [
        ("DRI2BufferSwapComplete", "event"), ("DRI2InvalidateBuffers", "event")]


def test_a_box_without_a_name_stays_with_the_named_box_before_it(spec_registry) -> None:
    """Text between a parent's children is in no chunk (a parent's chunks are its text before the first child), so
    a box of bare fields after a request belongs to that request's unit."""
    from right_rag_dagster.core.model import Document
    from right_rag_dagster.core.units import build_units

    text = ("Overview\n========\n\nA protocol.\n\nTypes\n=====\n\nNone.\n\nRequests\n========\n\n"
            "┌───\n    FooQuery\n\twindow: WINDOW\n└───\n\n\tAsks for foo.\n\n"
            "┌───\n\tcount: CARD32\n└───\n\n\tThe count above.\n\n"
            "┌───\n    BarQuery\n└───\n\n\tAsks for bar.\n")
    document = Document("proto.txt", text, metadata={"format": "text"})
    parser = spec_registry.create("unit_parsers", "text-manual")
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    requests = next(u for u in units if u.topic == "Requests")
    foo, bar = requests.subunits
    assert (foo.topic, bar.topic) == ("FooQuery", "BarQuery")
    assert foo.raw_text.endswith("The count above.") and bar.raw_text.endswith("Asks for bar.")
