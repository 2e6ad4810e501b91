"""`python -m policy` is the `policy` command."""

from policy.cli import main

raise SystemExit(main())
