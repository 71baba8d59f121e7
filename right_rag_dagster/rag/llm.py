"""Chat models behind one method, ``chat(messages) -> text``: Ollama, OpenAI-compatible servers, any function.

Requests use temperature 0 so answers are repeatable. Only the standard library is used (fast start-up).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from ..errors import ConfigError
from ..retrieval.errors import ServiceError
from ..retrieval.http import Endpoint

Messages = list[dict[str, str]]


class LLM(ABC):
    """A chat model: messages ``[{"role": ..., "content": ...}]`` in, reply text out."""

    @property
    @abstractmethod
    def model(self) -> str: ...

    @abstractmethod
    def chat(self, messages: Messages) -> str: ...


class OllamaLLM(LLM):
    """Ollama's ``/api/chat`` (non-streaming)."""

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 300.0) -> None:
        self._model = model
        self.endpoint = Endpoint.ollama(base_url, timeout)

    @property
    def model(self) -> str:
        return f"ollama:{self._model}"

    def chat(self, messages: Messages) -> str:
        url, reply = self.endpoint.post("api/chat", {"model": self._model, "messages": messages, "stream": False,
                                                     "options": {"temperature": 0}})
        try:
            return str(reply["message"]["content"])
        except (KeyError, TypeError) as exc:
            raise ServiceError(f"{url} answered without message.content: {str(reply)[:200]}") from exc


class OpenAICompatibleLLM(LLM):
    """Any server with OpenAI's ``/chat/completions`` (OpenAI, vLLM, llama.cpp, LM Studio, Ollama's /v1)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 300.0) -> None:
        self._model = model
        self.endpoint = Endpoint.openai(base_url, api_key, timeout)

    @property
    def model(self) -> str:
        return f"openai:{self._model}"

    def chat(self, messages: Messages) -> str:
        url, reply = self.endpoint.post("chat/completions",
                                        {"model": self._model, "messages": messages, "temperature": 0})
        try:
            return str(reply["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as exc:
            raise ServiceError(f"{url} answered without choices[0].message.content: {str(reply)[:200]}") from exc


class FunctionLLM(LLM):
    """Any function ``messages -> reply text`` as a chat model."""

    def __init__(self, function: Callable[[Messages], str], model: str | None = None) -> None:
        self.function = function
        self._model = model or getattr(function, "__name__", "function")

    @property
    def model(self) -> str:
        return f"function:{self._model}"

    def chat(self, messages: Messages) -> str:
        return str(self.function(messages))


def make_llm(spec: str | LLM | Callable[[Messages], str], *, url: str | None = None) -> LLM:
    """A chat model from ``ollama:<model>``, ``openai:<model>``, an ``LLM`` or a callable."""
    if isinstance(spec, LLM):
        return spec
    if callable(spec):
        return FunctionLLM(spec)
    kind, _, model = str(spec).partition(":")
    if kind == "ollama" and model:
        return OllamaLLM(model, url)
    if kind == "openai" and model:
        return OpenAICompatibleLLM(model, url)
    raise ConfigError(f"unknown LLM {spec!r}; use ollama:<model> or openai:<model> (with generator_url for a "
                      "local OpenAI-compatible server)")
