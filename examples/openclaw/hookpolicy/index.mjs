// hookpolicy as an OpenClaw.NET tool hook.
//
// OpenClaw.NET runs every bridge plugin inside its own node process (plugin-bridge.mjs)
// and asks it about each tool call with `hook_before` / `hook_after`. This plugin keeps
// one `policy hook openclaw` process running and forwards those events to it, in the
// same line format OpenClaw writes to a bridge.
//
// OpenClaw ALLOWS a call when a hook throws, answers late (5 s) or is not registered at
// all. So this file never throws from a handler, answers `false` whenever it has no
// verdict from hookpolicy in time, and registers its handlers even when hookpolicy
// cannot start (then every call is denied and the reason is logged) — a plugin that
// fails to load would be no hook at all. For the same reason the manifest has no
// configSchema: a config that fails OpenClaw's validation unloads the plugin; this file
// checks the config itself and denies everything when it is wrong.
//
// Config (OpenClaw:Plugins:Entries:hookpolicy:Config):
//   command   argv of the policy process (no shell), default ["policy","hook","openclaw"]
//   budgetMs  how long a tool:before waits for hookpolicy, default 4500 (< OpenClaw's 5000)

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const DEFAULT_COMMAND = ["policy", "hook", "openclaw"];
const DEFAULT_BUDGET_MS = 4500;
const INIT_TIMEOUT_MS = 45000; // OpenClaw gives the whole plugin init 60 s
const RESPAWN_PAUSE_MS = 1000;

function readConfig(config) {
  const problems = [];
  let command = DEFAULT_COMMAND;
  if (config.command !== undefined) {
    if (Array.isArray(config.command) && config.command.length > 0) {
      // OpenClaw rebuilds Config from appsettings: "5" arrives as 5, "true" as true.
      command = config.command.map(String);
    } else {
      problems.push("config.command must be a non-empty array of strings");
    }
  }
  let budgetMs = DEFAULT_BUDGET_MS;
  if (config.budgetMs !== undefined) {
    const value = Number(config.budgetMs);
    if (Number.isFinite(value) && value > 0 && value < 5000) {
      budgetMs = value;
    } else {
      problems.push("config.budgetMs must be a number of milliseconds below 5000");
    }
  }
  return { command, budgetMs, problem: problems.join("; ") };
}

// One `policy hook openclaw` child; requests matched to answers by id.
class PolicyProcess {
  constructor(command, logger) {
    this.command = command;
    this.logger = logger;
    this.child = null;
    this.pending = new Map();
    this.nextId = 0;
    this.lastSpawn = 0;
    this.down = "not started";
  }

  spawn() {
    this.lastSpawn = Date.now();
    const env = { ...process.env };
    // The bridge's own transport settings (and its socket token) are not ours.
    for (const name of Object.keys(env)) {
      if (name.startsWith("OPENCLAW_BRIDGE_")) delete env[name];
    }
    let child;
    try {
      child = spawn(this.command[0], this.command.slice(1), {
        stdio: ["pipe", "pipe", "inherit"],
        env,
      });
    } catch (error) {
      this.down = `cannot start ${this.command[0]}: ${error?.message ?? error}`;
      return false;
    }
    this.child = child;
    this.down = "";
    child.stdin.on("error", () => {}); // a dead child: its exit handler settles the calls
    child.on("error", (error) => this.lost(child, `cannot run ${this.command[0]}: ${error?.message ?? error}`));
    child.on("exit", (code, signal) => this.lost(child, `policy process exited (${signal ?? code})`));
    createInterface({ input: child.stdout, terminal: false }).on("line", (line) => this.receive(line));
    return true;
  }

  lost(child, why) {
    if (this.child !== child) return;
    this.child = null;
    this.down = why;
    this.logger.error(why);
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.resolve({ error: why });
    }
  }

  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.logger.error(`policy process wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const entry = this.pending.get(message?.id);
    if (!entry) return;
    this.pending.delete(message.id);
    clearTimeout(entry.timer);
    entry.resolve(message);
  }

  // Resolves to the answer line, or to {error} — never rejects.
  request(method, params, timeoutMs) {
    if (!this.child && Date.now() - this.lastSpawn >= RESPAWN_PAUSE_MS) this.spawn();
    const child = this.child;
    if (!child) return Promise.resolve({ error: this.down || "policy process is not running" });
    const id = String(++this.nextId);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ error: `no answer from the policy process within ${timeoutMs} ms` });
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      child.stdin.write(JSON.stringify({ method, id, params }) + "\n");
    });
  }
}

export default async function register(api) {
  const logger = api.logger ?? console;
  const { command, budgetMs, problem } = readConfig(api.pluginConfig ?? api.config ?? {});
  const policy = problem ? null : new PolicyProcess(command, logger);

  if (problem) {
    logger.error(`hookpolicy is misconfigured, every tool call is denied: ${problem}`);
  } else {
    policy.spawn();
    const init = await policy.request(
      "init",
      { entryPath: "", pluginId: api.pluginId ?? "hookpolicy", transport: { mode: "stdio" } },
      INIT_TIMEOUT_MS,
    );
    if (init.error !== undefined) {
      const why = init.error?.message ?? init.error;
      logger.error(`hookpolicy did not start, tool calls are denied until it does: ${why}`);
    }
    for (const diagnostic of init.result?.diagnostics ?? []) {
      logger.error(`hookpolicy: ${diagnostic.message}`);
    }
  }

  api.on("tool:before", async (ctx) => {
    try {
      if (!policy) {
        logger.warn(`hookpolicy denied ${ctx.toolName}: ${problem}`);
        return false;
      }
      const answer = await policy.request(
        "hook_before",
        { eventName: "tool:before", toolName: ctx.toolName, arguments: ctx.arguments },
        budgetMs,
      );
      if (answer.result?.allow === true) return true;
      const why = answer.result?.reason ?? answer.error?.message ?? answer.error ?? "no verdict";
      logger.warn(`hookpolicy denied ${ctx.toolName}: ${why}`);
      return false;
    } catch (error) {
      logger.error(`hookpolicy failed closed on ${ctx?.toolName}: ${error?.message ?? error}`);
      return false;
    }
  });

  api.on("tool:after", async (ctx) => {
    try {
      if (!policy) return;
      await policy.request(
        "hook_after",
        {
          eventName: "tool:after",
          toolName: ctx.toolName,
          arguments: ctx.arguments,
          result: ctx.result,
          durationMs: ctx.duration,
          failed: ctx.failed,
        },
        budgetMs,
      );
    } catch (error) {
      logger.error(`hookpolicy tool:after failed: ${error?.message ?? error}`);
    }
  });
}
