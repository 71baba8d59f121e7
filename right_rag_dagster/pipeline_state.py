"""right-rag compatible import path for ``stable_hash``."""

from .core.hashing import stable_hash, to_jsonable

__all__ = ["stable_hash", "to_jsonable"]
