"""Open the link to a controller from a URL, the same way for real and
emulated hardware.

``open_link(url)`` goes through pyserial's ``serial_for_url``: a device path
(``/dev/ttyUSB0``, a pty slave such as ``/dev/pts/5``), ``socket://host:port``,
``rfc2217://host:port``, ``spy://DEVICE?file=tap.txt`` to tap the wire, or
``loop://``. ``open_pty_pair()`` makes a pseudo-terminal with both ends in raw
mode, for an emulated controller in another process; ``Link.from_fd`` wraps a
raw file descriptor (a pty master, an accepted socket) for the emulator's side.

Every read has a timeout: ``Link.read_some(timeout)`` waits at most
``timeout`` seconds, and refuses None, zero-or-less and infinite waits.
"""

from __future__ import annotations

import errno
import math
import os
import select
import socket
from typing import TYPE_CHECKING

from bench.protocol.errors import LinkClosed, LinkError

if TYPE_CHECKING:
    import serial

# pyserial is imported when a link first needs it (``_pyserial``): on POSIX its
# package imports its POSIX backend, which needs termios and fcntl, so importing
# it up front would keep ``import bench`` (and the pytest plugin) from working
# where they do not exist (Windows, where pyserial brings its own backend); a
# link over a file descriptor or a socket never needs pyserial at all.
_SERIAL_ERRORS: tuple[type[BaseException], ...] = ()       # (serial.SerialException,) once loaded
_SERIAL_TIMEOUTS: tuple[type[BaseException], ...] = ()     # (serial.SerialTimeoutException,) once loaded
_POSIX_SERIAL: type | None = None                          # pyserial's POSIX Serial, where there is one


def _pyserial():
    """pyserial, imported (and its exceptions noted) on first use."""
    global _SERIAL_ERRORS, _SERIAL_TIMEOUTS, _POSIX_SERIAL
    import serial
    if not _SERIAL_ERRORS:
        try:
            from serial.serialposix import Serial
            _POSIX_SERIAL = Serial
        except ImportError:    # not a POSIX system: pyserial does every read and write
            _POSIX_SERIAL = None
        _SERIAL_TIMEOUTS = (serial.SerialTimeoutException,)
        _SERIAL_ERRORS = (serial.SerialException,)
    return serial

BAUDRATE = 115200
WRITE_TIMEOUT = 2.0          # a write that cannot drain in 2 s means the peer is gone
_POLL = 0.005                # read granularity for ports without a file descriptor (loop://, rfc2217://)
_CHUNK = 4096


