"""Building a LangChain chat model from a ``provider:model`` string.

Any ``BaseChatModel`` can be injected through the Python API; this factory covers the command line.
The integration packages are optional extras imported only here, so a missing one -- or a missing API
key -- fails with a :class:`ConfigError` naming the fix before any request is made.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Literal, get_args

from akg_rag.errors import ConfigError

Provider = Literal["openai", "anthropic", "ollama"]
PROVIDERS: tuple[str, ...] = get_args(Provider)

# provider -> (module, class, API-key variable or None)
_INTEGRATIONS: dict[str, tuple[str, str, str | None]] = {
    "openai": ("langchain_openai", "ChatOpenAI", "OPENAI_API_KEY"),
    "anthropic": ("langchain_anthropic", "ChatAnthropic", "ANTHROPIC_API_KEY"),
    "ollama": ("langchain_ollama", "ChatOllama", None),
}

# OpenAI-compatible servers (vLLM, llama.cpp, ...) usually ignore the key but the client insists on one.
_PLACEHOLDER_KEY = "EMPTY"


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split ``provider:model`` into its parts; raise ``ConfigError`` listing the providers."""
    provider, sep, model = spec.partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if not sep or not model:
        raise ConfigError(
            f"chat model {spec!r} is not 'provider:model'; e.g. openai:gpt-4o, "
            f"anthropic:claude-sonnet-4-5, ollama:qwen2.5-coder (providers: {', '.join(PROVIDERS)})")
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown chat model provider {provider!r}; allowed: {', '.join(PROVIDERS)}")
    return provider, model


def make_chat_model(spec: str, *, base_url: str | None = None, temperature: float = 0.2,
                    **kwargs: Any) -> Any:
    """Return a LangChain chat model for ``spec`` (``openai:MODEL``, ``anthropic:MODEL``, ``ollama:MODEL``).

    ``base_url`` points ``openai`` at an OpenAI-compatible server (a placeholder key is used when
    none is set, as such servers rarely check it) and ``ollama`` at a non-default Ollama host.
    Extra keyword arguments go to the model class unchanged.
    """
    provider, model = parse_model_spec(spec)
    module_name, class_name, key_var = _INTEGRATIONS[provider]
    params: dict[str, Any] = {"model": model, "temperature": temperature, **kwargs}
    if key_var and not os.environ.get(key_var) and "api_key" not in kwargs:
        if provider == "openai" and base_url:
            params["api_key"] = _PLACEHOLDER_KEY
        else:
            raise ConfigError(
                f"{provider} chat model needs an API key: set {key_var} "
                f"(or use --base-url for an OpenAI-compatible server, or ollama:MODEL for a local one)")
    if base_url:
        params["base_url"] = base_url
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ConfigError(
            f"the {provider} chat model needs the optional package {module_name.replace('_', '-')}: "
            f"pip install 'akg-rag[{provider}]'") from None
    return getattr(module, class_name)(**params)
