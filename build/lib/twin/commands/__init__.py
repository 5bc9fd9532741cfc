"""``twin`` sub-commands, one module each (see ``twin.commandline``)."""
