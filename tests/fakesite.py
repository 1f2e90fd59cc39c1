"""A local HTTP server that plays Scholar, MSR and Elamur from the project's fixture pages, with
scripted faults: the test double of the real sites for scraper tests, cassettes and the benchmark.

``/scholar`` serves a hand-made results page and ``/citations?view_op=search_authors`` a hand-made
author search page, whatever the query. Scholar profiles are generated from
``fixtures/scholar/handwritten_ja_profile.html``: user ``U``
has ``site.scholar[U]`` rows (default 4), served ``pagesize`` at a time from ``cstart``, with the
"Show more" button enabled on every page but the last; each row's own page (``view_op=view_citation``)
from ``handwritten_view_citation_chapter.html``, and the co-author list (``view_op=list_colleagues``)
is ``handwritten_coauthors_dialog.html``. MSR and Elamur serve their fixture page
for any person. ``site.fault("user=U", "500", "ok")`` queues what the next requests whose path
contains ``user=U`` get: an HTTP status (``"429:2"`` adds ``Retry-After: 2``), ``reset`` (the
connection is reset), ``slow:S`` (the answer comes after S seconds), ``captcha``, ``hang``,
``redirect:LOCATION`` (a 302), and hostile answers: ``gzipbomb:MB`` (a small gzip body that
decompresses to MB megabytes), ``huge:MB`` (a body of MB megabytes, streamed), ``drip:S`` (one byte
every S seconds, after the headers). ``site.ignore_cstart`` makes every Scholar page the first one,
as a server that ignores ``cstart`` (its "Show more" stays enabled).
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_PROFILE = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_text(encoding="utf-8")
_HEAD, _REST = _PROFILE.split('<tbody id="gsc_a_b">\n', 1)
_ROWS, _TAIL = _REST.split("</tbody>", 1)
_ROW = _ROWS.splitlines()[2]  # the plain row: no merge marks
CAPTCHA = ("<!-- hand-written for pubharvest tests: the shape of Scholar's CAPTCHA page -->\n"
           "<html><head><title>Google Scholar</title></head><body><div id=\"gs_captcha_ccl\">"
           "<h1>Please show you're not a robot</h1><form id=\"gs_captcha_f\"><div class=\"g-recaptcha\"></div>"
           "</form></div></body></html>")
_DETAIL = (FIXTURES / "scholar" / "handwritten_view_citation_chapter.html").read_text(encoding="utf-8")
COAUTHORS_PAGE = (FIXTURES / "scholar" / "handwritten_coauthors_dialog.html").read_bytes()
MSR_PAGE = (FIXTURES / "msr" / "010_people_publications.html").read_bytes()
ELAMUR_PAGE = (FIXTURES / "elamur" / "000_multiline.md").read_bytes()
# Search results (``/scholar?q=``) and the author search (``view_op=search_authors``), whatever the query.
SEARCH_PAGE = (FIXTURES / "scholar" / "handwritten_search_user_profiles.html").read_bytes()
AUTHOR_SEARCH_PAGE = (FIXTURES / "scholar" / "handwritten_author_search.html").read_bytes()


def scholar_page(user: str, total: int, cstart: int, pagesize: int, cites: int = 0) -> str:
    """A Scholar profile page of ``user`` holding rows ``cstart``.. of ``total``."""
    end = min(total, cstart + pagesize)
    rows = "\n".join(_ROW.replace("Method for segmenting text", f"Paper {i + 1} of {user}")
                     .replace("9yKSN-GCB0IC", f"P{i:011d}")
                     .replace('gs_ibl"></a>', f'gs_ibl">{cites + i}</a>') for i in range(cstart, end))
    disabled = '<button type="button" id="gsc_bpf_more" disabled>'
    button = disabled if end >= total else disabled.replace(" disabled", "")
    tail = _TAIL.replace("記事 1–4", f"記事 {cstart + 1}–{end}").replace(disabled, button)
    page = _HEAD + '<tbody id="gsc_a_b">\n' + rows + "\n</tbody>" + tail
    return page.replace("Yamada12AAAAJ", user)


def publication_page(pub_id: str) -> str:
    """The own page (``view_op=view_citation``) of the paper ``USER:P<index>`` of a generated profile:
    its title, and the full author list that the profile row cuts to "H Yamada, I Tanaka"."""
    user, _, pub = pub_id.partition(":")
    index = int(pub[1:]) if pub[1:].isdigit() else 0
    return (_DETAIL.replace("Chaptr1AAAAJ:9yKSN-GCB0IC", pub_id).replace("Chaptr1AAAAJ", user)
            .replace("Soil moisture sensing in alpine meadows", f"Paper {index + 1} of {user}")
            .replace("Ingrid Olsen, Tomas Berg", "Hanako Yamada, Ichiro Tanaka, Jane Smith"))


class FakeSite:
    """The server, its request log and its fault queues; use as a context manager."""

    def __init__(self, port: int = 0) -> None:
        self.scholar: dict[str, int] = {}
        self.cites = 0  # row i of every Scholar profile is cited cites + i times
        self.ignore_cstart = False
        self.captcha = CAPTCHA.encode()  # what the "captcha" action serves (a real page, in corpus tests)
        self.robots = "User-agent: *\nAllow: /\n"
        self.faults: list[tuple[str, list[str]]] = []
        self.log: list[tuple[float, str, str]] = []  # (time, path, user agent)
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fault(self, match: str, *actions: str) -> None:
        with self.lock:
            self.faults.append((match, list(actions)))

    def paths(self, containing: str = "") -> list[str]:
        return [path for _, path, _ in self.log if containing in path]

    def next_action(self, path: str) -> str:
        with self.lock:
            self.log.append((time.monotonic(), path, ""))
            for match, actions in self.faults:
                if match in path and actions:
                    return actions.pop(0)
        return "ok"

    def page(self, path: str) -> tuple[int, str, bytes]:
        """Status, content type and body of the normal answer to ``path``."""
        parts = urlsplit(path)
        if parts.path == "/robots.txt":
            return 200, "text/plain", self.robots.encode()
        if parts.path == "/scholar":
            return 200, "text/html; charset=utf-8", SEARCH_PAGE
        if parts.path == "/citations" and "view_op=search_authors" in parts.query:
            return 200, "text/html; charset=utf-8", AUTHOR_SEARCH_PAGE
        if parts.path == "/citations":
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if query.get("view_op") == "view_citation":
                return 200, "text/html; charset=utf-8", publication_page(query.get("citation_for_view", "")).encode()
            if query.get("view_op") == "list_colleagues":
                return 200, "text/html; charset=utf-8", COAUTHORS_PAGE
            user = query.get("user", "")
            total = self.scholar.get(user, 4)
            pagesize = max(20, min(100, int(query.get("pagesize", 20))))
            cstart = 0 if self.ignore_cstart else int(query.get("cstart", 0))
            body = scholar_page(user, total, cstart, pagesize, self.cites)
            return 200, "text/html; charset=utf-8", body.encode()
        if re.fullmatch(r"/en-us/research/people/[^/]+/publications/", parts.path):
            return 200, "text/html; charset=utf-8", MSR_PAGE
        if re.fullmatch(r"/free/en/authors/[^/]+/", parts.path):
            return 200, "text/markdown; charset=utf-8", ELAMUR_PAGE
        return 404, "text/plain", b"not found"


@functools.cache
def gzip_bomb(megabytes: int) -> bytes:
    """A gzip body that decompresses to ``megabytes`` MB of zeros (about 1 KB per MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(2**20)
    return b"".join(packer.compress(zeros) for _ in range(megabytes)) + packer.flush()


def _handler(site: FakeSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/_log":  # the request log, for a test whose server runs in another process
                return self.answer(200, "application/json", json.dumps(site.log).encode())
            action = site.next_action(self.path)
            name, _, arg = action.partition(":")
            if name == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            if name in ("slow", "hang"):
                time.sleep(float(arg or 3600))
            if name == "redirect":
                return self.answer(302, "text/plain", b"", {"Location": arg})
            if name == "gzipbomb":
                return self.answer(200, "text/html", gzip_bomb(int(arg)), {"Content-Encoding": "gzip"})
            if name == "huge":
                return self.stream(int(arg) * 2**20, 2**20, 0.0)
            if name == "drip":
                return self.stream(1000, 1, float(arg))
            if name == "captcha":
                return self.answer(200, "text/html; charset=utf-8", site.captcha)
            if name.isdigit():
                headers = {"Retry-After": arg} if arg else {}
                return self.answer(int(name), "text/plain", f"HTTP {name}".encode(), headers)
            self.answer(*site.page(self.path))

        def answer(self, status: int, kind: str, body: bytes, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def stream(self, size: int, chunk: int, pause: float) -> None:
            """``size`` bytes of filler, ``chunk`` at a time, ``pause`` seconds apart, until the client leaves."""
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                block = b" " * chunk
                for _ in range(size // chunk):
                    self.wfile.write(block)
                    self.wfile.flush()
                    time.sleep(pause)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

    return Handler


class ProcessSite:
    """The fake site in a process of its own, for timing tests: its clock is not held up by the job
    running in the test's process (an in-process server thread waits for the GIL while a page is
    parsed, and logs a request late). Its log comes from ``GET /_log``; ``time.monotonic`` is
    the system's monotonic clock, the same in both processes."""

    def __init__(self, robots: str | None = None) -> None:
        env = {**os.environ, **({"FAKESITE_ROBOTS": robots} if robots else {})}
        self.process = subprocess.Popen([sys.executable, __file__, "0"], stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait()

    @property
    def log(self) -> list[tuple[float, str, str]]:
        from urllib.request import urlopen

        with urlopen(self.url + "/_log") as answer:
            return [tuple(entry) for entry in json.loads(answer.read())]


if __name__ == "__main__":  # serve until killed: python tests/fakesite.py PORT [USER=ROWS ...]
    with FakeSite(int(sys.argv[1])) as fake:
        fake.scholar.update({k: int(v) for k, v in (a.split("=") for a in sys.argv[2:])})
        fake.robots = os.environ.get("FAKESITE_ROBOTS", fake.robots)
        print(fake.url, flush=True)
        threading.Event().wait()
