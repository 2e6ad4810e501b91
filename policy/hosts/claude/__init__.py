"""Claude Code, and Agentao, which reads and writes Claude's hook vocabulary.

`wire` — the payloads both ways, the one event list, the JSON answers;
`server` + `decide` — `policy hook claude|agentao`;
`hooks_file` + `names` + `command` + `hosted` — their hooks.json command hooks, run
in our chain (the `claude_hooks` setting);
`context` — the context those hooks add, told apart from a rewrite for the answers.

Nothing is imported here: `policy hook claude` starts once per event, and loads only
the modules its answer needs.
"""
