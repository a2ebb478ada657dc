import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { curatedMemoryDir, curatedVisible, loadCuratedMemories } from "../../src/memory/curated";
import { tempDir } from "../support/temp-dir";

describe("curated memory files", () => {
  it("reads agents/<Name>/memory/<user id>.md, one memory per line", () => {
    const agents = tempDir();
    const dir = curatedMemoryDir(join(agents, "Mira.md"));
    expect(dir).toBe(join(agents, "Mira", "memory"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "1001.md"), "# Alice\n\n- plays the cello\n* lives in Lyon\nhates mornings\n");
    writeFileSync(join(dir, ".DS_Store"), "junk");
    expect(loadCuratedMemories(dir)).toEqual(
      new Map([
        [
          "1001",
          {
            lines: ["plays the cello", "lives in Lyon", "hates mornings"],
            // No Scope line: private (only in the person's own chat with the persona).
            scope: { everywhere: false, private: true, chats: [] },
          },
        ],
      ]),
    );
  });

  it("reads the scope a file states on its first line: everywhere, private (the default), or chats", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "1001.md"), "# Alice\nScope: everywhere\n- plays the cello\n");
    writeFileSync(join(dir, "1002.md"), "scope: Private\n- her door code is 4711\n");
    writeFileSync(join(dir, "1003.md"), "Scope: private, -1001500000001, -4000001\n- runs the book club\n");
    const files = loadCuratedMemories(dir);
    expect(files.get("1001")).toEqual({ lines: ["plays the cello"], scope: { everywhere: true } });
    expect(files.get("1002")).toEqual({
      lines: ["her door code is 4711"],
      scope: { everywhere: false, private: true, chats: [] },
    });
    expect(files.get("1003")?.scope).toEqual({
      everywhere: false,
      private: true,
      chats: ["-1001500000001", "-4000001"],
    });
    // Where each may be shown (the person must be present there too).
    expect(curatedVisible(files.get("1002")!.scope, "1002", "1002")).toBe(true);
    expect(curatedVisible(files.get("1002")!.scope, "1002", "-4000001")).toBe(false);
    expect(curatedVisible(files.get("1003")!.scope, "1003", "-4000001")).toBe(true);
    expect(curatedVisible(files.get("1003")!.scope, "1003", "-4000002")).toBe(false);
    expect(curatedVisible(files.get("1001")!.scope, "1001", "-4000002")).toBe(true);
    // A file the owner wrote without a Scope line never reaches a group.
    const unstated = tempDir();
    writeFileSync(join(unstated, "1004.md"), "- her door code is 4711\n");
    const u = loadCuratedMemories(unstated).get("1004")!.scope;
    expect(curatedVisible(u, "1004", "1004")).toBe(true);
    expect(curatedVisible(u, "1004", "-4000001")).toBe(false);

    const bad = tempDir();
    writeFileSync(join(bad, "1001.md"), "Scope: the book club\n- x\n");
    expect(() => loadCuratedMemories(bad)).toThrow(
      `${join(bad, "1001.md")}: bad scope entry "the book club"`,
    );
    const only = tempDir();
    writeFileSync(join(only, "1001.md"), "Scope: private\n");
    expect(() => loadCuratedMemories(only)).toThrow(`${join(only, "1001.md")}: empty`);
  });

  it("has none when the folder does not exist", () => {
    expect(loadCuratedMemories(join(tempDir(), "Mira", "memory")).size).toBe(0);
  });

  it("names the file in the error when a file is bad", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "alice.md"), "plays the cello");
    expect(() => loadCuratedMemories(dir)).toThrow(
      new ConfigError({
        file: join(dir, "alice.md"),
        problem: `"alice" is not a user id: name the file after the person's numeric Telegram user id, e.g. 123456789.md`,
      }),
    );

    const empty = tempDir();
    writeFileSync(join(empty, "1001.md"), "# Alice\n\n");
    expect(() => loadCuratedMemories(empty)).toThrow(`${join(empty, "1001.md")}: empty`);

    const latin1 = tempDir();
    writeFileSync(join(latin1, "1001.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(() => loadCuratedMemories(latin1)).toThrow(`${join(latin1, "1001.md")}: not valid UTF-8`);

    const other = tempDir();
    writeFileSync(join(other, "1001.txt"), "x");
    expect(() => loadCuratedMemories(other)).toThrow(`${join(other, "1001.txt")}: not a curated memory file`);
  });
});
