"""Integration tests: several toolerr packages and the real frameworks together."""
