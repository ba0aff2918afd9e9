"""Where the page is served and by which names this machine is reached:
`--bind` read, the loopback and LAN binds told apart, and the names and
addresses a page may use in its Host (anything else is a stranger's)."""
from __future__ import annotations

import ipaddress
import socket

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")


def parse_bind(text: str) -> tuple[str, int]:
    """'HOST', 'HOST:PORT', ':PORT' or 'PORT' -> (host, port); ValueError with one line."""
    text = text.strip()
    host, port = DEFAULT_HOST, DEFAULT_PORT
    if text.isdigit():
        port = int(text)
    elif text.startswith("["):  # [::1]:8765
        inside, _, rest = text[1:].partition("]")
        host = inside
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit():
                raise ValueError(f"not an address: {text!r} (HOST:PORT)")
            port = int(rest[1:])
    elif text.count(":") == 1:
        host, _, p = text.partition(":")
        host = host or DEFAULT_HOST
        if not p.isdigit():
            raise ValueError(f"not a port: {p!r} (HOST:PORT, PORT from 0 to 65535)")
        port = int(p)
    elif text:
        host = text
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not between 0 and 65535")
    if not host or any(c.isspace() for c in host):
        raise ValueError(f"not a host: {host!r}")
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_lan_bind(host: str) -> bool:
    """Whether other machines can reach a server bound to `host`."""
    return host in ANY_ADDRESS or not is_loopback(host)


def hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def route_address(family: socket.AddressFamily = socket.AF_INET) -> str | None:
    """The address this machine would use to reach the network, or None.
    Connecting a UDP socket only picks the route: no packet is sent."""
    target = ("192.0.2.1", 9) if family == socket.AF_INET else ("2001:db8::1", 9)  # documentation addresses
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(target)
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if address in ("0.0.0.0", "::") else address


def own_names(host: str) -> set[str]:
    """The names and addresses of this machine a page may use to reach a
    server bound to `host` (lower case, without the port)."""
    names = set(LOCAL_NAMES)
    if host not in ANY_ADDRESS:
        names.add(host)
    for name in {socket.gethostname(), socket.getfqdn()}:
        if not name:
            continue
        names.add(name)
        try:
            names |= {str(info[4][0]).partition("%")[0] for info in socket.getaddrinfo(name, None)}
        except (OSError, UnicodeError):
            pass  # a name that does not resolve: the name alone
    if is_lan_bind(host):
        for family in (socket.AF_INET, socket.AF_INET6):
            address = route_address(family)
            if address is not None:
                names.add(address)
    return {n.lower() for n in names}


def allowed_hosts(names: set[str], port: int) -> set[str]:
    """Host headers accepted (lower case): this machine's names and addresses, with the port."""
    hosts = {hostport(n, port) for n in names}
    if port == 80:  # a browser leaves the default port out
        hosts |= {f"[{n}]" if ":" in n else n for n in names}
    return hosts
