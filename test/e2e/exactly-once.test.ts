import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import type { DuplicateMode } from "../../emulator";
import { Harness, plan } from "../support/harness";
import { until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The persona's own messages in its stored history of a chat. */
const ownStored = (h: Harness, chatId: string) =>
  h.db
    .prepare(
      "SELECT message_id AS id, text FROM messages WHERE chat_id = ? AND is_agent = 1 ORDER BY message_id",
    )
    .all(chatId) as { id: number; text: string }[];
const sendTasks = (h: Harness) =>
  h.db.prepare("SELECT status, attempts, in_doubt AS inDoubt FROM tasks WHERE kind = 'send'").all() as {
    status: string;
    attempts: number;
    inDoubt: number;
  }[];
const sendRequests = (h: Harness) =>
  h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMessage);

describe("exactly once, for real", () => {
  const modes: DuplicateMode[] = ["error", "replay"];

  it.each(modes)(
    "duplicate answered with %s: the unanswered send completes on its retry, once, and is in the stored history",
    async (mode) => {
      h = await Harness.start({ requestTimeoutMs: 300 });
      h.emu.faults.setDuplicateMode(mode);
      // An earlier message with the same words, already stored: the lookup must not take it.
      const dm = h.emu.dm(h.account, h.carol);
      await h.emu.post({ chat: dm, from: h.carol, text: "say hi" });
      h.gemini.script(plan({ kind: "send", text: "hi once" }));
      await h.pass(10_000);
      await h.emu.post({ chat: dm, from: h.carol, text: "say hi again" });
      h.emu.faults.hang("messages.SendMessage", { when: "after-apply" }); // the server has it; the answer never comes
      h.gemini.script(plan({ kind: "send", text: "hi once" }));
      await h.pass(60_000);

      expect(sendRequests(h)).toHaveLength(3); // first answer, then the unanswered send and its retry
      const server = h.sent(dm);
      expect(server.map((m) => m.text)).toEqual(["hi once", "hi once"]);
      expect(ownStored(h, dm.peerId)).toEqual(server.map((m) => ({ id: m.id, text: m.text })));
      expect(sendTasks(h).map((t) => t.status)).toEqual(["done", "done"]);
      expect(h.log.lines().filter((l) => l.level === 50)).toEqual([]);
      const lookups = h.emu.traffic.methods(h.account).filter((m) => m === "messages.GetHistory");
      expect(lookups).toHaveLength(mode === "error" ? 1 : 0); // a replay carries the id itself
    },
  );

  it.each(modes)(
    "duplicate answered with %s after a crash mid-send: the restarted process completes it once and stores it",
    async (mode) => {
      h = await Harness.start();
      h.emu.faults.setDuplicateMode(mode);
      let crashed = false;
      h.emu.faults.hang("messages.SendMessage", {
        when: "after-apply",
        onHang: () => {
          crashed = true;
          h.crash(); // the process dies with the send applied but unanswered
        },
      });
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
      h.gemini.script(plan({ kind: "send", text: "hello there" }));
      await h.pass(6000); // planned after the 3 s quiet window, then 2.1 s of typing
      expect(crashed).toBe(true);
      h.boot();
      await h.pass(30_000);

      expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello there"]);
      expect(ownStored(h, h.group.peerId)).toEqual(h.sent(h.group).map((m) => ({ id: m.id, text: m.text })));
      expect(sendTasks(h).map((t) => t.status)).toEqual(["done"]);
      // Her message coming back through the restart's catch-up is hers, not the owner's.
      expect(h.log.lines().filter((l) => String(l.msg).includes("the owner wrote"))).toEqual([]);
    },
  );

  it("a send that times out and then lands is not sent again and not reported failed", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.emu.faults.setDelay("messages.SendMessage", 1500); // answered (and applied) only after our timeout
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "late but once" }));
    await h.pass(6000); // planned at 3 s, the send goes out at 5.3 s and times out
    expect(sendTasks(h)).toEqual([{ status: "pending", attempts: 1, inDoubt: 1 }]);
    // GramJS's queue still holds the request; it lands late.
    await until(() => h.sent(h.group).length === 1);
    h.emu.faults.setDelay("messages.SendMessage", 0);
    await h.pass(30_000);

    expect(sendRequests(h)).toHaveLength(2); // the late one and the retry that settled it
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["late but once"]);
    expect(sendTasks(h)).toEqual([{ status: "done", attempts: 2, inDoubt: 0 }]);
    expect(ownStored(h, h.group.peerId)).toEqual(h.sent(h.group).map((m) => ({ id: m.id, text: m.text })));
    expect(h.log.lines().filter((l) => l.level === 50)).toEqual([]);
  });

  it("a send in doubt is not failed after the attempt bound: it is retried until the server answers", async () => {
    h = await Harness.start({ requestTimeoutMs: 100 });
    h.emu.faults.hang("messages.SendMessage", { when: "before-apply", times: 12 }); // lost twelve times
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "finally" }));
    await h.pass(20 * 60_000);

    expect(sendRequests(h)).toHaveLength(13);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["finally"]);
    expect(sendTasks(h)).toEqual([{ status: "done", attempts: 13, inDoubt: 0 }]);
    expect(h.log.lines().filter((l) => l.level === 50)).toEqual([]);
  });

  it("a send in doubt is not cancelled when a newer message replans the chat", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.emu.faults.hang("messages.SendMessage", { when: "after-apply" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "first answer" }, { kind: "send", text: "second part" }));
    await h.pass(6000); // planned at 3 s, the first send went out at 5.2 s and is in doubt now
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and?" });
    h.gemini.script(plan({ kind: "send", text: "new answer" }));
    await h.pass(60_000);

    expect(h.sent(h.group).map((m) => m.text)).toEqual(["first answer", "new answer"]);
    expect(ownStored(h, h.group.peerId).map((m) => m.text)).toEqual(["first answer", "new answer"]);
  });
});
