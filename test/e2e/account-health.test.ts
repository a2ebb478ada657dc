/**
 * Telegram freezes the account (read-only: FROZEN_METHOD_INVALID on every write) or limits it for
 * spam (PEER_FLOOD): what goes out, what the persona still reads, and what it says about it.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { formatStatus } from "../../src/owner/status";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const WRITES = new Set([
  "messages.SendMessage",
  "messages.SendMedia",
  "messages.SendReaction",
  "messages.SetTyping",
]);
const writes = (h: Harness) => h.emu.traffic.requests.filter((r) => WRITES.has(r.method));

describe("a frozen account", () => {
  it("stops every send, reaction and typing at the first refusal, says so once with Telegram's dates, keeps reading, and resumes when the freeze is lifted", async () => {
    h = await Harness.start();
    const since = Date.UTC(2026, 10, 20);
    const until = Date.UTC(2026, 11, 20);
    h.emu.faults.freeze(h.account, { since, until, appealUrl: "https://t.me/spambot?start=appeal" });
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are you there?" });
    h.gemini.script(
      plan({ kind: "react", emoji: "👍", message_id: ask.id }, { kind: "send", text: "on it" }),
    );
    h.gemini.respondWith(() => plan({ kind: "send", text: "on it" }));
    await h.pass(20_000);
    const firstWave = writes(h).length;
    expect(firstWave).toBeGreaterThanOrEqual(1);

    // More people ask, in other chats too: nothing more goes out for the pause (an hour).
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "Mira?" });
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hello" });
    await h.pass(30 * 60_000);
    expect(writes(h)).toHaveLength(firstWave);
    expect(h.sent(h.group)).toEqual([]);
    expect(h.sent(dm)).toEqual([]);
    expect(h.emu.chats.reactions(h.group, ask.id)).toEqual([]);
    // It keeps reading: what arrived is stored.
    expect(h.runtime.messages.get(dm.peerId, h.emu.history(dm).at(-1)!.id)?.text).toBe("Mira?");

    // One line about it, with what help.getAppConfig said (asked once).
    expect(h.emu.traffic.methods(h.account).filter((m) => m === "help.GetAppConfig")).toHaveLength(1);
    const lines = h.log.lines().filter((l) => Number(l.level) >= 50);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      component: "account",
      agent: "Mira",
      rpcError: "FROZEN_METHOD_INVALID",
      frozenSince: new Date(since).toISOString(),
      deletedOn: new Date(until).toISOString(),
      appealUrl: "https://t.me/spambot?start=appeal",
    });
    expect(h.log.lines().filter((l) => l.level === 40 && l.component === "scheduler")).toEqual([]);

    // /status and the runtime's read-out say it.
    const status = h.runtime.status();
    expect(status.restrictions?.map((r) => r.kind)).toEqual(["frozen"]);
    expect(formatStatus(status)).toContain("https://t.me/spambot?start=appeal");
    expect(h.runtime.accountHealth.restrictions()[0]).toMatchObject({
      kind: "frozen",
      freeze: { since, until, appealUrl: "https://t.me/spambot?start=appeal" },
    });

    // The appeal is accepted. The next probe (after the hour) goes through: writing resumes.
    h.emu.faults.unfreeze(h.account);
    await h.pass(35 * 60_000);
    expect(h.runtime.accountHealth.restrictions()).toEqual([]);
    h.gemini.respondWith(() => plan({ kind: "send", text: "back" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and now?" });
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toContain("back");
  });

  it("the freeze survives a restart: nothing goes out after it either, and the new process says so once", async () => {
    h = await Harness.start();
    h.emu.faults.freeze(h.account);
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);
    const before = writes(h).length;
    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai hello?" });
    await h.pass(20 * 60_000);
    expect(writes(h)).toHaveLength(before);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50 && l.component === "account")).toHaveLength(1);
    expect(h.runtime.accountHealth.restrictions().map((r) => r.kind)).toEqual(["frozen"]);
  });
});

describe("a spam-limited account", () => {
  it("PEER_FLOOD keeps pausing private chats as before, and /status shows it", async () => {
    h = await Harness.start();
    h.emu.faults.limitSpam(h.account);
    const stranger = h.emu.addUser({ firstName: "Dan", username: "dan" });
    const dm = h.emu.dm(h.account, stranger);
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: dm, from: stranger, text: "hello?" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);

    expect(h.sent(dm)).toEqual([]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi"]);
    const sendsToDm = h.emu.traffic.requests.filter(
      (r) =>
        r.method === "messages.SendMessage" &&
        (r.request as Api.messages.SendMessage).peer instanceof Api.InputPeerUser,
    );
    expect(sendsToDm).toHaveLength(1);
    expect(h.runtime.status().restrictions?.map((r) => r.kind)).toEqual(["peer-flood"]);
    expect(formatStatus(h.runtime.status())).toContain("PEER_FLOOD");
  });
});
