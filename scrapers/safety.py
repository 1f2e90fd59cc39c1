"""Where a job may go and what it may write down: redirects kept to the target's site, no private
addresses unless the job asked for one, and no secrets (URL user-info, ``Authorization`` and
``Cookie`` values) in archives, logs or summaries. Both engines use these.

>>> redact_url("https://me:s3cret@mirror.example.org:8443/citations?user=x")
'https://***@mirror.example.org:8443/citations?user=x'
>>> redact_headers([("Authorization", "Basic bWU6czNjcmV0"), ("Accept", "*/*")])
[('Authorization', '[redacted]'), ('Accept', '*/*')]
>>> redirect_refusal("ftp://scholar.google.com/x", {"scholar.google.com"})
'redirect to ftp://scholar.google.com/x refused: only http and https are followed'
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from pubharvest.errors import RedirectRefused, Unreachable

from . import sites

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
REDACTED = "[redacted]"
_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")


def redact_url(url: str) -> str:
    """``url`` without the user name and password it may carry (``***@`` marks where they were)."""
    return _USERINFO.sub("***@", url, count=1)


def redact_text(text: str) -> str:
    """Every URL's user-info in ``text`` (a message, a log line) replaced by ``***``."""
    return _USERINFO.sub("***@", text)


def split_credentials(url: str) -> tuple[str, str | None]:
    """``url`` without its user-info, and the ``Authorization`` value (HTTP Basic) the user-info stood for.

    >>> split_credentials("http://me:pw@h.example:8/x")
    ('http://h.example:8/x', 'Basic bWU6cHc=')
    """
    import base64
    from urllib.parse import unquote

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return parts._replace(netloc=host).geturl(), f"Basic {token}"


def redact_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers with the values of credentials replaced (their names stay, so the archive shows they were sent)."""
    return [(name, REDACTED if name.lower() in SECRET_HEADERS else value) for name, value in headers]


def site_hosts(site: str, base_url: str) -> set[str]:
    """The hosts a target of ``site`` may be redirected to: its job's ``base_url`` host and the site's known hosts."""
    return {sites.host_of(base_url), *sites.SITES[site].hosts}


def redirect_refusal(location: str, allowed: set[str]) -> str | None:
    """Why a redirect to ``location`` is not followed (another scheme, another site), else None."""
    parts = urlsplit(location)
    shown = redact_url(location)
    if parts.scheme not in ("http", "https"):
        return f"redirect to {shown} refused: only http and https are followed"
    if sites.host_of(location) not in allowed:
        return f"redirect to {shown} refused: {parts.hostname} is not a host of the target's site"
    return None


def is_private(address: str) -> bool:
    """Whether ``address`` is loopback, private, link-local or otherwise not on the public internet.

    >>> is_private("127.0.0.1"), is_private("10.1.2.3"), is_private("::1"), is_private("142.250.74.46")
    (True, True, True, False)
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return not ip.is_global or ip.is_multicast


class AddressGuard:
    """Resolves each host once per job; refuses a private address unless a ``base_url`` of the job names that host.

    A name that does not resolve is ``Unreachable`` at once (a rerun may do better; retrying now would not).
    """

    def __init__(self, base_urls: Sequence[str], resolve: bool = True) -> None:
        self.trusted = {sites.host_of(url) for url in base_urls}
        self.resolved: dict[str, list[str]] = {}
        self.resolve = resolve  # False when requests go to a test transport, not to the network

    async def check(self, url: str) -> None:
        """Raise ``RedirectRefused`` for a private address not asked for, ``Unreachable`` for a name that
        does not exist (a temporary DNS failure is left to the client and its retries)."""
        if not self.resolve:
            return
        addresses = await self.addresses(url)
        if sites.host_of(url) in self.trusted:
            return
        private = next((a for a in addresses if is_private(a)), None)
        if private is not None:
            raise RedirectRefused(f"{redact_url(url)} refused: {urlsplit(url).hostname} is a private address "
                                  f"({private}) and no base_url of the job names it")

    async def addresses(self, url: str) -> list[str]:
        parts = urlsplit(url)
        name = parts.hostname or ""
        if name not in self.resolved:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(name, parts.port or 80, type=socket.SOCK_STREAM)
            except UnicodeError:  # an empty label, one over 63 characters, an xn-- label that is no punycode
                raise RedirectRefused(f"{redact_url(url)} refused: {name!r} is not a valid host name") from None
            except socket.gaierror as error:
                if error.errno in _NO_SUCH_NAME:
                    raise Unreachable(f"{name} does not resolve ({error.strerror}): not retried") from None
                return []
            self.resolved[name] = sorted({str(info[4][0]) for info in infos})
        return self.resolved[name]


_NO_SUCH_NAME = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}
