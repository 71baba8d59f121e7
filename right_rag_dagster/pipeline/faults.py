"""The run's circuit breaker: a plugin that fails on, or shares a claim to, too many documents stops the run.

One over-broad ``parser_can_handle_document`` makes every document ambiguous; one bad edit makes a parser raise
on all of its documents. Each such document would keep its last good version anyway, but a run that goes on
reports hundreds of rejections for one mistake. So the runner counts, per plugin, the documents it spoiled and
checks before each write: past ``plugin_fault_share`` of the documents routed so far (and at least
``plugin_fault_minimum``), the run stops with an error naming the plugin and its file, before that write.
"""

from __future__ import annotations

from collections import Counter

from ..errors import PluginFaultError
from ..limits import Limits
from ..project import Project
from .work import DocumentOutcome


class FaultCounter:
    """Documents routed so far, and per plugin the documents it raised on or was one of several to accept."""

    def __init__(self, project: Project, limits: Limits) -> None:
        self.project = project
        self.limits = limits
        self.routed = 0
        self.raised: Counter[str] = Counter()
        self.shared: Counter[str] = Counter()

    def add(self, outcome: DocumentOutcome) -> None:
        failure = outcome.failure
        if outcome.raw is None or (failure is not None and failure.stage in ("load", "hold", "size")):
            return  # never reached the parsers
        self.routed += 1
        self.raised.update(set(outcome.raised))
        if len(outcome.accepted) > 1:
            self.shared.update(outcome.accepted)
        if failure is not None and failure.stage == "limit":
            self.raised.update(failure.rejection.parser_names)

    def check(self) -> None:
        """Raise ``PluginFaultError`` when one plugin spoiled more than its share of the documents routed."""
        if not self.routed or self.limits.plugin_fault_share >= 1:
            return
        for counter, what in ((self.raised, "failed on"), (self.shared, "accepted, together with another parser,")):
            for name, count in counter.most_common():
                if count >= max(1, self.limits.plugin_fault_minimum) and count > self.limits.plugin_fault_share * self.routed:
                    raise PluginFaultError(self._message(name, count, what))

    def _message(self, name: str, count: int, what: str) -> str:
        where = ""
        for kind in ("unit_parsers", "chunk_parsers"):
            info = self.project.registry.plugins.get(kind, {}).get(name)
            if info is not None:
                where = f" ({info.source_file})"
                break
        advice = ("narrow its parser_can_handle_document" if "accepted" in what
                  else "fix it (the error of each document is in `right-rag report`)")
        return (f"plugin {name!r}{where} {what} {count} of the {self.routed} documents routed in this run; the run "
                f"stopped before writing them, and every document keeps its last good version. {advice[0].upper()}"
                f"{advice[1:]}, or raise [right-rag.limits] plugin_fault_share (now {self.limits.plugin_fault_share:g}).")
