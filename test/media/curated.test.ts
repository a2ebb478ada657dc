import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { loadCuratedMedia } from "../../src/media/curated";
import { tempDir } from "../support/temp-dir";

function agentsWith(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("curated media files", () => {
  it("reads the persona's and the global files, keyed by unique id, stickers findable by set and name", () => {
    const dir = agentsWith({
      "Mira/media/stickers.json": JSON.stringify([
        {
          unique_id: "AgADBAsAAgKLowAB",
          kind: "sticker",
          sticker_set_name: "MiraCats",
          sticker_name: "😺",
          description: "a grinning cat",
        },
      ]),
      "media/common.json": JSON.stringify([{ unique_id: "AQADx", description: "the office dog" }]),
    });
    const c = loadCuratedMedia(dir, "Mira");
    expect(c.persona.get("AgADBAsAAgKLowAB")?.description).toBe("a grinning cat");
    expect(c.persona.bySticker("miracats", "😺")?.uniqueId).toBe("AgADBAsAAgKLowAB");
    expect(c.global.get("AQADx")?.description).toBe("the office dog");
    expect(loadCuratedMedia(dir, "Nobody").persona.size).toBe(0);
  });

  it("a bad file is an error naming the file and the entry", () => {
    const cases: [string, RegExp][] = [
      ["{ not json", /media\/bad\.json: is not valid JSON/],
      [JSON.stringify({ unique_id: "x" }), /media\/bad\.json: must be a JSON array of entries/],
      [
        JSON.stringify([{ unique_id: "ok", description: "fine" }, { unique_id: "AQ2" }]),
        /media\/bad\.json: entry 2 \(unique_id AQ2\): field "description"/,
      ],
      [JSON.stringify([{ unique_id: "a", description: "x", colour: "red" }]), /entry 1 \(unique_id a\)/],
      [
        JSON.stringify([
          { unique_id: "a", description: "x" },
          { unique_id: "a", description: "y" },
        ]),
        /entry 2 \(unique_id a\): unique_id repeated/,
      ],
      [
        JSON.stringify([{ unique_id: "a", kind: "hologram", description: "x" }]),
        /entry 1 \(unique_id a\): field "kind"/,
      ],
    ];
    for (const [text, message] of cases) {
      const dir = agentsWith({ "media/bad.json": text });
      let err: unknown;
      try {
        loadCuratedMedia(dir, "Mira");
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
    }
  });
});
