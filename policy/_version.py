"""The single source of the package version (read by setuptools and `policy --version`)."""

__version__ = "0.1.0"
