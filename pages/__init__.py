"""The explorer's pages; ``ui`` and ``charts`` are shared helpers, not pages."""
