"""Reusable pytest conformance kit for DSPy ``CodeInterpreter`` implementations.

Run with ``pytest conformance --interpreter package.module:Class``; see README.md.
"""
