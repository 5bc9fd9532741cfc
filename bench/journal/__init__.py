"""The session record: the hash chain, the recorder every frame passes, the wire budget, seals and keys, how a session ended, and replay."""
