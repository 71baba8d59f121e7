"""right-rag on Dagster: domain-structured RAG for hierarchical documents.

The plugin API matches right-rag's: ``right_rag_dagster.interfaces``, ``right_rag_dagster.model``,
``right_rag_dagster.pipeline_state.stable_hash``, ``right_rag_dagster.pipeline`` and
``right_rag_dagster.registry.build_registry``.
"""

__version__ = "0.1.0"
