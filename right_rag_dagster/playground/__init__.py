"""The RAG playground: a local web page that draws each flow, lights up the steps of real traces, and compares
chunkers, retrievers and flows side by side (``right-rag playground``).

Standard library server, plain JS + SVG page shipped in ``static/``; never imports Dagster. Recorded traces of the
sample project (``recordings/``) replay without a model; live runs go through ``rag.query``.
"""

from .links import DEFAULT_PORT, playground_url

__all__ = ["DEFAULT_PORT", "playground_url"]
