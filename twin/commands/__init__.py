"""``twin`` sub-commands, one module each (see ``tablebench_io.commandline``)."""
