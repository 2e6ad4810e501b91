"""Entry point for python -m dippy."""

from __future__ import annotations

from dippy.dippy import main

if __name__ == "__main__":
    main()
