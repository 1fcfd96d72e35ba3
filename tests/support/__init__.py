"""Helpers used only by the tests (running snippets natively, ...)."""
