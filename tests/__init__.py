"""The test suite (a package, so that benchmarks/ and tools/ import its harness by name: tests.browser, ...)."""