class Link:
    """A byte pipe with bounded reads. Build one with ``open_link``,
    ``Link.from_fd`` or ``Link.from_socket``."""

    def __init__(self, *, port: serial.SerialBase | None = None, fd: int | None = None,
                 owner: socket.socket | None = None, description: str):
        self._port = port
        self._fd = fd
        self._owner = owner          # keeps a socket object alive while we use its fd
        self.description = description
        self._select_fd = None
        if port is not None:
            try:
                self._select_fd = port.fileno()
            except (AttributeError, NotImplementedError, OSError):   # (pyserial's errors are OSErrors)
                self._select_fd = None
            # With a file descriptor we wait in select() and then read what is
            # there without blocking; without one, pyserial waits _POLL at a time.
            port.timeout = 0 if self._select_fd is not None else _POLL
            if self._select_fd is not None and type(port) is _POSIX_SERIAL:   # not spy://, which logs in read/write
                # A device or pty that pyserial opened non-blocking: read and
                # write its descriptor directly. pyserial's own read and write
                # select() again around every call, which doubles the system
                # calls of a link that exchanges a few frames a millisecond.
                self._fd = self._select_fd
            try:
                port.write_timeout = WRITE_TIMEOUT
            except NotImplementedError:
                pass   # rfc2217:// has no write timeout; its socket send fails when the server goes

    @classmethod
    def from_fd(cls, fd: int, description: str) -> "Link":
        os.set_blocking(fd, False)
        return cls(fd=fd, description=description)

    @classmethod
    def from_socket(cls, sock: socket.socket, description: str) -> "Link":
        sock.setblocking(False)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # latency only
        return cls(fd=sock.fileno(), owner=sock, description=description)

    def read_some(self, timeout: float) -> bytes:
        """Whatever bytes arrive within ``timeout`` seconds (b"" if none).
        Raises LinkClosed when the other end has gone."""
        if timeout is None or not (0 <= timeout < math.inf):
            raise ValueError(f"a read needs a finite timeout, got {timeout!r}")
        try:
            if self._fd is not None:
                if not select.select([self._fd], [], [], timeout)[0]:
                    return b""
                data = os.read(self._fd, _CHUNK)
                if not data:
                    raise LinkClosed(f"{self.description}: closed by the other end")
                return data
            port = self._port
            # Without a file descriptor of its own, a link reads its pyserial port: __init__ set one of them.
            assert port is not None, "a link has a file descriptor or a port"
            if self._select_fd is not None:
                if not select.select([self._select_fd], [], [], timeout)[0]:
                    return b""
                return port.read(_CHUNK)
            return self._read_polling(port, timeout)
        except BlockingIOError:
            return b""
        except _SERIAL_ERRORS as err:     # (a subclass of OSError: caught first)
            raise LinkClosed(f"{self.description}: {err}") from None
        except (ConnectionResetError, BrokenPipeError):
            raise LinkClosed(f"{self.description}: closed by the other end") from None
        except OSError as err:
            if err.errno == errno.EIO:   # a pty whose other side is closed
                raise LinkClosed(f"{self.description}: closed by the other end") from None
            raise LinkError(f"{self.description}: read failed: {err}") from None

    def _read_polling(self, port: serial.SerialBase, timeout: float) -> bytes:
        waited = 0.0
        while True:
            waiting = port.in_waiting
            if waiting:
                return port.read(waiting)
            if timeout <= 0:
                return b""      # a look at what has arrived, without waiting
            data = port.read(1)          # waits at most _POLL
            if data:
                return data + port.read(port.in_waiting)
            waited += _POLL
            if waited >= timeout:
                return b""

    def write(self, data: bytes) -> None:
        try:
            if self._fd is None:
                # Without a file descriptor of its own, a link writes to its pyserial port: __init__ set one of them.
                assert self._port is not None, "a link has a file descriptor or a port"
                written = self._port.write(data)
                if written is not None and written != len(data):
                    raise LinkError(f"{self.description}: wrote {written} of {len(data)} bytes")
                return
            view = memoryview(data)
            while view:
                if not select.select([], [self._fd], [], WRITE_TIMEOUT)[1]:
                    raise LinkError(f"{self.description}: write blocked for {WRITE_TIMEOUT} s")
                view = view[os.write(self._fd, view):]
        except _SERIAL_TIMEOUTS:
            raise LinkError(f"{self.description}: write blocked for {WRITE_TIMEOUT} s") from None
        except _SERIAL_ERRORS as err:
            raise LinkClosed(f"{self.description}: {err}") from None
        except (BrokenPipeError, ConnectionResetError):
            raise LinkClosed(f"{self.description}: closed by the other end") from None
        except OSError as err:
            if err.errno == errno.EIO:
                raise LinkClosed(f"{self.description}: closed by the other end") from None
            raise LinkError(f"{self.description}: write failed: {err}") from None

    def close(self) -> None:
        if self._port is not None:
            self._port.close()
        elif self._owner is not None:
            self._owner.close()
        elif self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_link(url: str, *, baudrate: int = BAUDRATE) -> Link:
    """Open a device path or pyserial URL. Raises LinkError naming the URL."""
    serial = _pyserial()
    # A device path is opened for this process alone (pyserial's exclusive: an advisory lock
    # every pyserial opener honours): a second bench on the line, or a bench that reconnects to
    # a path the system has since given to another pseudo-terminal (a tap's, a Y-cable's), is
    # refused with a LinkError, instead of reading, and so stealing, the bytes the owner was sent.
    local = "://" not in url and os.name == "posix"
    try:
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0, **({"exclusive": True} if local else {}))
    except (serial.SerialException, ValueError, OSError) as err:
        raise LinkError(f"cannot open link {url!r}: {err}") from None
    if url.startswith("socket://"):
        try:
            port._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (AttributeError, OSError):
            pass   # only latency, never correctness, depends on it
    return Link(port=port, description=url)


def pty_available() -> bool:
    """Whether this system has pseudo-terminals (POSIX; not Windows, where the
    emulated controller listens on TCP instead)."""
    try:
        import termios  # noqa: F401
        import tty  # noqa: F401
    except ImportError:
        return False
    return hasattr(os, "openpty")


def open_pty_pair() -> tuple[int, int, str]:
    """A pseudo-terminal with both ends in raw mode (8 bits, no echo, no line
    editing, no CR/LF translation). Returns (master_fd, slave_fd, slave_path):
    one process keeps the master, the other opens the slave path. POSIX only
    (``pty_available``): termios and tty are imported here, not with the module."""
    import termios
    import tty
    master, slave = os.openpty()
    for fd in (master, slave):
        tty.setraw(fd, termios.TCSANOW)
    return master, slave, os.ttyname(slave)
