"""What a search derives from a whole store (its documents' names, the acronyms they define), kept per store
until its next committed write (``Store.stamp``), so repeated questions read the store once."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

from ...store import Store

T = TypeVar("T")


def per_store_version(derive: Callable[[Store], T]) -> Callable[[Store], T]:
    """``derive(store)``, computed again only once the store changed since the last call for it."""
    lock = threading.Lock()
    cache: dict[str, tuple[object, T]] = {}

    @functools.wraps(derive)
    def cached(store: Store) -> T:
        key, stamp = store.cache_key(), store.stamp()
        with lock:
            found = cache.get(key)
            if found is not None and found[0] == stamp:
                return found[1]
        value = derive(store)
        with lock:
            cache[key] = (stamp, value)
        return value

    return cached
