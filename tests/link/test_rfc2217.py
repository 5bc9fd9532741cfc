"""A networked serial server (RFC 2217) in front of the emulator's pty: the
bench reaches the controller through ``rfc2217://`` exactly as through a
local port. The server is pyserial's own PortManager, run in a thread."""

from __future__ import annotations

import select
import socket
import threading

import pytest
import serial
import serial.rfc2217

from tests.link.conftest import connect, hello, of, play_round


class PtyPort(serial.Serial):
    """A pty has no modem lines to report; PortManager asks for them."""

    cts = dsr = ri = cd = property(lambda self: False)

    def _update_rts_state(self):   # no RTS, DTR or break lines to set either
        pass

    def _update_dtr_state(self):
        pass

    def _update_break_state(self):
        pass


class Writer:
    """PortManager writes its telnet answers with ``write``."""

    def __init__(self, conn: socket.socket):
        self.write = conn.sendall


def serve_rfc2217(device: str, listener: socket.socket, stop: threading.Event) -> None:
    """A minimal RFC 2217 server: one client, bytes both ways, telnet options
    handled by PortManager."""
    conn, _ = listener.accept()
    port = PtyPort(device, timeout=0)
    manager = serial.rfc2217.PortManager(port, Writer(conn))
    try:
        while not stop.is_set():
            ready = select.select([conn, port.fileno()], [], [], 0.05)[0]
            if port.fileno() in ready:
                data = port.read(4096)
                if data:
                    conn.sendall(b"".join(manager.escape(data)))
            if conn in ready:
                data = conn.recv(4096)
                if not data:
                    break
                port.write(b"".join(manager.filter(data)))
    finally:
        port.close()
        conn.close()


@pytest.mark.filterwarnings("ignore:set(Daemon|Name)\\(\\) is deprecated:DeprecationWarning")   # pyserial 3.5's own
def test_a_round_through_an_rfc2217_serial_server(emulator):
    game = "lightning-dice"
    with emulator("--game", game, "--seed", "3", listen="pty") as path:
        listener = socket.create_server(("127.0.0.1", 0))
        stop = threading.Event()
        server = threading.Thread(target=serve_rfc2217, args=(path, listener, stop), daemon=True)
        server.start()
        try:
            session = connect(f"rfc2217://127.0.0.1:{listener.getsockname()[1]}", game)
            try:
                _, opened = hello(session, game)
                said = play_round(session, game, opened["round"], [("w1", "total:10", 100)],
                                  [dict(dice=(6, 3, 1), flat=(True, True, True))])
            finally:
                session.port.close()
        finally:
            stop.set()
            server.join(timeout=5)
            listener.close()
    assert of(said, "RESULT")[0]["dice"] == (6, 3, 1)
    assert of(said, "SETTLED")[0]["wagers"] == 1
