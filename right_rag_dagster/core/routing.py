"""The routing rule: exactly one unit parser must accept a document; anything else is a visible rejection.

An optional fallback parser (a generic structure parser the project enables) takes a document only when no
domain parser accepts it: it never competes, so it never makes a document ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .interfaces import UnitParser
from .model import Document

UNSUPPORTED = "unsupported"
AMBIGUOUS = "ambiguous"
FAILED = "failed"


@dataclass(frozen=True)
class Rejection:
    """Why a document was not parsed: status (unsupported, ambiguous, failed), parsers involved, reason."""

    document_id: str
    status: str
    reason: str
    parser_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Route:
    """The outcome of routing: the one parser that owns the document, or a rejection.

    ``accepted`` and ``raised`` name every parser that accepted the document or raised while deciding, so a
    run can tell a plugin that claims or fails on most documents (see ``pipeline.faults``)."""

    parser: UnitParser | None
    rejection: Rejection | None = None
    accepted: tuple[str, ...] = ()
    raised: tuple[str, ...] = ()
    fallback: bool = False


def route_document(document: Document, parsers: Sequence[UnitParser], fallback: UnitParser | None = None) -> Route:
    """Ask every parser; one acceptance wins, none is ``unsupported``, several ``ambiguous``, an error ``failed``.

    Every parser is asked even after one raises, so the route names all that accepted or failed. With
    ``fallback``, a document no parser accepts goes to it (when it accepts) instead of being ``unsupported``;
    the fallback never competes with the domain parsers."""
    accepted: list[UnitParser] = []
    errors: list[tuple[str, BaseException]] = []
    for parser in parsers:
        _ask(parser, document, accepted, errors)
    names = tuple(p.parser_name for p in accepted)
    if not errors and len(accepted) == 1:
        return Route(accepted[0], None, names)
    if not errors and not accepted and fallback is not None:
        _ask(fallback, document, accepted, errors)
        if accepted:
            return Route(fallback, None, (), fallback=True)
    raised = tuple(name for name, _ in errors)
    if errors:
        name, exc = errors[0]
        reason = f"{name}.parser_can_handle_document raised {type(exc).__name__}: {exc}"
        if len(errors) > 1:
            reason += f" (and {len(errors) - 1} more parsers raised: {', '.join(raised[1:])})"
        return Route(None, Rejection(document.id, FAILED, reason, raised), names, raised)
    if not accepted:
        tried = ", ".join(p.parser_name for p in parsers) or "none registered"
        declined = f"; the fallback {fallback.parser_name!r} declined it too" if fallback is not None else ""
        reason = (f"no unit parser accepts this document (tried: {tried}){declined}; write a parser for its family "
                  "in spec/unit_parsers/")
        return Route(None, Rejection(document.id, UNSUPPORTED, reason, tuple(p.parser_name for p in parsers)))
    reason = f"{len(accepted)} unit parsers accept this document ({', '.join(names)}); narrow their parser_can_handle_document"
    return Route(None, Rejection(document.id, AMBIGUOUS, reason, names), names)


def _ask(parser: UnitParser, document: Document, accepted: list[UnitParser],
         errors: list[tuple[str, BaseException]]) -> None:
    """Append ``parser`` to ``accepted`` when it accepts the document, or its exception to ``errors``."""
    try:
        if parser.parser_can_handle_document(document):
            accepted.append(parser)
    except Exception as exc:
        errors.append((parser.parser_name, exc))
