/**
 * Another process holds the state database's write lock (a second program, a backup, an sqlite3
 * shell with a transaction open) while messages arrive. Nothing may be lost, reordered or
 * answered twice, and a busy database is an expected condition: warnings, no stack traces.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { promptSections } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** A second connection that takes the write lock (WAL: others still read) until released. */
function holdWriteLock(file: string): () => void {
  const other = new Database(file);
  other.exec("BEGIN EXCLUSIVE");
  other.prepare("INSERT INTO chat_settings (agent, chat_id, paused) VALUES ('someone else', 'x', 0)").run();
  return () => {
    other.exec("ROLLBACK");
    other.close();
  };
}

const noStackTraces = (h: Harness) => expect(h.log.text()).not.toMatch(/\\n\s+at |"stack":/);

describe("a busy database", () => {
  it("held for 20 s while group and DM messages arrive (a new group's first among them): all stored in order and answered once afterwards, no stack trace", async () => {
    h = await Harness.start({ busyTimeoutMs: 20 });
    // Each answer names what it answers.
    h.gemini.respondWith((body) =>
      plan({ kind: "send", text: `re: ${/⟧ ([^\n]*)$/m.exec(promptSections(body).now.at(-1) ?? "")?.[1]}` }),
    );
    const dm = h.emu.dm(h.account, h.carol);
    const fresh = h.emu.createSupergroup({ title: "Fresh", members: [h.account, h.alice, h.bob] }); // never seen by the persona
    const release = holdWriteLock(h.dbPath);
    // The emulator's post resolves once the persona's handlers are done: not before the database is free.
    const posted: Promise<{ chat: string; id: number }>[] = [];
    const post = (chat: typeof dm, from: typeof h.alice, text: string) =>
      posted.push(h.emu.post({ chat, from, text }).then((m) => ({ chat: chat.peerId, id: m.id })));
    post(h.group, h.bob, "just chatting");
    post(fresh, h.alice, "Mira, welcome to Fresh!");
    await h.pass(5_000);
    post(dm, h.carol, "are you there?");
    post(h.group, h.alice, "Mira, lunch?");
    await h.pass(15_000);
    // Nothing could be written, so nothing was answered yet.
    expect(h.sent(dm)).toEqual([]);
    expect(h.sent(h.group)).toEqual([]);
    release();

    await h.pass(60_000);
    for (const p of await Promise.all(posted)) expect(h.runtime.messages.get(p.chat, p.id)).toBeDefined();
    expect(h.sent(fresh).map((m) => m.text)).toEqual(["re: Mira, welcome to Fresh!"]);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["re: are you there?"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re: Mira, lunch?"]);
    await h.pass(60_000);
    expect([h.sent(fresh).length, h.sent(dm).length, h.sent(h.group).length]).toEqual([1, 1, 1]);

    noStackTraces(h);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
    const warnings = h.log
      .lines()
      .filter((l) => l.level === 40)
      .map((l) => String(l.msg));
    // The operator is told when the file got busy and when it was free again (which file, each once).
    expect(warnings.filter((w) => /state\.db is busy/.test(w))).toHaveLength(1);
    expect(warnings.filter((w) => /state\.db is free again/.test(w))).toHaveLength(1);
  });

  it("a process that dies while the database is busy fetches what it could not store by catch-up after the restart, and answers it once", async () => {
    h = await Harness.start({ busyTimeoutMs: 20 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "sorry for the wait" }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning all" }); // the group is known from here
    await h.pass(20_000);
    expect(h.sent(dm)).toHaveLength(1);

    const release = holdWriteLock(h.dbPath);
    void h.emu.post({ chat: dm, from: h.carol, text: "still there?" });
    void h.emu.post({ chat: h.group, from: h.alice, text: "Mira, you too?" });
    await h.pass(5_000);
    h.crash();
    release();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(30_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sorry for the wait", "sorry for the wait"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["sorry for the wait"]);
    expect(
      h.runtime.messages.get(dm.peerId, h.emu.history(dm).find((m) => m.text === "still there?")!.id),
    ).toBeDefined();
  });

  it("a group never seen before whose first message (a mention) arrives while the database is busy, then the process dies: the restart finds the group, stores the message and answers it once", async () => {
    h = await Harness.start({ busyTimeoutMs: 20 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi Fresh" }));
    await h.runtime.caughtUp;
    const fresh = h.emu.createSupergroup({ title: "Fresh", members: [h.account, h.alice, h.bob] });
    const release = holdWriteLock(h.dbPath);
    void h.emu.post({ chat: fresh, from: h.alice, text: "Mira, welcome to Fresh!" });
    await h.pass(5_000);
    h.crash();
    release();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(30_000);
    const first = h.emu.history(fresh).find((m) => m.text === "Mira, welcome to Fresh!")!;
    expect(h.runtime.messages.get(fresh.peerId, first.id)?.text).toBe("Mira, welcome to Fresh!");
    expect(h.sent(fresh).map((m) => m.text)).toEqual(["hi Fresh"]);
    // Followed from now on: a later message is stored live; a second catch-up repeats nothing.
    const later = await h.emu.post({ chat: fresh, from: h.bob, text: "glad you're here" });
    await h.runtime.catchUp();
    await h.pass(30_000);
    expect(h.runtime.messages.get(fresh.peerId, later.id)).toBeDefined();
    expect(h.sent(fresh)).toHaveLength(1);
  });

  it("the same group quiet for over an hour when the process comes back costs no history page: it is followed from its next message", async () => {
    h = await Harness.start({ busyTimeoutMs: 20 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi Fresh" }));
    await h.runtime.caughtUp;
    const fresh = h.emu.createSupergroup({ title: "Fresh", members: [h.account, h.alice, h.bob] });
    const release = holdWriteLock(h.dbPath);
    void h.emu.post({ chat: fresh, from: h.alice, text: "Mira, welcome to Fresh!" });
    await h.pass(5_000);
    h.crash();
    release();
    await h.pass(2 * 3_600_000); // down two hours: nothing there could still be answered
    const before = h.emu.traffic.requests.length;
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(30_000);
    const histories = h.emu.traffic.requests
      .slice(before)
      .filter((r) => r.method === "messages.GetHistory" || r.method === "updates.GetChannelDifference");
    expect(histories.map((r) => r.method)).toEqual([]);
    expect(h.sent(fresh)).toEqual([]);
  });
});
