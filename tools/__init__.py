"""Developer tools: run each as ``python -m tools.<name>`` from the repository root."""
