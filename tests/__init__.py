"""The test suite (a package, so that test modules import each other as `tests.…`)."""

import sys

# Keep compiled test modules and bot modules (`__pycache__`, gitignored) even where the shell sets
# PYTHONDONTWRITEBYTECODE: otherwise every pytest-xdist worker of every run rewrites the asserts of
# all 150-odd test modules and compiles them and bot/ again, about 10 s of CPU each before its first
# test. This package is imported before any conftest, test module or bot module.
sys.dont_write_bytecode = False
