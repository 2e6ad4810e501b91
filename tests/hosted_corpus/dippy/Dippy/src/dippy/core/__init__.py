from __future__ import annotations

# Core utilities for Dippy
