import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { humanDuration } from "../../../src/telegram/login/login-error";
import { terminalPrompts } from "../../../src/telegram/login/prompts";
import { writeSessionFile } from "../../../src/telegram/connection/session-file";
import { tempDir } from "../../support/temp-dir";

describe("session file", () => {
  it("replaces an old, too-open file by a 0600 one through a temp file and rename", () => {
    const dir = tempDir();
    const file = join(dir, "sessions", "Mira.session");
    mkdirSync(join(dir, "sessions"));
    writeFileSync(file, "old\n");
    chmodSync(file, 0o644);
    const inodeBefore = statSync(file).ino;

    writeSessionFile(file, "1new-session");

    expect(readFileSync(file, "utf8")).toBe("1new-session\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).ino).not.toBe(inodeBefore); // a new file renamed into place, not rewritten
    expect(readdirSync(join(dir, "sessions"))).toEqual(["Mira.session"]);
  });

  it("leaves what was there and no temp file when the final rename fails", () => {
    const dir = tempDir();
    const file = join(dir, "Mira.session");
    mkdirSync(file); // a directory where the file should go: rename fails
    writeFileSync(join(file, "keep"), "x");
    expect(() => writeSessionFile(file, "1new-session")).toThrow();
    expect(readdirSync(dir)).toEqual(["Mira.session"]);
    expect(readFileSync(join(file, "keep"), "utf8")).toBe("x");
  });

  it("refuses to save an empty session", () => {
    expect(() => writeSessionFile(join(tempDir(), "x.session"), "")).toThrow(/empty session/);
  });
});

describe("terminal prompts", () => {
  it("fail at once with a clear message when standard input is closed", async () => {
    const stdin = Readable.from([]) as unknown as NodeJS.ReadStream;
    stdin.resume();
    await new Promise((r) => stdin.once("end", r));
    await expect(terminalPrompts(stdin).text("Login code")).rejects.toThrow(
      'standard input is closed: no answer to "Login code"',
    );
  });
});

describe("flood wait wording", () => {
  it("uses human units", () => {
    expect(humanDuration(1)).toBe("1 second");
    expect(humanDuration(45)).toBe("45 seconds");
    expect(humanDuration(61)).toBe("2 minutes");
    expect(humanDuration(3600)).toBe("1 hour");
    expect(humanDuration(86_300)).toBe("23 hours 59 minutes");
  });
});
