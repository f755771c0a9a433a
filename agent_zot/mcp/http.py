"""Serving MCP over streamable HTTP safely.

- A bearer token (`http_token`) is checked on every request through fastmcp's auth (a `TokenVerifier`,
  compared in constant time). Binding a non-loopback address without one is refused: anyone on the network
  could read the library.
- fastmcp's Host/Origin guard runs in strict mode on every address, loopback included: a Host header other
  than localhost, 127.0.0.1, the bind address or `http_allowed_hosts` is refused (421), and so is a browser
  Origin other than the server's own or `http_allowed_origins` (403). That is the protection against DNS
  rebinding, where a web page the user visits talks to a server on their own machine.
- Write modes over HTTP need the token even on loopback (a local web page could otherwise change the
  library); without one the server still answers reads.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from fastmcp.server.auth import AccessToken, TokenVerifier

from agent_zot.config import Settings, is_loopback
from agent_zot.errors import ConfigError

WRITES_NEED_TOKEN = (
    "Changing the library over HTTP needs a bearer token: set http_token (AGENT_ZOT_HTTP_TOKEN) for the "
    "server and send it as 'Authorization: Bearer ...'; nothing was changed."
)


class BearerToken(TokenVerifier):
    """One shared secret, as `Authorization: Bearer <token>`."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="agent-zot", scopes=[])
        return None


@dataclass(frozen=True, slots=True)
class HttpPlan:
    host: str
    port: int
    auth: BearerToken | None
    allowed_hosts: list[str]
    allowed_origins: list[str]


def http_plan(settings: Settings, host: str | None = None, port: int | None = None) -> HttpPlan:
    """How to serve: refused (ConfigError) when a non-loopback address would be served without a token."""
    host = host or settings.http_host
    port = port or settings.http_port
    token = settings.http_token.get_secret_value() if settings.http_token else ""
    if not token and not is_loopback(host):
        raise ConfigError(
            f"Refusing to serve HTTP on {host} without a bearer token: anyone who can reach it could read "
            "your library.",
            hint="Set http_token (or AGENT_ZOT_HTTP_TOKEN) to a long random secret, e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`, or serve on 127.0.0.1.",
        )
    hosts = [*settings.http_allowed_hosts]
    if not is_loopback(host) and host not in ("0.0.0.0", "::"):
        hosts.append(host)  # the guard compares host names; a port in the header is ignored
    return HttpPlan(
        host, port, BearerToken(token) if token else None, hosts, [*settings.http_allowed_origins]
    )
