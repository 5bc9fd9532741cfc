"""Protocol adapters: the bench speaks a vendor's own wire format
(docs/adapters.md). ``api`` says what an adapter is; ``registry`` finds them
(the bench's own protocol, ``native``, and every ``tablebench.adapters``
entry point); a third party's adapter is first loaded in a child process
(``probe``, its verdicts kept by ``verdicts``), the child and the bench both
loading it through ``loading``; ``lines``, ``stop_and_wait`` and ``tap`` are
the framing, delivery and passive listening an adapter gets for free;
``sentence`` is the example adapter, ``ascii-sentence``."""
