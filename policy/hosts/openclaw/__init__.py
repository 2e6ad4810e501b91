"""OpenClaw.NET's plugin bridge: `wire` — its hook_before / hook_after lines in,
`{allow}` out; `bridge` — `policy hook openclaw`."""
