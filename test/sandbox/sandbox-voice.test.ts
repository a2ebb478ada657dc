import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandbox } from "../support/sandbox-run";
import { tempDir } from "../support/temp-dir";

describe("the sandbox shows her voice notes", () => {
  it("--echo with # Voice: a voice note is answered with a voice note, printed as [voice N s] with its words", async () => {
    const agents = tempDir();
    cpSync("agents", agents, { recursive: true });
    const file = join(agents, "Mira.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n# Voice\nspeaks: when spoken to\n`);
    const out = await sandbox(
      ["dm carol [voice samples/voice.ogg]", "/advance 2m", "dm carol: and in writing?", "/advance 2m"],
      { AGENTS_DIR: agents },
      { echo: true },
    );
    const mine = out.filter((l) => /^\[dm\] #\d+ Mira: /.test(l));
    expect(mine).toHaveLength(2);
    // The voice note's length is what its words take to say; its words are what she said.
    expect(mine[0]).toMatch(
      /^\[dm\] #\d+ Mira: \[voice \d+ s\] \(echo, not from a model\) Carol said: “\[voice 0:01\]” \(↩ #\d+\)$/,
    );
    // Written to, she writes ("when spoken to").
    expect(mine[1]).toMatch(
      /^\[dm\] #\d+ Mira: \(echo, not from a model\) Carol said: “and in writing\?” \(↩ #\d+\)$/,
    );
  });
});
