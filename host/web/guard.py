"""Who may ask the page anything: every request, on every bind, is looked at
here before anything else of it is read (its `Expect` too: aiohttp answers
an `Expect` before any middleware, echoing it), and each refusal is one line
that quotes nothing of the request.

- only requests for the page's own paths (origin-form: `GET /state`, never
  `GET http://host/state`, `*` or a CONNECT);
- a Host that names this machine (loopback names, its own names and
  addresses, with the port), so a site whose name is made to point here
  (DNS rebinding) is refused; an Origin, when sent, one of them too;
- never from another site: a browser's `Sec-Fetch-Site` other than
  `same-origin` (the page itself) or `none` (the address typed or opened);
- the run's secret, as Jupyter's token: the cookie, or `?token=` in the
  query (for scripts and the printed address), compared in constant time;
- every answer carries SECURITY_HEADERS: no framing, no Referer, no caching,
  no version in Server.
"""
from __future__ import annotations

import hmac
from typing import Awaitable, Callable

from aiohttp import web

from host.web.refusals import answer

# On every answer, refusals and aiohttp's own included. Server: aiohttp's default names its
# version and Python's, which tell a stranger what to try.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Server": "shuffler",
}
SAME_SITE = ("same-origin", "none")  # Sec-Fetch-Site of the page itself, or of the address opened

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def cookie_name(port: int) -> str:
    # Cookies ignore the port: one name per port keeps two guides on one machine apart.
    return f"shuffler_guide_{port}"


def _same(given: str, secret: str) -> bool:
    return hmac.compare_digest(given.encode(), secret.encode())


def refusal(request: web.BaseRequest, allowed: set[str], secret: str, port: int) -> web.Response | None:
    """The one-line refusal of a request that may not be answered; None when it may."""
    if not request.raw_path.startswith("/") or request.method == "CONNECT":  # absolute-form, `*`
        return answer(400, "not_ours")
    if request.headers.get("Host", "").lower() not in allowed:
        return answer(403, "foreign_host")
    origin = request.headers.get("Origin")
    if origin is not None and not (origin.lower().startswith("http://")
                                   and origin.lower().removeprefix("http://") in allowed):
        return answer(403, "foreign_site")
    if request.headers.get("Sec-Fetch-Site", "same-origin").lower() not in SAME_SITE:
        return answer(403, "foreign_site")
    token = request.query.get("token")
    if token is not None:
        return None if _same(token, secret) else answer(403, "wrong_token")
    cookie = request.cookies.get(cookie_name(port))
    if cookie is None:
        return answer(403, "no_secret")
    return None if _same(cookie, secret) else answer(403, "earlier_run")


class Guard:
    """The guard of one server: `judge` for each request, as its `Expect` is
    looked at (aiohttp's first look at it) and again in the middleware, which
    every answer passes. `allowed` and `mark` are the server's: the Host
    headers it answers, and what tells its connections apart (the person's,
    which keep their places, and strangers')."""

    def __init__(self, secret: str, port: Callable[[], int], allowed: Callable[[], set[str]],
                 mark: Callable[[web.BaseRequest, bool], None]) -> None:
        self.secret = secret
        self.port = port
        self.allowed = allowed
        self.mark = mark
        self.refused = 0

    def judge(self, request: web.BaseRequest) -> web.Response | None:
        refused = refusal(request, self.allowed(), self.secret, self.port())
        self.mark(request, refused is None)
        if refused is not None:
            self.refused += 1
            refused.force_close()  # nothing more of a stranger's is read on this connection
        return refused

    async def expect(self, request: web.Request) -> web.StreamResponse | None:
        """aiohttp's expect handler: a stranger's `Expect` is never answered
        (the refusal instead), the person's `100-continue` is; any other
        expectation is refused without quoting it."""
        refused = self.judge(request)
        if refused is not None:
            return refused
        if request.headers.get("Expect", "").lower() != "100-continue" or request.version < (1, 1):
            return answer(417, "no_expect")
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = self.judge(request)
        if refused is not None:
            return refused
        if request.path == "/" and "token" in request.query:
            # The secret leaves the address bar (and the history): a cookie, and / again.
            response = web.Response(status=303, headers={"Location": "/"}, text="the guide's page: /\n")
            response.set_cookie(cookie_name(self.port()), self.secret, path="/", httponly=True, samesite="Strict")
            return response
        return await handler(request)

    @staticmethod
    async def secure(request: web.Request, response: web.StreamResponse) -> None:
        """Every answer the application makes, as its headers go out (a WebSocket's
        handshake, a file, a refusal alike)."""
        response.headers.update(SECURITY_HEADERS)
