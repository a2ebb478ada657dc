/**
 * The disk under the state database fills up while messages arrive, then space is freed — no
 * restart. Nothing may be lost, reordered or answered twice: every message is stored once the
 * disk takes writes again, every addressed one is answered once (never stored without its
 * task), the operator reads one clear line when it starts (the file, the free space, what
 * waits) and one when it is over, /readyz fails and a metric says so while it lasts.
 *
 * The disk is a real 2 MB tmpfs when the test may mount one, else SQLite's own page limit on
 * the connection (test/support/small-disk.ts says what each covers). The log says which ran.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { readiness, registerCondition, registerPersona } from "../../src/http/readiness";
import { registry, resetMetrics } from "../../src/metrics/metrics";
import { DatabaseWatch } from "../../src/store/database-watch";
import { isPlanRequest, promptSections, type GenerateBody, type FakeReply } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";
import { smallDisk, type SmallDisk } from "../support/small-disk";
import { join } from "node:path";

let h: Harness | undefined;
let disk: SmallDisk | undefined;
const cleanUp: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanUp.splice(0)) c();
  await h?.close().catch(() => undefined);
  h = undefined;
  disk?.dispose();
  disk = undefined;
  resetMetrics();
});

const SUMMARY: FakeReply = {
  json: { goals_and_open_questions: [], decisions: [], facts: [], outcomes: [], pending_actions: [] },
};

/** The text of an addressed message part (`⟦#id …⟧ text`). */
const textOf = (part: string) => /⟧ ([^\n]*)$/m.exec(part)?.[1] ?? part;

/** The value of a metric series from the registry (as /metrics would serve it). */
async function metric(name: string, agent: string): Promise<number | undefined> {
  const m = (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.agent === agent);
  return m?.value;
}

describe("a full disk", () => {
  it("150 messages arrive while the disk is full; once space is freed, without a restart, all 150 are stored in order and every addressed one is answered once", async () => {
    disk = smallDisk(16);
    const d = disk;
    h = await Harness.start({ dbPath: join(d.dir, "state.db") });
    const hh = h;
    // Each answer names every message it answers; summaries get notes.
    hh.gemini.respondWith((body: GenerateBody) =>
      isPlanRequest(body)
        ? plan({ kind: "send", text: `re: ${promptSections(body).now.map(textOf).join(" + ")}` })
        : SUMMARY,
    );
    const dm = hh.emu.dm(hh.account, hh.carol);
    await hh.emu.post({ chat: dm, from: hh.carol, text: "hello before" });
    await hh.emu.post({ chat: hh.group, from: hh.bob, text: "morning all" });
    await hh.pass(20_000);
    expect(hh.sent(dm)).toHaveLength(1);
    const watch = new DatabaseWatch({ db: hh.db, clock: hh.clock, logger: hh.log.logger });
    cleanUp.push(
      registerCondition("database", () => watch.problem()),
      () => watch.stop(),
    );
    cleanUp.push(registerPersona("Mira", () => ({ state: "connected" })));
    expect(readiness(hh.clock.now()).ready).toBe(true);

    d.fill(hh.db);
    const addressed: string[] = [];
    const posted: Promise<unknown>[] = [];
    for (let i = 0; i < 150; i++) {
      const toDm = i % 15 === 7;
      const asks = toDm || i % 10 === 0;
      const text = toDm
        ? `dm ${i}`
        : asks
          ? `Mira, question ${i}?`
          : `chatter ${i} ${"lorem ipsum ".repeat(20)}`;
      if (asks) addressed.push(text);
      // The emulator's post resolves once the persona's handlers are done: not before the disk has room.
      posted.push(
        hh.emu.post({ chat: toDm ? dm : hh.group, from: toDm ? hh.carol : i % 2 ? hh.alice : hh.bob, text }),
      );
      if (i % 10 === 9) await hh.pass(1_000);
    }
    await hh.pass(30_000);
    // Nothing could be written: nothing was answered, readiness fails and says why, the gauge is up.
    expect(hh.sent(dm)).toHaveLength(1);
    expect(hh.sent(hh.group)).toEqual([]);
    const during = readiness(hh.clock.now());
    expect(during.ready).toBe(false);
    expect(during.problems?.[0]?.reason).toMatch(/state\.db refuses writes: database or disk is full/);
    expect(await metric("userbot_database_write_failing", "Mira")).toBe(1);

    d.free(hh.db);
    await hh.pass(60_000);
    await Promise.all(posted);
    await hh.pass(60_000);

    // All 150 are in the file (a second connection reads what is committed), in the order they came.
    const other = new Database(hh.dbPath, { readonly: true });
    const rows = other
      .prepare(
        `SELECT text FROM messages WHERE agent = 'Mira' AND is_agent = 0 AND (text LIKE 'chatter %' OR text LIKE 'Mira, question %' OR text LIKE 'dm %') ORDER BY chat_id, message_id`,
      )
      .pluck()
      .all() as string[];
    other.close();
    expect(rows).toHaveLength(150);
    const order = (chat: typeof dm) =>
      hh.emu
        .history(chat)
        .filter((m) => m.fromId !== hh.account.id)
        .map((m) => m.text);
    expect(order(dm).filter((t) => t.startsWith("dm "))).toEqual(rows.filter((t) => t.startsWith("dm ")));

    // Every addressed message is answered, once (a burst is one answer naming each of its messages).
    const answers = () => [...hh.sent(dm).slice(1), ...hh.sent(hh.group)].map((m) => m.text);
    const answered = answers().flatMap((t) => t.replace(/^re: /, "").split(" + "));
    expect([...answered].sort()).toEqual([...addressed].sort());
    const sent = answers();
    await hh.pass(60_000);
    expect(answers()).toEqual(sent);

    // One line when it began (the file, the free space, what waits), one when it was over; no
    // other warning or error, no stack trace, no "paused until restart".
    const loud = hh.log.lines().filter((l) => Number(l.level) >= 40);
    const began = loud.filter((l) => /refuses writes/.test(String(l.msg)));
    expect(began).toHaveLength(1);
    expect(String(began[0]!.msg)).toMatch(
      /state\.db refuses writes: database or disk is full \(SQLITE_FULL\)(; \S+ \S+ free on its filesystem)?\. Waiting: \d+ incoming updates? .*the disk is full: free some space/,
    );
    if (d.how === "tmpfs") expect(began[0]!.freeBytes).toBe(0);
    expect(loud.filter((l) => /state\.db takes writes again after/.test(String(l.msg)))).toHaveLength(1);
    expect(loud.map((l) => l.msg)).toHaveLength(2);
    expect(hh.log.text()).not.toMatch(/\\n\s+at |"stack":|until restart/);

    expect(readiness(hh.clock.now()).ready).toBe(true);
    expect(await metric("userbot_database_write_failing", "Mira")).toBe(0);
    expect(await metric("userbot_database_write_failures_total", "Mira")).toBe(1);
    hh.log.logger.info({ how: d.how }, "small disk");
  });
});
