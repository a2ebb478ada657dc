/**
 * The account's hourly send ceiling (docs/policies.md, policy/send-ceiling.ts) when it is spent:
 * a contact's message is not dropped but answered once the hour has room, within the answer-age
 * limit, with no planning call paid while it waits; a stranger's is capped as before. Through the
 * emulator, real GramJS, the real Gemini SDK against the loopback fake, a fake clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { isPlanRequest, messageText } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

const MIN = 60_000;

let h: Harness;
afterEach(async () => {
  await h?.close();
});
vi.setConfig({ testTimeout: 120_000 });

const plansFor = (text: string) =>
  h.gemini.requests.filter((r) => isPlanRequest(r.body) && messageText(r.body).includes(text)).length;

/**
 * Carol, a contact she talks with, says good morning (she is known in full: a contact); then
 * alice's DM takes all 60 of the hour's messages: ten rounds of six short ones.
 */
async function fillTheHour() {
  await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "morning" });
  await h.pass(20_000);
  const dm = h.emu.dm(h.account, h.alice);
  for (let round = 0; round < 10; round++) {
    await h.emu.post({ chat: dm, from: h.alice, text: `count to six, round ${round}` });
    await h.pass(30_000);
  }
  expect(h.sent(dm)).toHaveLength(60);
}

/** Plans: alice's rounds count to six; anyone else gets one answer. */
function answering() {
  h.gemini.respondWith((body) => {
    const t = messageText(body);
    if (t.includes("are you there?")) return plan({ kind: "send", text: "yes, here now" });
    if (t.includes("morning")) return plan(); // read, nothing to say
    const round = /round (\d+)(?![\s\S]*round \d)/.exec(t)?.[1] ?? "?";
    return plan(...[1, 2, 3, 4, 5, 6].map((k) => ({ kind: "send", text: `${round}.${k}` })));
  });
}

describe("the account's hour is spent", () => {
  it("carol, a contact, is answered once the hour has room (no call paid while it waits); a stranger is capped", async () => {
    h = await Harness.start({ tickMs: 1000, persona: `${TEST_PERSONA}\n# DM Policy\nopen\n` });
    answering();
    const start = h.clock.now();
    await fillTheHour();
    const carol = h.emu.dm(h.account, h.carol);
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const daves = h.emu.dm(h.account, dave);
    await h.emu.post({ chat: carol, from: h.carol, text: "are you there?" });
    await h.emu.post({ chat: daves, from: dave, text: "are you there?" });
    await h.pass(20 * MIN);
    expect(h.sent(carol)).toEqual([]);
    expect(plansFor("are you there?")).toBe(0); // held, not planned in vain
    expect(h.log.lines().some((l) => String(l.msg).startsWith("task held: account ceiling"))).toBe(true);
    // The first of the hour's messages went out a few seconds after the start: an hour later there is room.
    await h.pass(start + 62 * MIN - h.clock.now());
    expect(h.sent(carol).map((m) => m.text)).toEqual(["yes, here now"]);
    expect(plansFor("are you there?")).toBe(1);
    expect(h.sent(daves)).toEqual([]); // the stranger's message was capped when it came
  });

  it("held past the answer-age limit: not planned, not sent", async () => {
    h = await Harness.start({ tickMs: 1000, maxAnswerAgeMs: 30 * MIN });
    answering();
    const start = h.clock.now();
    await fillTheHour();
    const carol = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: carol, from: h.carol, text: "are you there?" });
    await h.pass(start + 70 * MIN - h.clock.now());
    expect(h.sent(carol)).toEqual([]);
    expect(plansFor("are you there?")).toBe(0);
    expect(h.log.lines().map((l) => l.msg)).toContain(
      "addressed messages too old by the time of planning; not answered",
    );
  });

  it("three contacts ask while the hour is spent: when its first message frees a slot, one planning call is paid, not three; each is answered as slots free", async () => {
    h = await Harness.start({ tickMs: 1000 });
    answering();
    // Erin and Frank, contacts too, say good morning first (known in full, as carol is).
    const people = [h.carol, ...["Erin", "Frank"].map((firstName) => h.emu.addUser({ firstName }))];
    const dms = people.map((p) => {
      h.emu.addContact(h.account, p);
      return h.emu.dm(h.account, p);
    });
    for (const [i, dm] of dms.slice(1).entries())
      await h.emu.post({ chat: dm, from: people[i + 1]!, text: "morning" });
    await fillTheHour();
    const alices = h.emu.history(h.emu.dm(h.account, h.alice)).filter((m) => m.fromId === h.account.id);
    for (const [i, dm] of dms.entries())
      await h.emu.post({ chat: dm, from: people[i]!, text: "are you there?" });
    await h.pass(20 * MIN);
    expect(plansFor("are you there?")).toBe(0);
    // The hour's first two messages went out seconds apart: between their slots, one call.
    const first = alices[0]!.date + 60 * MIN;
    expect(alices[1]!.date + 60 * MIN - first).toBeGreaterThanOrEqual(2_000);
    await h.pass(first + 1_000 - h.clock.now());
    expect(plansFor("are you there?")).toBe(1);
    await h.pass(5 * MIN);
    expect(plansFor("are you there?")).toBe(3);
    expect(dms.map((dm) => h.sent(dm).map((m) => m.text))).toEqual([
      ["yes, here now"],
      ["yes, here now"],
      ["yes, here now"],
    ]);
  });
});
