import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { isLookUpRequest, isPlanRequest, lastUserText, type GenerateBody } from "../support/gemini-fake";
import type { FakeReply } from "../support/gemini-fake";

/**
 * A look-up is paid once, like a send is sent once (docs/world.md, "A restart during a look-up"):
 * the process killed after the grounded call answered plans with the stored result on restart;
 * killed in the middle of the call, it asks once more at most — through the real task graph.
 */
let h: Harness;
afterEach(async () => {
  await h?.close();
});

const lookUps = (h: Harness) => h.gemini.requests.map((r) => r.body).filter(isLookUpRequest);
/** A request the fake never answers (the process dies waiting for it). */
const never: FakeReply = { after: new Promise(() => undefined), then: { json: {} } };

/** Plans that look up first and answer from the result (or say they could not). */
function responder(grounded: (n: number) => FakeReply) {
  let n = 0;
  return (body: GenerateBody): FakeReply => {
    if (isLookUpRequest(body)) return grounded(n++);
    if (!isPlanRequest(body)) return { json: {} };
    const t = lastUserText(body);
    if (t.includes("Found: Tomorrow in Riga: rain"))
      return plan({ kind: "send", text: "rain tomorrow, 4°C" });
    if (t.includes("Nothing found:")) return plan({ kind: "send", text: "couldn't check, sorry" });
    return plan({ kind: "look_up", query: "weather Riga tomorrow" });
  };
}
const found: FakeReply = { grounded: { text: "Tomorrow in Riga: rain, around 4 °C.", sources: [] } };

/** Alice asks in her DM; every grounded call kills the process on its way; the process starts again. */
async function killedInTheCall(h: Harness) {
  h.gemini.respondWith(
    responder(() => {
      h.crash();
      return never;
    }),
  );
  const dm = h.emu.dm(h.account, h.alice);
  await h.emu.post({ chat: dm, from: h.alice, text: "what's the weather in Riga tomorrow?" });
  await h.pass(20_000);
  h.boot();
  return dm;
}

describe("a restart during a look-up", () => {
  it("killed after the grounded call answered (before its task was marked done): the restart plans with the stored result, no second call", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder(() => found));
    // The process dies between the answer and the task's done: that write never reaches the file.
    h.db.exec(`CREATE TEMP TRIGGER killed_before_done BEFORE UPDATE OF status ON main.tasks
      WHEN NEW.kind = 'look_up' AND NEW.status = 'done'
      BEGIN SELECT RAISE(ABORT, 'the process died here'); END`);
    const dm = h.emu.dm(h.account, h.alice);
    await h.emu.post({ chat: dm, from: h.alice, text: "what's the weather in Riga tomorrow?" });
    await h.pass(20_000);
    expect(lookUps(h)).toHaveLength(1);
    expect(h.sent(dm)).toEqual([]);
    h.crash();
    h.boot();
    await h.pass(40_000);

    expect(lookUps(h)).toHaveLength(1);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["rain tomorrow, 4°C"]);
    expect(h.log.lines().map((l) => l.msg)).toContain(
      "look-up answered before the restart: its stored result is used",
    );
    expect(h.runtime.usage.today(h.clock.now()).byPurpose.look_up).toBe(1);
  });

  it("killed in the middle of the call: the restart asks once more, she answers once, and both calls count against the day's look-ups", async () => {
    h = await Harness.start();
    h.gemini.respondWith(
      responder((n) => {
        if (n > 0) return found;
        h.crash(); // the process dies with the grounded call on its way
        return never;
      }),
    );
    const dm = h.emu.dm(h.account, h.alice);
    await h.emu.post({ chat: dm, from: h.alice, text: "what's the weather in Riga tomorrow?" });
    await h.pass(20_000);
    expect(lookUps(h)).toHaveLength(1);
    h.boot();
    await h.pass(40_000);

    expect(lookUps(h)).toHaveLength(2);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["rain tomorrow, 4°C"]);
    expect(h.log.lines().map((l) => l.msg)).toContain("look-up interrupted by a restart: asking once more");
  });

  it("the lost call counts against the caps: with one look-up a day, the restart asks no second one and she answers without", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Look Ups Per Day\n1\n` });
    const dm = await killedInTheCall(h);
    await h.pass(40_000);
    expect(lookUps(h)).toHaveLength(1);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["couldn't check, sorry"]);
  });

  it("killed in the middle of the call twice: no third call, she answers without it", async () => {
    h = await Harness.start();
    const dm = await killedInTheCall(h);
    await h.pass(20_000);
    expect(lookUps(h)).toHaveLength(2);
    h.gemini.respondWith(responder(() => found));
    h.boot();
    await h.pass(40_000);

    expect(lookUps(h)).toHaveLength(2);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["couldn't check, sorry"]);
    expect(h.log.lines().map((l) => l.msg)).toContain(
      "look-up interrupted by restarts again: answering without it (no third call)",
    );
  });

  it("the database refuses the found result at first (a write failing): the task's retry stores it, no second call", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder(() => found));
    let refusals = 0;
    h.db.function("refuse_once", () => (refusals++ === 0 ? 1 : 0));
    h.db.exec(`CREATE TEMP TRIGGER refuse_the_note BEFORE UPDATE OF note ON main.lookup_runs
      WHEN NEW.note IS NOT NULL AND refuse_once() = 1
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    const dm = h.emu.dm(h.account, h.alice);
    await h.emu.post({ chat: dm, from: h.alice, text: "what's the weather in Riga tomorrow?" });
    await h.pass(60_000);

    expect(refusals).toBeGreaterThanOrEqual(2);
    expect(lookUps(h)).toHaveLength(1);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["rain tomorrow, 4°C"]);
  });
});
