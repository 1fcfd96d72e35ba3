"""sha1opt: a superoptimizer for SHA-1 round code on x86 (CLI in cli.py)."""
__version__ = "0.1.0"
