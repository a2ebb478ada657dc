import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withDotEnv } from "../../src/config/dotenv";
import { tempDir } from "../support/temp-dir";

/** The variables a `.env` with `text` gives, read the way every script reads it. */
function read(text: string): NodeJS.ProcessEnv {
  const file = join(tempDir(), ".env");
  writeFileSync(file, text);
  return withDotEnv({}, file);
}

describe(".env: every variable under the name it shows, or an error naming the line", () => {
  it("a file saved with a UTF-8 byte order mark (Windows editors) keeps its first variable's name", () => {
    const env = read("\uFEFFGEMINI_MODEL=gemini-2.5-pro\r\nLOG_LEVEL=debug\r\n");
    expect(env.GEMINI_MODEL).toBe("gemini-2.5-pro");
    expect(env.LOG_LEVEL).toBe("debug");
    expect(Object.keys(env).sort()).toEqual(["GEMINI_MODEL", "LOG_LEVEL"]);
  });

  it("`export  X=1`, `export<tab>X=1` and blanks around a name define X, not ' X'", () => {
    const env = read(
      "export  STATE_DB=a.db\nexport\tLOG_LEVEL=warn\n  HTTP_PORT = 8080\nexport AGENTS_DIR=x\n",
    );
    expect(env).toEqual({ STATE_DB: "a.db", LOG_LEVEL: "warn", HTTP_PORT: "8080", AGENTS_DIR: "x" });
  });

  it("a quoted value over several lines is kept whole (a continuation line is not rewritten)", () => {
    const env = read('NOTE="first\nexport  second"\nNEXT=1\n');
    expect(env).toEqual({ NOTE: "first\nexport  second", NEXT: "1" });
  });

  it("what it cannot parse is an error quoting the line, never a variable under a wrong name", () => {
    expect(() => read("A=1\nexport B\n")).toThrow(/line 2 is not NAME=value: "export B"/);
    expect(() => read("A=1\n\nGEMINI KEY=x\n")).toThrow(/line 3 is not NAME=value: "GEMINI KEY=x"/);
  });
});
