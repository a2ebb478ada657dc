import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Error and warning lines that carry SQLite's message. */
const dbLines = () =>
  h.log.lines().filter((l) => Number(l.level) >= 40 && /no such table/.test(JSON.stringify(l.err ?? "")));

/** Another process takes a table away under the running persona (a damaged or foreign file). */
function breakTable(table: string): void {
  const other = new Database(h.dbPath, { timeout: 2_000 });
  other.exec(`ALTER TABLE ${table} RENAME TO ${table}_gone`);
  other.close();
}

describe("a database error at run time names the database file", () => {
  it("an edit, a deletion and a reaction the database cannot store: each error line names the file and the remedy", async () => {
    h = await Harness.start();
    const hi = await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, hello" });
    h.gemini.script(plan({ kind: "send", text: "hi Alice" }));
    await h.pass(20_000);
    const [mine] = h.sent(h.group);
    breakTable("reactions");
    // Reactions to the persona's own messages are stored.
    await h.emu.chats.react(h.bob, h.group, mine!.id, "👍");
    await h.pass(1_000);
    breakTable("messages");
    await h.emu.chats.editMessage(h.group, hi.id, "hello everyone");
    await h.emu.chats.deleteMessages(h.group, [hi.id]);
    await h.pass(1_000);

    const lines = dbLines();
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(["reaction handling failed", "edit or deletion handling failed"]),
    );
    for (const l of lines) {
      expect(l.err).toEqual(expect.stringContaining(`${h.dbPath}: no such table:`));
      expect(l.err).toEqual(expect.stringContaining("the file is left as it was"));
    }
  });
});
