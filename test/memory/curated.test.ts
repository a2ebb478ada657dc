import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CuratedMemoryError, curatedMemoryDir, loadCuratedMemories } from "../../src/memory/curated";
import { tempDir } from "../support/temp-dir";

describe("curated memory files", () => {
  it("reads agents/<Name>/memory/<user id>.md, one memory per line", () => {
    const agents = tempDir();
    const dir = curatedMemoryDir(join(agents, "Mira.md"));
    expect(dir).toBe(join(agents, "Mira", "memory"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "1001.md"), "# Alice\n\n- plays the cello\n* lives in Lyon\nhates mornings\n");
    writeFileSync(join(dir, ".DS_Store"), "junk");
    expect(loadCuratedMemories(dir)).toEqual(new Map([["1001", ["plays the cello", "lives in Lyon", "hates mornings"]]]));
  });

  it("has none when the folder does not exist", () => {
    expect(loadCuratedMemories(join(tempDir(), "Mira", "memory")).size).toBe(0);
  });

  it("names the file in the error when a file is bad", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "alice.md"), "plays the cello");
    expect(() => loadCuratedMemories(dir)).toThrow(new CuratedMemoryError(join(dir, "alice.md"), `"alice" is not a user id: name the file after the person's numeric Telegram user id, e.g. 123456789.md`));

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
