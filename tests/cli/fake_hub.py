"""A Hugging Face hub on localhost for ``mineru-tui model fetch``: the two calls
huggingface_hub makes for a snapshot (the repo's file list at a revision, then each file by
``resolve/``), served from a dict of files. No network: HF_ENDPOINT points here."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def etag(name: str, data: bytes) -> str:
    """What the hub names a file by: SHA-256 for LFS files (weights), git's blob hash else."""
    if name.endswith(".safetensors"):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()


class FakeHub:
    def __init__(self, repo: str, files: dict[str, bytes]):
        self.repo, self.files, self.requests = repo, files, []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _answer(self, body: bytes | None):
                path = self.path.split("?")[0]
                hub.requests.append((self.command, path))
                info = f"/api/models/{hub.repo}/revision/"
                tree = f"/api/models/{hub.repo}/tree/"
                resolve = f"/{hub.repo}/resolve/"
                if path.startswith(tree):
                    entries = [dict({"type": "file", "path": n, "size": len(d),
                                     "oid": etag(n + ".git", d)},
                                    **({"lfs": {"oid": etag(n, d), "size": len(d), "pointerSize": 134}}
                                       if n.endswith(".safetensors") else {}))
                               for n, d in hub.files.items()]
                    self._send(200, json.dumps(entries).encode(),
                               {"Content-Type": "application/json"}, body)
                elif path.startswith(info):
                    data = json.dumps({"id": hub.repo, "sha": COMMIT, "siblings": [
                        {"rfilename": n} for n in hub.files]}).encode()
                    self._send(200, data, {"Content-Type": "application/json"}, body)
                elif path.startswith(resolve):
                    name = path[len(resolve):].split("/", 1)[1]
                    data = hub.files.get(name)
                    if data is None:
                        self._send(404, b"", {"X-Error-Code": "EntryNotFound"}, body)
                        return
                    tag = etag(name, data)
                    headers = {"X-Repo-Commit": COMMIT, "ETag": f'"{tag}"'}
                    if name.endswith(".safetensors"):
                        headers["X-Linked-Etag"] = f'"{tag}"'
                        headers["X-Linked-Size"] = str(len(data))
                    self._send(200, data, headers, body)
                else:
                    self._send(404, b"", {}, body)

            def _send(self, code, data, headers, body):
                self.send_response(code)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body is not None:
                    self.wfile.write(data)

            def do_GET(self):
                self._answer(b"")

            def do_HEAD(self):
                self._answer(None)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
