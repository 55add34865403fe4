"""The same retriever as a service: ``python serve.py 8765``, then
``pytest --mode=http://127.0.0.1:8765/retrieve -n 2``.

It answers the harness's JSON, one POST per question: ``{"id", "question", "documents",
"budget_tokens"}`` in, ``{"passages": [{"doc_id", "text"}, ...]}`` out, best first. It reads
the transactions profile's texts from the corpus mirror ($LEGALBENCH_CORPUS_DIR) itself, as a
service of yours would read its own store.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

from paragraphs import best_paragraphs


def corpus_texts(corpus_dir):
    """``{doc_id: text}`` of the transactions profile: ``SET/FILE.txt`` is ``SET-FILE``."""
    root = Path(corpus_dir) / "transactions"
    return {f"{path.parent.name}-{path.stem}": path.read_text(encoding="utf-8")
            for path in sorted(root.glob("*/*.txt"))}


class Retrieve(BaseHTTPRequestHandler):
    texts: ClassVar[dict[str, str]] = {}  # filled before serving

    def do_POST(self):
        asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        documents = [(d, self.texts[d]) for d in asked["documents"] if d in self.texts]
        found = best_paragraphs(asked["question"], documents)
        body = json.dumps({"passages": [{"doc_id": d, "text": p} for d, p in found]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    Retrieve.texts = corpus_texts(os.environ["LEGALBENCH_CORPUS_DIR"])
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    print(f"serving {len(Retrieve.texts)} documents on http://127.0.0.1:{port}/retrieve",
          flush=True)
    ThreadingHTTPServer(("127.0.0.1", port), Retrieve).serve_forever()
