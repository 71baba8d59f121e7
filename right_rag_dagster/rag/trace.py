"""Flow graphs and traces: every step a flow takes is recorded, and must be an arrow of its declared graph.

A flow declares ``FLOW = {"nodes": [{"id", "label", "kind"}], "edges": [[from, to], ...]}``; its first node
is the entry and nodes of kind ``output`` end a run. ``Trace.step`` refuses a step the graph has no arrow
for, so a flow can never silently drift from the diagram users are shown.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..errors import RightRagError


class FlowError(RightRagError):
    """A flow took a step its FLOW graph does not have (a bug in the flow)."""


@dataclass(frozen=True)
class FlowGraph:
    """The nodes and arrows a flow may take, checked for consistency when built."""

    name: str
    nodes: tuple[dict[str, str], ...]
    edges: tuple[tuple[str, str], ...]

    @classmethod
    def from_dict(cls, name: str, flow: dict[str, Any]) -> FlowGraph:
        graph = cls(name, tuple(flow["nodes"]), tuple((a, b) for a, b in flow["edges"]))
        ids = graph.node_ids
        unknown = sorted({n for edge in graph.edges for n in edge} - set(ids))
        if unknown or not ids:
            raise FlowError(f"flow {name!r}: edges name unknown nodes {unknown}" if unknown
                            else f"flow {name!r} has no nodes")
        return graph

    @property
    def node_ids(self) -> list[str]:
        return [node["id"] for node in self.nodes]

    @property
    def entry(self) -> str:
        return self.nodes[0]["id"]

    @property
    def outputs(self) -> set[str]:
        return {node["id"] for node in self.nodes if node.get("kind") == "output"}

    def allows(self, previous: str | None, step: str) -> bool:
        return step == self.entry if previous is None else (previous, step) in self.edges

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "nodes": list(self.nodes), "edges": [list(e) for e in self.edges]}


@dataclass
class TraceStep:
    """One recorded step: what went in, what came out, the scores it saw and how long it took."""

    step: str
    inputs: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)
    scores: list[float] = field(default_factory=list)
    started_ms: float = 0.0
    seconds: float = 0.0

    def output(self, scores: list[float] | None = None, **outputs: Any) -> None:
        self.outputs.update(outputs)
        if scores is not None:
            self.scores = [round(float(s), 6) for s in scores]

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "inputs": self.inputs, "outputs": self.outputs, "scores": self.scores,
                "started_ms": round(self.started_ms, 3), "seconds": round(self.seconds, 6)}


class Trace:
    """The steps of one run of a flow, in order, checked against its graph as they happen."""

    def __init__(self, graph: FlowGraph) -> None:
        self.graph = graph
        self.steps: list[TraceStep] = []
        self._origin = time.perf_counter()

    @contextmanager
    def step(self, name: str, **inputs: Any) -> Iterator[TraceStep]:
        previous = self.steps[-1].step if self.steps else None
        if not self.graph.allows(previous, name):
            arrow = f"{previous} -> {name}" if previous else f"start at {name}"
            raise FlowError(f"flow {self.graph.name!r} took a step its graph does not have: {arrow}")
        started = time.perf_counter()
        record = TraceStep(name, inputs, started_ms=(started - self._origin) * 1000)
        self.steps.append(record)
        try:
            yield record
        finally:
            record.seconds = time.perf_counter() - started

    def finished(self) -> bool:
        """True when the run ended on an output node of the graph."""
        return bool(self.steps) and self.steps[-1].step in self.graph.outputs

    def to_json(self) -> dict[str, Any]:
        return {"flow": self.graph.to_json(), "steps": [s.to_json() for s in self.steps]}
