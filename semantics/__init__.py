"""Semantics of SHA-1 round code: the term IR, x86 instructions, the SHA-1
specification and the prover. Never prints, exits or imports click."""
