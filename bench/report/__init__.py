"""What a session comes to: the summary and JUnit XML, the session report page, the facts it is built from, and a round's outcome as a picture."""
