"""An OpenAI-compatible chat server on loopback that replays recorded answers (stdlib only).

``POST /v1/chat/completions`` answers with the first unused recorded answer whose ``match`` text
occurs in the request's last user message (answers are used in order; when every matching one is
used, the last of them is repeated). Streaming requests (``"stream": true``) get the answer as
server-sent events, as OpenAI sends it. Every request is kept in ``requests`` for the test to read.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """A recorded answer and the prompt text that selects it ("" matches any prompt)."""

    content: str
    match: str = ""
    used: bool = False


@dataclass
class Request:
    """One chat request as received."""

    model: str
    prompt: str  # the messages' contents joined by newlines
    headers: dict[str, str]  # names lower-cased
    answer: int  # index of the answer given


@dataclass
class ReplayServer:
    """A running replay server: ``url`` is the base URL to pass as ``--base-url``."""

    answers: list[Answer]
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    httpd: Any = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def pick(self, prompt: str) -> int:
        """Index of the answer for ``prompt`` (marks it used)."""
        with self.lock:
            matching = [i for i, a in enumerate(self.answers) if a.match in prompt]
            if not matching:
                raise LookupError(f"no recorded answer matches the prompt:\n{prompt[-600:]}")
            fresh = [i for i in matching if not self.answers[i].used]
            i = fresh[0] if fresh else matching[-1]
            self.answers[i].used = True
            return i

    def stop(self) -> None:
        """Shut the server down."""
        self.httpd.shutdown()
        self.httpd.server_close()


def start(answers: list[Answer]) -> ReplayServer:
    """Start a replay server on a free loopback port, in a daemon thread."""
    server = ReplayServer(answers)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            messages = body.get("messages") or []
            prompt = "\n".join(str(m.get("content", "")) for m in messages)
            try:
                i = server.pick(str(messages[-1].get("content", "")) if messages else "")
            except LookupError as e:
                self._send(400, json.dumps({"error": {"message": str(e)}}).encode())
                return
            server.requests.append(Request(str(body.get("model")), prompt, {k.lower(): v for k, v in self.headers.items()}, i))
            content = server.answers[i].content
            base = {"id": f"chatcmpl-{len(server.requests)}", "created": int(time.time()),
                    "model": body.get("model")}
            if body.get("stream"):
                chunks = [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": None},
                          {"index": 0, "delta": {}, "finish_reason": "stop"}]
                events = "".join(f"data: {json.dumps({**base, 'object': 'chat.completion.chunk', 'choices': [c]})}\n\n"
                                 for c in chunks) + "data: [DONE]\n\n"
                self._send(200, events.encode(), "text/event-stream")
                return
            n_in, n_out = len(prompt) // 4, len(content) // 4  # tokens, roughly: 4 characters each
            reply = {**base, "object": "chat.completion",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}}
            self._send(200, json.dumps(reply).encode())

    server.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.httpd.serve_forever, daemon=True).start()
    return server
