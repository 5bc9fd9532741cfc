"""CRC-16/CCITT-FALSE, the checksum of every frame.

Polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR; the
catalogue check value of b"123456789" is 0x29B1. ``binascii.crc_hqx`` is
exactly this CRC given the initial value, and runs in C.
"""

from __future__ import annotations

import binascii

INITIAL = 0xFFFF
CHECK_VALUE = 0x29B1  # CRC of b"123456789", from the CRC catalogue


def crc16_ccitt_false(data: bytes) -> int:
    return binascii.crc_hqx(data, INITIAL)
