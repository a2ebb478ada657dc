/**
 * She notices how she is received (issue 37, point 8): after an unasked remark in a talkative
 * group, a clear "stop" holds her interjections back (a mention is still answered), laughter and
 * a reply keep her welcome, silence makes her stricter — and the next request says so in one line.
 */
import { afterEach, describe, expect, it } from "vitest";
import { lastUserText, requestPurpose, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LITE = "gemini-2.5-flash-lite";
const TALKATIVE = `${TEST_PERSONA}\n# Group Mode\ntalkative\n# Interjections Per Hour\n10\n`;

/** The addressing call always wants to join in (at `interject`), never says addressed. */
const wantsIn = (interject: number): FakeReply => ({
  json: {
    reason: "talk between others",
    addressed: false,
    confidence: 0.1,
    wanna_interject: true,
    interject,
    is_lightweight: false,
  },
});

const planCalls = () => h.gemini.requests.filter((r) => requestPurpose(r.body) === "plan");
const addressingCalls = () => h.gemini.requests.filter((r) => requestPurpose(r.body) === "address");
/** The per-request text of the newest planning request. */
const lastPlanText = (): string => lastUserText(planCalls().at(-1)!.body as GenerateBody);
const texts = () => h.sent(h.group).map((m) => m.text);

describe("how she is received", () => {
  it('after "shut up bot" she joins in nowhere there for the day — a mention is still answered, the request says why, /status shows it, /reception reset undoes it', async () => {
    h = await Harness.start({ persona: TALKATIVE });
    let plans = 0;
    h.gemini.respondWith((_body, _i, model) =>
      model === LITE
        ? wantsIn(0.9)
        : { json: { tasks: [{ kind: "send", text: ++plans === 2 ? "half past" : "count me in!" }] } },
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "who's up for pizza tonight?" });
    await h.pass(60_000);
    expect(texts()).toEqual(["count me in!"]);

    await h.emu.post({ chat: h.group, from: h.bob, text: "shut up bot" });
    await h.pass(60_000);
    // The "stop" itself went to the addressing call (she would join in), and she did not.
    expect(texts()).toEqual(["count me in!"]);

    // The next hour: chatter the addressing call says she would join, every 11 min (past the cooldown).
    const callsBefore = addressingCalls().length;
    for (const q of [
      "anyone seen the new trailer?",
      "is the wifi down for everyone?",
      "what about sushi then?",
    ]) {
      await h.emu.post({ chat: h.group, from: h.alice, text: q });
      await h.pass(11 * 60_000);
    }
    expect(addressingCalls().length).toBeGreaterThan(callsBefore);
    expect(texts()).toEqual(["count me in!"]);
    expect(h.runtime.addressing.stats.interjected).toBe(1);

    // A direct question by name is still answered, and the request tells her why to keep it short.
    const plansBefore = planCalls().length;
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, what time is it?" });
    await h.pass(60_000);
    expect(planCalls().length).toBe(plansBefore + 1);
    expect(texts()).toEqual(["count me in!", "half past"]);
    expect(lastPlanText()).toContain('Someone here told you to stop ("shut up bot"');
    expect(lastPlanText()).toContain("answer only when asked");

    await h.ownerSays("/status");
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toMatch(/Told to stop in .*"shut up bot".*not joining in unasked until/);

    await h.ownerSays(`/reception reset ${h.group.peerId}`);
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toContain("Forgot how her unasked remarks were received");
    await h.emu.post({ chat: h.group, from: h.bob, text: "ok what are we watching friday" });
    await h.pass(60_000);
    expect(texts()).toEqual(["count me in!", "half past", "count me in!"]);
  });

  it("an interjection that got a 🤣 (Telegram's laugh reaction) and a reply keeps her welcome; one nobody took up makes her stricter", async () => {
    h = await Harness.start({ persona: TALKATIVE });
    // 0.75: above the persona's threshold (0.7), below the stricter one after an ignored remark (0.85).
    h.gemini.respondWith((_body, _i, model) =>
      model === LITE ? wantsIn(0.75) : { json: { tasks: [{ kind: "send", text: "count me in!" }] } },
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "who's up for pizza tonight?" });
    await h.pass(60_000);
    const mine = h.sent(h.group)[0]!;
    await h.emu.chats.react(h.bob, h.group, mine.id, "🤣");
    await h.emu.post({ chat: h.group, from: h.alice, text: "haha same", replyTo: mine.id });
    await h.pass(60_000);
    expect(h.runtime.reception.of(h.group.peerId)).toMatchObject({
      state: "welcomed",
      said: "a 🤣 reaction",
    });
    // The reply was answered: its request says she was welcome.
    expect(lastPlanText()).toContain("Last time you joined in here unasked, they took it well");

    // Welcome: the next chatter, past the cooldown, at 0.75 is joined.
    await h.pass(11 * 60_000);
    const before = texts().length;
    await h.emu.post({ chat: h.group, from: h.bob, text: "anyone seen the new trailer?" });
    await h.pass(60_000);
    expect(texts().length).toBe(before + 1);

    // Nobody takes that one up for 10 minutes: ignored, and 0.75 no longer joins in.
    await h.pass(11 * 60_000);
    expect(h.runtime.reception.of(h.group.peerId)?.state).toBe("ignored");
    await h.emu.post({ chat: h.group, from: h.alice, text: "what about sushi then?" });
    await h.pass(60_000);
    expect(texts().length).toBe(before + 1);
    await h.ownerSays("/status");
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toMatch(/Her last unasked remark in .* was ignored: joining in less/);
    // A mention is answered, and told the remark was ignored.
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, pizza or sushi?" });
    await h.pass(60_000);
    expect(lastPlanText()).toContain("Last time you joined in here unasked, nobody took it up");
  });

  it('a "stop" after an ordinary answer counts too: the next request in that group says so', async () => {
    h = await Harness.start();
    h.gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "it's on friday" }] } }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, when is the party?" });
    await h.pass(60_000);
    expect(texts()).toEqual(["it's on friday"]);
    await h.emu.post({ chat: h.group, from: h.bob, text: "заткнись" });
    await h.pass(60_000);
    // Strict: the "stop" is not for her to answer, and costs no call.
    expect(planCalls()).toHaveLength(1);
    expect(addressingCalls()).toHaveLength(0);
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, and what time?" });
    await h.pass(60_000);
    // One line after the history, in the per-request part.
    expect(lastPlanText()).toContain(
      'Mira, and what time?\nSomeone here told you to stop ("заткнись", 1 min ago): answer only when asked, and briefly.',
    );
  });
});
