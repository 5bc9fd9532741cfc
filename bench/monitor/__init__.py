"""``bench monitor``: a passive tap on a live table's link (docs/monitor.md).
``sources`` reads the two directions (a Y-cable's lines, or a relay) without
writing a byte of its own; ``watch`` decodes, judges and journals what they
carry as ``bench run`` does (``run_records``: its limits and its outcome);
``series`` rotates the journals; ``hourly`` reports each interval."""
