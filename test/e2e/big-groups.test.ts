/**
 * Big supergroups, which Telegram does not push in real time, end to end on the emulator with real
 * GramJS: the persona polls getChannelDifference at the server's `timeout` for the groups it is
 * active in, so a mention there is answered within one poll interval of the usual latency; a big
 * group it is not active in costs no request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sayNowResponder as responder } from "../support/followed-groups";
import { Harness } from "../support/harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TIMEOUT_SEC = 20;

describe("big supergroups (not pushed)", () => {
  it("a group the persona is active in is polled at the server's timeout: a mention there is answered within one poll interval of the usual latency; an idle big group costs no request", async () => {
    // Groups above 3 members are not pushed: "Sandbox" (the persona, alice, bob, carol) is big.
    h = await Harness.start({
      emulator: { updateLimits: { pushedMembersMax: 3, channelTimeout: TIMEOUT_SEC } },
    });
    h.gemini.respondWith(responder);
    const idle = h.emu.createSupergroup({ title: "Idle", members: [h.account, h.alice, h.bob, h.carol] });
    const small = h.emu.createSupergroup({ title: "Small", members: [h.account, h.alice] });

    // The usual latency, in a small group Telegram pushes.
    const smallPost = await h.emu.post({ chat: small, from: h.alice, text: "@mira_ai say small" });
    const smallAt = h.clock.now();
    let usual = 0;
    for (let t = 0; t < 60_000 && h.sent(small).length === 0; t += 500) {
      await h.pass(500);
      usual = h.clock.now() - smallAt;
    }
    expect(h.sent(small).map((m) => m.text)).toEqual(["re small"]);
    expect(smallPost.id).toBeGreaterThan(1);

    // The persona learns of the big group after a restart (the newest dialogs), answers there and
    // so is active in it.
    h.crash();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai say first" });
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re first"]);

    // Never pushed: a mention there reaches the persona only by its poll.
    h.emu.traffic.clearRequests();
    await h.pass(7_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai say second" });
    await h.emu.post({ chat: idle, from: h.bob, text: "@mira_ai say idle" });
    const postedAt = h.clock.now();
    let answeredAfter = Number.POSITIVE_INFINITY;
    for (let t = 0; t < 120_000; t += 500) {
      await h.pass(500);
      if (h.sent(h.group).length === 2) {
        answeredAfter = h.clock.now() - postedAt;
        break;
      }
    }
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re first", "re second"]);
    expect(answeredAfter).toBeLessThanOrEqual(TIMEOUT_SEC * 1000 + usual + 5_000);

    // Polled at the server's timeout, no faster; the idle big group was never asked.
    await h.pass(60_000);
    const polls = h.emu.traffic.requests.filter((r) => r.method === "updates.GetChannelDifference");
    const about = (chatId: number) =>
      polls.filter(
        (r) =>
          (
            r.request as { channel?: { channelId?: { toString(): string } } }
          ).channel?.channelId?.toString() === String(chatId),
      );
    const group = about(h.group.id);
    expect(group.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < group.length; i++)
      expect(group[i]!.at - group[i - 1]!.at).toBeGreaterThanOrEqual(TIMEOUT_SEC * 1000);
    expect(about(idle.id)).toEqual([]);
    expect(h.sent(idle)).toEqual([]);
  });
});
