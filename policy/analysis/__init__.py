"""Pure helpers with no policy knowledge: shell commands and paths."""
