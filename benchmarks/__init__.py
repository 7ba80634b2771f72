"""Speed, measured on demand: run each as ``python -m benchmarks.bench_<name>`` from the repository root."""
