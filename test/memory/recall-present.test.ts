import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Speaker } from "../../src/context/speaker";
import { recall } from "../../src/memory/recall";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import { MemoryStore } from "../../src/store/memories";
import { tempDir } from "../support/temp-dir";

let db: Db | undefined;
afterEach(() => {
  if (db) closeDatabase(db);
  db = undefined;
});

const speaker = (id: string): Speaker => ({ id, nickname: `user ${id}`, bot: false });

describe("recall by meaning and the people in view", () => {
  it("the persona's own memories get no 'person in view' lift in the fusion: only the people present do", () => {
    db = openDatabase(join(tempDir(), "state.db"));
    const store = new MemoryStore(db, "Mira");
    const self = speaker("1000");
    const group = "-1001";
    // Found by words: what she said of herself; by meaning: a newer note about someone not here.
    store.remember({
      chatId: group,
      subject: self.id,
      toldBy: self.id,
      content: "she likes jazz records",
      now: 1,
    });
    const carol = store.remember({
      chatId: group,
      subject: "3",
      toldBy: "3",
      content: "carol plays the saxophone",
      now: 2,
    });
    const notes = recall({
      store,
      curated: new Map(),
      chatId: group,
      present: ["2"],
      self,
      speakerOf: speaker,
      query: "jazz",
      meaning: { nearest: () => [{ memory: store.get(carol.id)!, distance: 0.1 }] },
      topK: 1,
    });
    // The best match is the newer one (equal ranks, recency decides); her own comes after, in its own section.
    expect(notes.map((n) => n.text)).toEqual(["carol plays the saxophone", "she likes jazz records"]);
  });
});
