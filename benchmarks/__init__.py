"""Micro-benchmarks (run from the repo root, e.g. ``python -m benchmarks.bench_parse``)."""
