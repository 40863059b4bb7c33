"""``clue-expert serve``: the table assistant as a local web app.

The only module that imports the web framework (Starlette, served by
uvicorn; ``pip install 'clue-expert[web]'``), and only inside
:func:`build_app` and :func:`serve`, so every other command starts without
them.  It routes requests to a :class:`~clue_expert.people.table.TableAssistant`
and serves the page ``table.html`` beside this module (inline CSS and script:
no CDN, works offline).

It listens on 127.0.0.1 unless ``--host`` names another address; then every
request, the page included, must carry the access token printed at start
(``?token=`` in the URL, or the ``X-Clue-Token`` header the page sends):
without it the answer is 403.
"""
from __future__ import annotations

import inspect
import json
import secrets
import socket
from pathlib import Path
from typing import Any, Callable

from ..core.errors import ClueError
from ..engine import DEFAULT_LEVEL
from .table import TableAssistant, TableError

PAGE = Path(__file__).with_name("table.html")
INSTALL_HINT = "pip install 'clue-expert[web]' (Starlette and uvicorn)"
#: Addresses that only this machine reaches: no token needed.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN_HEADER = "x-clue-token"


def needs_token(host: str) -> bool:
    """Whether a server listening on ``host`` must ask for the access token."""
    return host not in LOOPBACK


def lan_address() -> str:
    """This machine's address on the local network (the one its default route
    uses; no packet is sent), or its host name when there is none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()


def page_html(token: str | None = None) -> str:
    """The page, with the access token (if any) for its requests."""
    text = PAGE.read_text(encoding="utf-8")
    return text.replace("/*TOKEN*/null", '"' + token + '"' if token else "null")


def _web():
    """Starlette's pieces, or one clear error naming the extra."""
    try:
        from starlette.applications import Starlette
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse
        from starlette.routing import Route
    except ImportError:
        raise ClueError(f"serve needs Starlette, which is not installed: {INSTALL_HINT}") from None
    return Starlette, HTMLResponse, JSONResponse, PlainTextResponse, Route, run_in_threadpool


def build_app(table: TableAssistant, token: str | None = None):
    """The ASGI app of ``table``; with ``token``, every request must carry it."""
    import asyncio  # here, not at the top: only serve needs it, and every command would pay its import

    Starlette, HTMLResponse, JSONResponse, PlainTextResponse, Route, run_in_threadpool = _web()
    lock = asyncio.Lock()

    def allowed(request) -> bool:
        if token is None:
            return True
        given = request.query_params.get("token") or request.headers.get(TOKEN_HEADER) or ""
        return secrets.compare_digest(given.encode(), token.encode())

    def endpoint(fn, page: bool = False):
        async def handle(request):
            if not allowed(request):
                return PlainTextResponse("403: this table assistant needs its access token (the URL it printed)",
                                         status_code=403)
            if page:
                return HTMLResponse(page_html(token), headers={"Cache-Control": "no-store"})
            body = {}
            if request.method in ("POST", "PUT"):
                raw = await request.body()
                try:
                    body = json.loads(raw) if raw.strip() else {}
                except ValueError:
                    return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
                if not isinstance(body, dict):
                    return JSONResponse({"error": "the request body must be a JSON object"}, status_code=400)
            async with lock:  # one request at a time: the notebook and its file are shared
                try:  # deduction runs in a worker thread, so the server keeps answering meanwhile
                    return JSONResponse(await run_in_threadpool(fn, request, body))
                except TableError as exc:
                    return JSONResponse({"error": str(exc), **exc.detail}, status_code=exc.status)
                except ClueError as exc:
                    return JSONResponse({"error": str(exc)}, status_code=400)
        return handle

    routes = [
        Route("/", endpoint(None, page=True)),
        Route("/api/state", endpoint(lambda r, b: table.state())),
        Route("/api/preview", endpoint(lambda r, b: table.preview(b)), methods=["POST"]),
        Route("/api/new", endpoint(lambda r, b: table.new_game(b)), methods=["POST"]),
        Route("/api/turns", endpoint(lambda r, b: table.add(b)), methods=["POST"]),
        Route("/api/turns/{n:int}", endpoint(lambda r, b: table.edit(r.path_params["n"], b)), methods=["PUT"]),
        Route("/api/undo", endpoint(lambda r, b: table.undo()), methods=["POST"]),
        Route("/api/redo", endpoint(lambda r, b: table.redo()), methods=["POST"]),
        Route("/api/marks", endpoint(lambda r, b: table.mark(b)), methods=["PUT"]),
        Route("/api/cell", endpoint(lambda r, b: table.cell(r.query_params.get("owner", ""),
                                                            r.query_params.get("card", "")))),
        Route("/api/odds", endpoint(lambda r, b: table.odds())),
        Route("/api/advice", endpoint(lambda r, b: table.advice(r.query_params.get("strategy")))),
    ]
    return Starlette(routes=routes)


#: Seconds a stopped server waits for the requests under way.
STOP_WAIT = 1


def serve(path: str | Path, host: str = "127.0.0.1", port: int = 8765, knowledge: str = DEFAULT_LEVEL,
          say: Callable[[str], object] = print, engine: str | None = None) -> None:
    """Run the server until Ctrl-C, after saying (through ``say``) where to open it (``engine``: the
    rule engine of the game's knowledge, ``--engine``; None: the default)."""
    table = TableAssistant(path, knowledge, engine)
    token = secrets.token_urlsafe(16) if needs_token(host) else None
    app = build_app(table, token)
    try:
        import uvicorn
    except ImportError:
        raise ClueError(f"serve needs uvicorn, which is not installed: {INSTALL_HINT}") from None
    try:  # a port in use is one clear error, not a log line from uvicorn
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise ClueError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = lan_address()  # every address of this machine: the one a phone on the same network reaches
    url = f"http://{'127.0.0.1' if host in LOOPBACK else shown}:{port}/"
    if token:
        url += f"?token={token}"
        say(f"the table assistant, shared on {host}: open {url} (every request needs this token)")
    else:
        say(f"the table assistant: open {url}")
    say(f"the game is saved to {table.path} after every change; Ctrl-C stops the server")
    # a stop (Ctrl-C, SIGTERM) waits at most this long for requests under way (uvicorn >= 0.24;
    # without a bound a client that keeps a request open kept the server running)
    bounded: dict[str, Any] = {"timeout_graceful_shutdown": STOP_WAIT} \
        if "timeout_graceful_shutdown" in inspect.signature(uvicorn.Config).parameters else {}
    # no lifespan task (the app has no startup or shutdown step): a second Ctrl-C, which makes
    # uvicorn force its exit, cancelled that task and printed its traceback
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="off", **bounded)
