"""Claude Code Hooks package."""
