"""Where the emulated controller listens: a TCP port (one bench at a time,
``socket://`` on the bench's side), a fresh pty (the bench opens the printed
slave path), or any device path or pyserial URL (a null-modem cable to a
second serial port, say).

The first line on stdout says where to connect, so a parent process can read
it: ``listening socket://127.0.0.1:40123`` or ``listening /dev/pts/7``.
"""

from __future__ import annotations

import logging
import os
import select
import socket
from typing import Callable

from bench.protocol.link import Link, open_link, open_pty_pair
from bench.protocol import LinkClosed

log = logging.getLogger(__name__)

ACCEPT_POLL = 0.25


def parse_host_port(address: str) -> tuple[str, int] | None:
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or "/" in address:
        return None
    return host.strip("[]"), int(port)


def serve(address: str, run: Callable[[Link], None], *, announce=print,
          should_stop: Callable[[], bool] = lambda: False) -> None:
    """Open ``address`` and call ``run(link)`` for each connection until
    ``should_stop()``. ``run`` returns or raises LinkClosed when the bench goes."""
    host_port = parse_host_port(address)
    if address == "pty":
        master, slave, path = open_pty_pair()
        # Keeping our own slave descriptor open means the master never reads
        # EIO while no bench is attached, and a bench may close and reopen.
        try:
            announce(f"listening {path}")
            _run_until_closed(run, Link.from_fd(master, f"pty master of {path}"))
        finally:
            os.close(slave)
            try:
                os.close(master)
            except OSError:
                pass
    elif host_port is not None:
        with socket.create_server(host_port) as server:
            host, port = server.getsockname()[:2]
            announce(f"listening socket://{host}:{port}")
            while not should_stop():
                if not select.select([server], [], [], ACCEPT_POLL)[0]:
                    continue
                conn, peer = server.accept()
                link = Link.from_socket(conn, f"tcp connection from {peer[0]}:{peer[1]}")
                try:
                    _run_until_closed(run, link)
                finally:
                    link.close()
    else:
        link = open_link(address)
        try:
            announce(f"listening {address}")
            _run_until_closed(run, link)
        finally:
            link.close()


def _run_until_closed(run, link: Link) -> None:
    try:
        run(link)
    except LinkClosed as err:
        log.warning("%s", err)
