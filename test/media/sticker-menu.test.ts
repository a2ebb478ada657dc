import { describe, expect, it } from "vitest";
import { parsePersona } from "../../src/config/persona";
import { ConfigError } from "../../src/config/config-error";
import { CuratedMedia } from "../../src/media/curated";
import { STICKER_MENU_MAX_CHARS, stickerMenu } from "../../src/media/sticker-menu";

const BASE = "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n\n";
const persona = (extra: string) => parsePersona(BASE + extra, { file: "agents/Mira.md", promptDirs: [] });
const entry = (uniqueId: string, stickerSet: string, stickerName: string, description: string) => ({
  uniqueId,
  stickerSet,
  stickerName,
  description,
  file: "x.json",
});

describe("# Agent Stickers and the sticker section", () => {
  it("parses set::name lines beside # Agent Sticker Sets; a bad or repeated line names the field", () => {
    const p = persona(
      "# Agent Sticker Sets\nMiraCats\n\n# Agent Stickers\nMiraCats::😺\nDogs_by_bot :: 🐶\n",
    );
    expect(p.stickers).toEqual([
      { set: "MiraCats", name: "😺" },
      { set: "Dogs_by_bot", name: "🐶" },
    ]);
    expect(persona("").stickers).toEqual([]);
    for (const bad of ["just a line", "Bad Set::😺", "Cats::", "Cats::😺\nCats::😺"]) {
      let err: unknown;
      try {
        persona(`# Agent Stickers\n${bad}\n`);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).field).toBe("Agent Stickers");
    }
  });

  it("lists the explicit stickers and the curated stickers of its sets, with descriptions when known, then the sets", () => {
    const p = persona("# Agent Sticker Sets\nMiraCats\n\n# Agent Stickers\nDogs::🐶\nDogs::🦴\n");
    const curated = {
      persona: new CuratedMedia([entry("a", "Dogs", "🐶", "a puppy tilting its head")]),
      global: new CuratedMedia([
        entry("b", "MiraCats", "😺", "a grinning cat giving a thumbs-up"),
        entry("c", "Other", "🙂", "not ours"),
      ]),
    };
    expect(stickerMenu(p, curated)).toBe(
      [
        "Stickers you may send (task sticker {set, emoji}):",
        "- Dogs::🐶 — a puppy tilting its head",
        "- Dogs::🦴",
        "- MiraCats::😺 — a grinning cat giving a thumbs-up",
        "Also any sticker of these sets, by its emoji: MiraCats.",
      ].join("\n"),
    );
    expect(stickerMenu(persona(""), curated)).toBeUndefined();
    // Once a set's stickers are known (fetched for a send), its emoji are listed: nothing to guess.
    expect(stickerMenu(p, curated, new Map([["MiraCats", ["😺", "😹", "😺", "😻\uFE0F"]]]))).toMatch(
      /\n- MiraCats: 😺 😹 😻$/u,
    );
  });

  it("is bounded in size", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `Set${i}::😺`).join("\n");
    const curated = {
      persona: new CuratedMedia(),
      global: new CuratedMedia(
        Array.from({ length: 200 }, (_, i) => entry(`u${i}`, `Set${i}`, "😺", "x".repeat(120))),
      ),
    };
    const menu = stickerMenu(persona(`# Agent Stickers\n${lines}\n`), curated)!;
    expect(menu.length).toBeLessThanOrEqual(STICKER_MENU_MAX_CHARS + 100);
    expect(menu).toMatch(/more not listed\)$/m);
  });
});
