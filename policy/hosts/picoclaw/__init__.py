"""PicoClaw's process hooks (JSON-RPC 2.0 over stdio), from both sides.

`wire` — its params and answers, both directions, both dialects; `hook_process` +
`ledger` — `policy hook picoclaw`, where we are the hook; `hosted` + `jsonrpc` — the
process hooks we start and ask, where we are the host (the `hooks:` setting they come
from, which copies PicoClaw's, is `policy.hooks_config`).
"""
