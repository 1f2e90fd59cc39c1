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
connection is reset), ``slow:S`` (the answer comes after S seconds), ``captcha`` (``captcha:503``
sends it with that status), ``hang``, ``redirect:LOCATION`` (a 302), and hostile answers:
``gzipbomb:MB`` (a small gzip body that decompresses to MB megabytes), ``huge:MB`` (a body of MB
megabytes, streamed), ``drip:S`` (one byte every S seconds, after the headers), and ``answer:NAME``:
the answer ``site.answer(NAME, status, headers, body)`` stored, sent byte for byte (any header, any
body; ``Content-Length`` is added unless given). ``site.route(PATTERN, NAME)`` serves a stored answer
to every request whose path (without the query) matches the regular expression PATTERN, for good:
the stand-in of an API (Crossref, OpenAlex) serving recorded answers.
Settings change every answer from then on: ``site.ignore_cstart`` makes every Scholar page the first
one, as a server that ignores ``cstart`` (its "Show more" stays enabled); ``site.delay`` holds back
every page but robots.txt that many seconds; ``site.change = "rows"`` renames the class of Scholar's
rows (a layout change), ``"cut"`` stops each Scholar page early in its first row.

The server runs in a process of its own (``python fakesite.py PORT [USER=ROWS ...]``); ``FakeSite``
starts it and is the test's handle on it. In the test's process, a server thread waited for the GIL
while the job parsed or decompressed a page, and on a busy machine the job timed out on an answer
that was on its way (and its retry got the real page) or logged a request late.
"""

from __future__ import annotations

import functools
import http.client
import json
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
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
# What a test may set on a running site; bytes travel as Latin-1 text (each byte one character).
SETTINGS: dict[str, type] = {"cites": int, "ignore_cstart": bool, "captcha": bytes, "robots": str,
                             "delay": float, "change": str}
_CONTROL = "/_fake/"  # the test's requests to the server: never logged, never faulted


def scholar_page(user: str, total: int, cstart: int, pagesize: int, cites: int = 0) -> str:
    """A Scholar profile page of ``user`` holding rows ``cstart``.. of ``total``."""
    end = min(total, cstart + pagesize)
    rows = "\n".join(_ROW.replace("Method for segmenting text", f"Paper {i + 1} of {user}")
                     .replace("9yKSN-GCB0IC", f"P{i:011d}")
                     .replace('<a href="" class="gsc_a_ac gs_ibl"></a>', _count_link(cites + i, i))
                     for i in range(cstart, end))
    disabled = '<button type="button" id="gsc_bpf_more" disabled>'
    button = disabled if end >= total else disabled.replace(" disabled", "")
    tail = _TAIL.replace("記事 1–4", f"記事 {cstart + 1}–{end}").replace(disabled, button)
    page = _HEAD + '<tbody id="gsc_a_b">\n' + rows + "\n</tbody>" + tail
    return page.replace("Yamada12AAAAJ", user)


def _count_link(count: int, index: int) -> str:
    """A row's cited-by cell: empty with no address when uncited, else the count linking its cluster
    (``cites=``), as on Scholar's pages."""
    if not count:
        return '<a href="" class="gsc_a_ac gs_ibl"></a>'
    return (f'<a href="https://scholar.google.com/scholar?oi=bibs&amp;hl=ja&amp;cites={9000000 + index}" '
            f'class="gsc_a_ac gs_ibl">{count}</a>')


def publication_page(pub_id: str) -> str:
    """The own page (``view_op=view_citation``) of the paper ``USER:P<index>`` of a generated profile:
    its title, and the full author list that the profile row cuts to "H Yamada, I Tanaka"."""
    user, _, pub = pub_id.partition(":")
    index = int(pub[1:]) if pub[1:].isdigit() else 0
    return (_DETAIL.replace("Chaptr1AAAAJ:9yKSN-GCB0IC", pub_id).replace("Chaptr1AAAAJ", user)
            .replace("Soil moisture sensing in alpine meadows", f"Paper {index + 1} of {user}")
            .replace("Ingrid Olsen, Tomas Berg", "Hanako Yamada, Ichiro Tanaka, Jane Smith"))


