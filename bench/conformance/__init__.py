"""The protocol conformance kit: checks of a controller's link and session
layers against docs/protocol.md (``bench conformance``, and the same checks
as a pytest module, ``bench.conformance.test_controller``)."""
