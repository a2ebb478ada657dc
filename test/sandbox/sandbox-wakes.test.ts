/** A sandbox started while the persona sleeps starts at her waking, so what is typed is answered (planned) at once. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandbox } from "../support/sandbox-run";
import { tempDir } from "../support/temp-dir";

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe("the sandbox and the persona's sleep", () => {
  it("asleep at start: the sandbox starts when she wakes, says so, and the dry run prints the request", async () => {
    const now = Date.now();
    const from = hhmm(now - 3_600_000);
    const to = hhmm(now + 2 * 3_600_000);
    const agents = join(tempDir(), "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "Nora.md"),
      `# Agent Name\nNora\n\n# Agent Instructions\nBe nice.\n\n# Life\nA flat in Porto.\n\n# Time Zone\nUTC\n\n# Sleep\n${from}-${to}\n`,
    );
    const out = await sandbox(["dm carol: good morning!"], { AGENTS_DIR: agents });
    expect(out).toContain(
      `sandbox: Nora sleeps now (# Sleep, UTC); the sandbox starts when she wakes, ${new Date(now + 2 * 3_600_000).toISOString().slice(0, 10)} ${to} her time (/now tells the time, /advance moves it).`,
    );
    expect(out.some((l) => l.startsWith("--- dry run"))).toBe(true);
    expect(out.find((l) => l.startsWith("⟦now⟧"))).toMatch(
      new RegExp(` ${to} \\(UTC\\); you just woke up\\.`),
    );
  });
});
