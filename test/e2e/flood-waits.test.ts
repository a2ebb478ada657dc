/**
 * Telegram's flood waits on the reading methods, end to end on the emulator with real GramJS:
 * a FLOOD_WAIT on getChannelDifference, getDifference, getDialogs, getHistory or users.getUsers
 * pauses that method account-wide — no request to it until the wait is over, after a restart too
 * (the pause is persisted) — and nothing is lost once it passes.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  followedGroups as followed,
  sayNowResponder as responder,
  storedTexts as texts,
} from "../support/followed-groups";
import { Harness } from "../support/harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const requestsOf = (hh: Harness, method: string) =>
  hh.emu.traffic.requests.filter((r) => r.method === method && r.account.id === hh.account.id);

describe("flood waits on the reading methods", () => {
  it("FLOOD_WAIT_30 on getChannelDifference: no request to it for 30 s — a restart meanwhile included — then every group with news is fetched and answered", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const groups = await followed(h, 5);
    h.crash();
    await h.emu.post({ chat: groups[0]!, from: h.bob, text: "@mira_ai say zero" });
    await h.emu.post({ chat: groups[2]!, from: h.bob, text: "news in two" });
    await h.emu.post({ chat: groups[4]!, from: h.bob, text: "@mira_ai say four" });
    h.emu.faults.floodWait("updates.GetChannelDifference", 30);
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    const asked = () => requestsOf(h!, "updates.GetChannelDifference");
    // The three named groups were asked at once (4 at a time) and met FLOOD_WAIT_30.
    const first = asked().length;
    expect(first).toBe(3);
    const t0 = asked()[0]!.at;
    // One warning line, however many requests met the wait.
    expect(h.log.lines().filter((l) => l.rpcError === "FLOOD_WAIT_30")).toMatchObject([{ level: 40 }]);
    await h.pass(10_000);
    // The pause is persisted: a new process does not walk back into it.
    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(19_000);
    expect(asked()).toHaveLength(first);
    await h.pass(60_000);

    const later = asked().slice(first);
    expect(later.length).toBeGreaterThanOrEqual(3);
    for (const r of later) expect(r.at - t0).toBeGreaterThanOrEqual(30_000);
    expect(h.sent(groups[0]!).map((m) => m.text)).toEqual(["re zero"]);
    expect(h.sent(groups[4]!).map((m) => m.text)).toEqual(["re four"]);
    expect(texts(h, groups[2]!)).toEqual(["hello", "news in two"]);
  });

  it("FLOOD_WAIT on getDifference and on getDialogs: neither is asked again before its wait ends; then the DM and the group's mention come", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const [group] = await followed(h, 1);
    const dm = h.emu.dm(h.account, h.carol);
    h.crash();
    await h.emu.post({ chat: dm, from: h.carol, text: "say dm" });
    await h.emu.post({ chat: group!, from: h.bob, text: "@mira_ai say group" });
    h.emu.faults.floodWait("updates.GetDifference", 20);
    h.emu.faults.floodWait("messages.GetDialogs", 600);
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    expect(requestsOf(h, "updates.GetDifference")).toHaveLength(1);
    expect(requestsOf(h, "messages.GetDialogs")).toHaveLength(1);
    await h.pass(19_000);
    await h.runtime.catchUp().catch(() => undefined); // a catch-up during both pauses asks neither
    expect(requestsOf(h, "updates.GetDifference")).toHaveLength(1);
    expect(requestsOf(h, "messages.GetDialogs")).toHaveLength(1);
    await h.pass(40_000);

    const differences = requestsOf(h, "updates.GetDifference");
    expect(differences.length).toBeGreaterThanOrEqual(2);
    expect(differences[1]!.at - differences[0]!.at).toBeGreaterThanOrEqual(20_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["re dm"]);
    expect(h.sent(group!).map((m) => m.text)).toEqual(["re group"]);
    expect(requestsOf(h, "messages.GetDialogs")).toHaveLength(1);
  });

  it("FLOOD_WAIT on getHistory (a group named with no state of its own) and on users.getUsers: paused, then everything is stored and answered", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const joined = h.emu.createSupergroup({ title: "Joined", members: [h.alice] });
    h.crash();
    await h.emu.chats.addMember(joined, h.account);
    await h.emu.post({ chat: joined, from: h.alice, text: "@mira_ai say joined" });
    h.emu.faults.floodWait("messages.GetHistory", 20);
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    expect(requestsOf(h, "messages.GetHistory")).toHaveLength(1);
    await h.pass(19_000);
    expect(requestsOf(h, "messages.GetHistory")).toHaveLength(1);
    await h.pass(30_000);
    const histories = requestsOf(h, "messages.GetHistory");
    expect(histories).toHaveLength(2);
    expect(histories[1]!.at - histories[0]!.at).toBeGreaterThanOrEqual(20_000);
    expect(h.sent(joined).map((m) => m.text)).toEqual(["re joined"]);

    // The sender lookup of a basic group's short message: refused once, then not asked while paused.
    h.emu.faults.floodWait("users.GetUsers", 120);
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, say one" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, say two" });
    await h.pass(20_000);
    expect(requestsOf(h, "users.GetUsers")).toHaveLength(1);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["re one", "re two"]);
  });
});
