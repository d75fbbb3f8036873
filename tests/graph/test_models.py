"""The chat-model factory's errors: unknown providers, missing keys, missing extras."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from akg_rag.errors import ConfigError
from akg_rag.graph.models import make_chat_model, parse_model_spec


def test_parse_spec():
    assert parse_model_spec("openai:gpt-4o") == ("openai", "gpt-4o")
    assert parse_model_spec(" Ollama : qwen2.5-coder:7b ") == ("ollama", "qwen2.5-coder:7b")


def test_unknown_provider_lists_the_allowed_ones():
    with pytest.raises(ConfigError, match="allowed: openai, anthropic, ollama"):
        make_chat_model("mistral:large")


def test_spec_without_model_is_rejected():
    with pytest.raises(ConfigError, match="provider:model"):
        make_chat_model("openai")


@pytest.mark.parametrize("provider,var", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")])
def test_missing_api_key_fails_before_any_call(monkeypatch, provider, var):
    monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match=var):
        make_chat_model(f"{provider}:some-model")


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
def test_missing_extra_names_the_pip_command(monkeypatch, provider):
    module = {"openai": "langchain_openai", "anthropic": "langchain_anthropic", "ollama": "langchain_ollama"}[provider]
    monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ImportError, installed or not
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with pytest.raises(ConfigError, match=rf"pip install 'akg-rag\[{provider}\]'"):
        make_chat_model(f"{provider}:m")


def test_openai_compatible_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if importlib.util.find_spec("langchain_openai") is not None:
        model = make_chat_model("openai:served-model", base_url="http://127.0.0.1:8000/v1")
        assert model.model_name == "served-model" and model.openai_api_base == "http://127.0.0.1:8000/v1"
        assert model.openai_api_key.get_secret_value() == "EMPTY"
    monkeypatch.setitem(sys.modules, "langchain_openai", None)
    # With a base URL the key check passes; what fails is only the missing extra.
    with pytest.raises(ConfigError, match=r"akg-rag\[openai\]"):
        make_chat_model("openai:served-model", base_url="http://127.0.0.1:8000/v1")
