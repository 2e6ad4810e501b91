from __future__ import annotations

# Vendored dependencies
#
# parable.py: https://github.com/ldayton/Parable (see pyproject.toml [tool.dippy.vendor])
