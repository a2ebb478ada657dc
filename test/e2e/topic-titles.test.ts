import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import { ConsoleQueries } from "../../src/store/console-queries";
import { Harness } from "../support/harness";

/**
 * Telegram names a forum topic only in its service messages (the topic's root, each rename). The
 * persona keeps those titles as they arrive — live, or fetched by catch-up after a downtime — and
 * the newest one wins, for the operator console.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function titles(hh: Harness, chatId: string): Map<number, string> {
  const db = openDatabase(hh.dbPath);
  try {
    return new ConsoleQueries(db).topicTitles(hh.persona.name, chatId);
  } finally {
    db.close();
  }
}

describe("forum topic titles", () => {
  it("keeps a topic's title from its root live, and a rename and a new topic made while the persona was down", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    const forum = hh.emu.createSupergroup({
      title: "Forum",
      forum: true,
      members: [hh.account, hh.alice, hh.bob],
    });
    const travel = hh.emu.createTopic(forum, "Travel");
    await hh.emu.post({ chat: forum, from: hh.bob, text: "trains to Rome?", topicId: travel });
    await hh.pass(1000);
    expect([...titles(hh, forum.peerId)]).toEqual([[travel, "Travel"]]);

    hh.crash();
    hh.emu.chats.renameTopic(forum, travel, "Trips");
    const food = hh.emu.createTopic(forum, "Food");
    await hh.emu.post({ chat: forum, from: hh.alice, text: "pasta tonight", topicId: food });
    hh.boot();
    await hh.runtime.caughtUp;
    await hh.pass(1000);
    expect(titles(hh, forum.peerId)).toEqual(
      new Map([
        [travel, "Trips"],
        [food, "Food"],
      ]),
    );
  });
});
