import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { loadCuratedMedia, writeCuratedDescription } from "../../src/media/curated";
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

describe("writing a curated description (the operator console)", () => {
  it("rewrites the entry in the file that holds it, keeping its other fields and entries; a new one goes to console.json; the folder still loads", () => {
    const agents = tempDir();
    const dir = join(agents, "Mira", "media");
    mkdirSync(dir, { recursive: true });
    const hand = [
      {
        unique_id: "AAA",
        kind: "sticker",
        sticker_set_name: "Cats",
        sticker_name: "😺",
        description: "old words",
      },
      { unique_id: "BBB", kind: "photo", description: "a bridge" },
    ];
    writeFileSync(join(dir, "stickers.json"), JSON.stringify(hand));
    expect(
      writeCuratedDescription(dir, { uniqueId: "AAA", kind: "photo", description: "  a grinning cat  " }),
    ).toBe(join(dir, "stickers.json"));
    expect(writeCuratedDescription(dir, { uniqueId: "CCC", kind: "gif", description: "a dancing dog" })).toBe(
      join(dir, "console.json"),
    );
    expect(JSON.parse(readFileSync(join(dir, "stickers.json"), "utf8"))).toEqual([
      { ...hand[0], description: "a grinning cat" },
      hand[1],
    ]);
    expect(readdirSync(dir).sort()).toEqual(["console.json", "stickers.json"]);
    const loaded = loadCuratedMedia(agents, "Mira").persona;
    expect(loaded.get("AAA")).toMatchObject({
      kind: "sticker",
      stickerSet: "Cats",
      description: "a grinning cat",
    });
    expect(loaded.get("CCC")).toMatchObject({ kind: "gif", description: "a dancing dog" });
  });

  it("writes nothing when another file of the folder is bad, or the description is empty", () => {
    const dir = join(tempDir(), "media");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "broken.json"), "{ not json");
    expect(() => writeCuratedDescription(dir, { uniqueId: "AAA", description: "words" })).toThrow(
      ConfigError,
    );
    rmSync(join(dir, "broken.json"));
    expect(() => writeCuratedDescription(dir, { uniqueId: "AAA", description: "   " })).toThrow(ConfigError);
    expect(readdirSync(dir)).toEqual([]);
  });
});
