"""Answers with citations: RAG flows (``simple``, ``adaptive``) over the retrieval layer, with traces.

Never imports Dagster. ``query(project_or_store, question, ...)`` returns an ``Answer``.
"""

from .flows import FLOWS, AdaptiveFlow, Flow, FlowContext, SimpleFlow
from .generators import ExtractiveGenerator, Generator, LLMGenerator, make_generator
from .llm import LLM, FunctionLLM, OllamaLLM, OpenAICompatibleLLM, make_llm
from .model import NOT_FOUND, Answer, Citation, Generated
from .query import query
from .trace import FlowError, FlowGraph, Trace

__all__ = [
    "FLOWS", "LLM", "NOT_FOUND", "AdaptiveFlow", "Answer", "Citation", "ExtractiveGenerator", "Flow", "FlowContext",
    "FlowError", "FlowGraph", "FunctionLLM", "Generated", "Generator", "LLMGenerator", "OllamaLLM",
    "OpenAICompatibleLLM", "SimpleFlow", "Trace", "make_generator", "make_llm", "query",
]
