import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/** Runs createLogger in a child process (it writes to fd 2) and returns what reached stderr. */
function logWith(env: Record<string, string>): string {
  const code = `
    import { createLogger } from "./src/runtime/logger.ts";
    const log = createLogger({ level: "info", format: process.env.FORMAT || undefined }).child({ agent: "Mira" });
    log.info({ component: "runtime", chatId: "42", apiHash: "0123456789abcdef0123456789abcdef", err: { session: "1BQANOTASECRET" } }, "agent started");
    log.debug("hidden at info");
  `;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  expect(r.status).toBe(0);
  return r.stderr;
}

describe("process logger", () => {
  it("writes JSON lines when stderr is not a terminal, with agent and chat, secrets redacted", () => {
    const out = logWith({});
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      agent: "Mira",
      chatId: "42",
      msg: "agent started",
      apiHash: "[redacted]",
      err: { session: "[redacted]" },
    });
    expect(out).not.toContain("0123456789abcdef0123456789abcdef");
    expect(out).not.toContain("1BQANOTASECRET");
  });

  it("writes human-readable lines through pino-pretty when asked (the default on a terminal)", () => {
    const out = logWith({ FORMAT: "pretty" });
    expect(out).toMatch(/INFO.*agent started/);
    expect(out).toContain('agent: "Mira"');
    expect(() => JSON.parse(out.split("\n")[0]!)).toThrow();
    expect(out).not.toContain("0123456789abcdef0123456789abcdef");
    expect(out).not.toContain("1BQANOTASECRET");
  });
});
