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
