"""Claude Code, and Agentao, which reads and writes Claude's hook vocabulary.

`dialect` — what tells the hosts of this vocabulary apart, one `Dialect` each;
`wire` — the payloads both ways, the one event list, the JSON answers;
`hook_process` + `decide` — `policy hook claude|agentao`; `thin` — the same, through
`policy serve`;
`hooks_file` + `names` + `command` + `hosted` — their hooks.json command hooks, run
in our chain (the `claude_hooks` setting);
`mount` — `policy check --host`: is `policy hook` mounted in the host's settings so
that it can keep its word;
`context` — the context those hooks add, told apart from a rewrite for the answers.

Nothing is imported here: `policy hook claude` starts once per event, and loads only
the modules its answer needs.
"""