def changed(body: bytes, change: str) -> bytes:
    """A Scholar page with rows as ``change`` says: ``rows`` renames their class, ``cut`` stops inside the first."""
    if change == "rows" and b"gsc_a_tr" in body:
        return body.replace(b'class="gsc_a_tr"', b'class="gsc_a_row"')
    if change == "cut" and b"gsc_a_tr" in body:
        return body[:body.index(b"gsc_a_tr") + 200]
    return body


@functools.cache
def gzip_bomb(megabytes: int) -> bytes:
    """A gzip body that decompresses to ``megabytes`` MB of zeros (about 1 KB per MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(2**20)
    return b"".join(packer.compress(zeros) for _ in range(megabytes)) + packer.flush()


class Site:
    """The server's side: its settings, fault queues and request log (in the server's process)."""

    def __init__(self, port: int = 0) -> None:
        self.scholar: dict[str, int] = {}
        self.cites = 0  # row i of every Scholar profile is cited cites + i times
        self.ignore_cstart = False
        self.captcha = CAPTCHA.encode()  # what the "captcha" action serves (a real page, in corpus tests)
        self.robots = "User-agent: *\nAllow: /\n"
        self.delay = 0.0
        self.change = ""
        self.faults: list[tuple[str, list[str]]] = []
        self.answers: dict[str, tuple[int, list[tuple[str, str]], bytes]] = {}  # name -> status, headers, body
        self.routes: list[tuple[re.Pattern[str], str]] = []  # path pattern -> answer name
        self.log: list[tuple[float, str, str]] = []  # (time, path, user agent)
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", port), _handler(self))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def fault(self, match: str, actions: list[str]) -> None:
        for action in actions:  # built now, so that building it is not a slow answer
            if action.startswith("gzipbomb:"):
                gzip_bomb(int(action.partition(":")[2]))
        with self.lock:
            self.faults.append((match, actions))

    def set(self, settings: Mapping[str, Any]) -> None:
        for name, value in settings.items():
            if name == "scholar":
                self.scholar.update(value)
            else:
                setattr(self, name, value.encode("latin-1") if SETTINGS[name] is bytes else SETTINGS[name](value))

    def control(self, path: str, body: bytes) -> bytes:
        """The answer to one of the test's requests (``/_fake/...``)."""
        command = path.removeprefix(_CONTROL)
        if command == "fault":
            match, actions = json.loads(body)
            self.fault(match, actions)
        elif command == "set":
            self.set(json.loads(body))
        elif command == "answer":
            name, status, headers, text = json.loads(body)
            self.answers[name] = (status, [tuple(h) for h in headers], text.encode("latin-1"))
        elif command == "route":
            pattern, name = json.loads(body)
            self.routes.append((re.compile(pattern), name))
        elif command == "clear":
            with self.lock:
                self.faults.clear()
        elif command == "log":
            with self.lock:
                return json.dumps(self.log).encode()
        else:
            raise ValueError(f"no such control: {path}")
        return b"{}"

    def next_action(self, path: str, agent: str = "") -> str:
        with self.lock:
            self.log.append((time.monotonic(), path, agent))
            for match, actions in self.faults:
                if match in path and actions:
                    return actions.pop(0)
        return "ok"

    def routed(self, path: str) -> str | None:
        """The stored answer a route gives ``path``, if any."""
        bare = urlsplit(path).path
        return next((name for pattern, name in self.routes if pattern.fullmatch(bare)), None)

    def page(self, path: str) -> tuple[int, str, bytes]:
        """Status, content type and body of the normal answer to ``path``, after ``delay``."""
        if self.delay and not path.startswith("/robots.txt"):
            time.sleep(self.delay)
        status, kind, body = self.plain_page(path)
        return status, kind, changed(body, self.change)

    def plain_page(self, path: str) -> tuple[int, str, bytes]:
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client leaving mid-answer is a test's point
            super().handle_error(request, client_address)


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.answer(200, "application/json", site.control(self.path, body))

        def do_GET(self) -> None:
            if self.path.startswith(_CONTROL):
                return self.answer(200, "application/json", site.control(self.path, b""))
            action = site.next_action(self.path, self.headers.get("User-Agent", ""))
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
            if name == "answer":
                return self.raw(*site.answers[arg])
            if name == "captcha":
                return self.answer(int(arg or 200), "text/html; charset=utf-8", site.captcha)
            if name.isdigit():
                headers = {"Retry-After": arg} if arg else {}
                return self.answer(int(name), "text/plain", f"HTTP {name}".encode(), headers)
            if (routed := site.routed(self.path)) is not None:
                return self.raw(*site.answers[routed])
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
            except ConnectionError:
                pass  # the client gave up (a timeout test)

        def raw(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
            """An answer as the test wrote it: header values are Latin-1 text standing for their bytes."""
            try:
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                if not any(key.lower() == "content-length" for key, _ in headers):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except ConnectionError:
                pass

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
            except ConnectionError:
                pass
            self.close_connection = True

    return Handler


class _Rows(dict[str, int]):
    """``site.scholar`` on the test's side: rows per Scholar user, each change sent to the server."""

    def __init__(self, site: FakeSite) -> None:
        super().__init__()
        self.site = site

    def __setitem__(self, user: str, rows: int) -> None:
        self.update({user: rows})

    def update(self, rows: Mapping[str, int] | None = None, /, **more: int) -> None:  # type: ignore[override]
        given = {**(rows or {}), **more}
        super().update(given)
        self.site.control("set", {"scholar": given})


class FakeSite:
    """The fake site in a process of its own, and the test's handle on it: ``site.url``, the settings
    (``site.robots = ...``), ``site.scholar[U] = rows``, ``site.fault(...)`` and the request log, each
    sent to or read from the server over loopback. Use as a context manager; the server stops at the
    end (or when this process ends: it serves while its stdin is open)."""

    def __init__(self, port: int = 0) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, str(port), "--while-stdin-is-open"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url:
            raise RuntimeError(f"the fake site did not start (exit code {self.process.wait()})")
        self.scholar = _Rows(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def __setattr__(self, name: str, value: Any) -> None:
        if name in SETTINGS:
            self.control("set", {name: value.decode("latin-1") if isinstance(value, bytes) else value})
        super().__setattr__(name, value)

    def control(self, command: str, payload: Any = None) -> Any:
        """Send ``command`` to the server (``payload`` as JSON) and give its JSON answer."""
        connection = http.client.HTTPConnection(urlsplit(self.url).netloc, timeout=30)
        try:
            body = None if payload is None else json.dumps(payload)
            connection.request("GET" if body is None else "POST", _CONTROL + command, body)
            answer = connection.getresponse()
            assert answer.status == 200, f"the fake site refused {command}: HTTP {answer.status}"
            return json.loads(answer.read())
        finally:
            connection.close()

    def fault(self, match: str, *actions: str) -> None:
        self.control("fault", [match, list(actions)])

    def answer(self, name: str, status: int, headers: list[tuple[str, str | bytes]], body: bytes) -> None:
        """Store an answer that ``answer:NAME`` sends as given (a bytes header value is sent byte for byte)."""
        sent = [(k, v.decode("latin-1") if isinstance(v, bytes) else v) for k, v in headers]
        self.control("answer", [name, status, sent, body.decode("latin-1")])

    def route(self, pattern: str, name: str) -> None:
        """Serve the stored answer ``name`` to every path that matches ``pattern``, from now on."""
        self.control("route", [pattern, name])

    def clear_faults(self) -> None:
        self.control("clear", {})

    @property
    def log(self) -> list[tuple[float, str, str]]:
        """Every request the server saw, in order: (time, path, user agent); ``time.monotonic`` is the
        system's monotonic clock, the same in both processes."""
        return [tuple(entry) for entry in self.control("log")]

    def paths(self, containing: str = "") -> list[str]:
        return [path for _, path, _ in self.log if containing in path]


def serve(argv: list[str]) -> None:
    """Serve on port ``argv[0]`` (0: any free one), Scholar users given as ``USER=ROWS``; print the URL."""
    site = Site(int(argv[0]))
    site.scholar.update({k: int(v) for k, v in (a.split("=") for a in argv[1:] if not a.startswith("--"))})
    threading.Thread(target=site.server.serve_forever, daemon=True).start()
    print(site.url, flush=True)
    if "--while-stdin-is-open" in argv:
        sys.stdin.read()  # the test's process ended, or stopped the site
    else:
        threading.Event().wait()


if __name__ == "__main__":  # serve until killed: python tests/helpers/fakesite.py PORT [USER=ROWS ...]
    serve(sys.argv[1:])
