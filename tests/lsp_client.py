"""A small Language Server Protocol client for the tests: `liturgy lsp` in a subprocess, JSON-RPC over its stdio.

Messages are framed as the protocol says (a `Content-Length` header, a blank line, the JSON body); a thread reads
the server's output so notifications (diagnostics) are kept while a test waits for a response.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


class LspClient:
    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "liturgy.interpreter.tools.cli", "lsp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd,
        )
        self.next_id = 0
        self.responses: dict[int, Any] = {}
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.lock = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # ------------------------------------------------------------ wire
    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value.strip())
            assert length is not None
            message = json.loads(out.read(length))
            with self.lock:
                if "id" in message and "method" not in message:
                    self.responses[message["id"]] = message
                elif message.get("method") == "textDocument/publishDiagnostics":
                    self.diagnostics[message["params"]["uri"]] = message["params"]["diagnostics"]
                    self.notifications.put(message)
                elif "id" in message:  # a request from the server (e.g. registerCapability): accept it
                    self._send({"id": message["id"], "result": None})
                self.lock.notify_all()

    # ------------------------------------------------------------ API
    def request(self, method: str, params: Any, timeout: float = 60.0) -> Any:
        self.next_id += 1
        ident = self.next_id
        self._send({"id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.lock:
            while ident not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no response to {method}")
                self.lock.wait(left)
            message = self.responses.pop(ident)
        assert "error" not in message, message
        return message["result"]

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait_diagnostics(self, uri: str, predicate: Any = lambda d: True, timeout: float = 60.0) -> list[Any]:
        """The diagnostics published for ``uri`` once they satisfy ``predicate`` (the latest ones)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                if uri in self.diagnostics and predicate(self.diagnostics[uri]):
                    return self.diagnostics[uri]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"diagnostics for {uri}: {self.diagnostics.get(uri)}")
                self.lock.wait(left)

    def forget_diagnostics(self, uri: str) -> None:
        with self.lock:
            self.diagnostics.pop(uri, None)

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
