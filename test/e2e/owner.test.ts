import { afterEach, describe, expect, it } from "vitest";
import { summaryGraph } from "../../src/tasks/task";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const MIN = 60_000;

describe("owner commands in Saved Messages", () => {
  it("pause, status, resume, mode and forget change what the persona does, and are answered in Saved Messages", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi alice" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi alice"]);

    await h.ownerSays("/pause Sandbox");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Paused in Sandbox \(-100\d+\)/);
    expect(h.runtime.settings.get(h.group.peerId).paused).toBe(true);

    const asked = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are you there?" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(1); // not planned
    expect(h.runtime.messages.get(h.group.peerId, asked.id)?.text).toBe("@mira_ai are you there?"); // but stored

    await h.ownerSays("/status");
    await h.pass(5_000);
    const status = h.savedReplies().at(-1)!;
    expect(status).toContain("Status of Mira");
    expect(status).toContain("Telegram connected");
    expect(status).toMatch(/Paused in: Sandbox/);
    expect(status).toMatch(/Today \(UTC\): 1 LLM call, [\d,]+ tokens/);
    expect(status).toContain("Last error: none");

    await h.ownerSays("/resume sandbox");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Answering again in Sandbox/);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai now?" });
    h.gemini.script(plan({ kind: "send", text: "yes, back" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi alice", "yes, back"]);

    await h.ownerSays("/mode smart Sandbox");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Mode in Sandbox .* set to smart\.$/);
    expect(h.runtime.settings.get(h.group.peerId).mode).toBe("smart");

    // /forget drops a plan that is waiting to send.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai remind me in a minute" });
    h.gemini.script(plan({ kind: "wait", seconds: 60 }, { kind: "send", text: "your minute is up" }));
    await h.pass(10_000);
    expect(h.runtime.scheduler.openTasks(h.group.peerId).length).toBeGreaterThan(0);
    await h.ownerSays("/forget @nosuchchat");
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toBe(
      'No chat matches "@nosuchchat". Name it by id, @username or a part of its title.',
    );
    await h.ownerSays(`/forget ${h.group.peerId}`);
    await h.pass(120_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Dropped the pending plan in Sandbox/);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi alice", "yes, back"]);

    // Every answer went to Saved Messages, none anywhere else; the commands changed no other chat.
    expect(h.savedReplies()).toHaveLength(6);
    expect(h.sent(h.club)).toEqual([]);
  });

  it("pauses everywhere, lists candidates for an ambiguous name, and keeps settings across a restart", async () => {
    h = await Harness.start();
    const fans = h.emu.createSupergroup({ title: "Book fans", members: [h.account, h.alice] });
    const club = h.emu.createSupergroup({ title: "Book club", members: [h.account, h.bob] });
    await h.emu.post({ chat: fans, from: h.alice, text: "hello fans" });
    await h.emu.post({ chat: club, from: h.bob, text: "hello club" });

    await h.ownerSays("/pause book");
    await h.pass(2_000);
    const answer = h.savedReplies().at(-1)!;
    expect(answer).toContain('"book" matches 2 chats');
    expect(answer).toContain(`Book fans (${fans.peerId})`);
    expect(answer).toContain(`Book club (${club.peerId})`);
    expect(h.runtime.settings.get(fans.peerId).paused).toBe(false);

    // A stranger who calls themselves "sand" writes in private: "/pause sand" now fits the DM
    // exactly and "Sandbox" in part. Neither wins: both are listed with their ids, nothing is paused.
    const sand = h.emu.addUser({ firstName: "sand" });
    const sandDm = h.emu.dm(h.account, sand);
    await h.emu.post({ chat: sandDm, from: sand, text: "hi" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "hello sandbox" });
    h.gemini.script(plan());
    await h.pass(20_000);
    await h.ownerSays("/pause sand");
    await h.pass(2_000);
    const listed = h.savedReplies().at(-1)!;
    expect(listed).toMatch(/^"sand" matches 2 chats, so nothing was changed; name one by its id/);
    expect(listed).toContain(`- sand (private chat, ${sandDm.peerId})`);
    expect(listed).toContain(`- Sandbox (${h.group.peerId})`);
    expect(h.runtime.settings.entries().filter(([, s]) => s.paused)).toEqual([]);
    // An id always names one chat.
    await h.ownerSays(`/pause ${sandDm.peerId}`);
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Paused in sand \(private chat, \d+\)/);
    expect(h.runtime.settings.get(sandDm.peerId).paused).toBe(true);
    expect(h.runtime.settings.get(h.group.peerId).paused).toBe(false);

    await h.ownerSays("/pause");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Paused everywhere/);
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    h.boot();

    const planned = h.gemini.requests.length; // sand's "hi"
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello?" });
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hey" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(planned);

    await h.ownerSays("/resume");
    await h.pass(2_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello again" });
    h.gemini.script(plan({ kind: "send", text: "here" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["here"]);
  });

  it("counts a lane summary apart from the chats' pending tasks, and /pause does not drop it", async () => {
    h = await Harness.start();
    const lane = `root:${h.group.peerId}`;
    // A summary task waiting (its graph is summary:<lane>), and one pending plan in the DM.
    h.runtime.scheduler.add(summaryGraph(lane), [
      { kind: "summarize", payload: { lane }, notBefore: h.clock.now() + 3_600_000 },
    ]);
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hey" });
    await h.pass(200);
    const chatTasks = h.runtime.scheduler.openTasks(dm.peerId).length;
    expect(chatTasks).toBeGreaterThan(0);

    await h.ownerSays("/status");
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toContain(
      `Pending tasks: ${chatTasks} (and 1 lane summary being written)`,
    );

    await h.ownerSays("/pause");
    await h.pass(1_000);
    expect(h.savedReplies().at(-1)).toMatch(
      new RegExp(
        `^Paused everywhere: messages are stored, not answered; ${chatTasks} pending task\\(s\\) dropped\\.`,
      ),
    );
    expect(h.runtime.scheduler.openTasks(summaryGraph(lane))).toHaveLength(1);
  });

  it("treats the same commands from anyone else, anywhere, as ordinary messages", async () => {
    h = await Harness.start();
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    h.emu.chats.addMember(h.group, dave);
    const dm = h.emu.dm(h.account, h.carol);

    await h.emu.post({ chat: h.group, from: dave, text: "/pause" });
    await h.emu.post({ chat: h.group, from: dave, text: "@mira_ai /pause Sandbox" });
    h.gemini.script(plan({ kind: "send", text: "nice try" }));
    await h.pass(20_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "/pause" });
    h.gemini.script(plan({ kind: "send", text: "pause what?" }));
    await h.pass(20_000);

    // The mention and carol's DM were planned like any message, with the text as written (the
    // @mention as the persona's reference).
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.lastUserTurn(0)).toContain("[Mira](tg:@mira_ai) /pause Sandbox");
    expect(h.lastUserTurn(1)).toContain("/pause");
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["nice try"]);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["pause what?"]);
    // Nothing was paused, nothing was answered in Saved Messages.
    expect(h.runtime.settings.entries()).toEqual([]);
    expect(h.emu.history(h.saved)).toEqual([]);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai still here?" });
    h.gemini.script(plan({ kind: "send", text: "still here" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["nice try", "still here"]);
  });
});

describe("owner commands come only from the owner", () => {
  it("a stranger's command forwarded into Saved Messages, or an inline bot's, is a note: nothing runs, nothing is answered", async () => {
    h = await Harness.start();
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    h.emu.chats.addMember(h.group, dave);
    const bot = h.emu.addUser({ firstName: "Quotes", username: "quotes_bot", bot: true });
    // Dave writes commands in the group; the owner saves them by forwarding them to Saved Messages.
    const pause = await h.emu.post({ chat: h.group, from: dave, text: "/pause" });
    const mode = await h.emu.post({ chat: h.group, from: dave, text: "/mode talkative Sandbox" });
    await h.pass(2_000);
    for (const m of [pause, mode])
      await h.emu.post({
        chat: h.saved,
        from: h.account,
        text: "",
        forward: { chat: h.group, id: m.id },
        deliverToSender: true,
      });
    // An inline bot's result the owner picked (the bot wrote its text).
    await h.emu.post({ chat: h.saved, from: h.account, text: "/pause", viaBot: bot, deliverToSender: true });
    await h.pass(5_000);
    // Nothing changed, nothing was answered in Saved Messages.
    expect(h.runtime.settings.entries()).toEqual([]);
    expect(h.savedReplies()).toEqual([]);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai still here?" });
    h.gemini.script(plan({ kind: "send", text: "still here" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["still here"]);
    // The owner's own typed command still works.
    await h.ownerSays("/pause");
    await h.pass(5_000);
    expect(h.runtime.settings.get("*").paused).toBe(true);
    expect(h.savedReplies()).toHaveLength(1);
  });
});

describe("owner takeover", () => {
  const PERSONA = `${TEST_PERSONA}\n# Takeover Silence\n10\n`;

  it("cancels the pending plan, stores the owner's message as the persona's, and stays silent for the configured time", async () => {
    h = await Harness.start({ persona: PERSONA });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai can you check the schedule?" });
    h.gemini.script(plan({ kind: "wait", seconds: 120 }, { kind: "send", text: "let me look…" }));
    await h.pass(10_000);
    expect(h.runtime.scheduler.openTasks(h.group.peerId).length).toBeGreaterThan(0);

    const ownerId = await h.ownerSays("I'll answer this one myself, Alice: it's at 6.", h.group);
    await h.pass(5 * MIN);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["I'll answer this one myself, Alice: it's at 6."]); // the plan never sent
    expect(h.runtime.scheduler.openTasks(h.group.peerId)).toEqual([]);
    expect(h.runtime.messages.get(h.group.peerId, ownerId)).toMatchObject({
      isAgent: true,
      senderName: "Mira",
      senderId: String(h.account.id),
    });

    // Still silent 9 minutes after the owner's message…
    await h.pass(3 * MIN);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai thanks! and tomorrow?" });
    await h.pass(MIN);
    expect(h.gemini.requests).toHaveLength(1);
    // …other chats are not affected…
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" });
    h.gemini.script(plan({ kind: "send", text: "hi bob" }));
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["hi bob"]);
    // …and answering again once the 10 minutes are over; the owner's words are the persona's own, in its history.
    await h.pass(MIN);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and tomorrow?" });
    h.gemini.script(plan({ kind: "send", text: "tomorrow at 7" }));
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(3);
    expect(h.gemini.requests[2]!.body.contents!.map((c) => c.role)).toEqual(["user"]);
    expect(h.historyParts(2)).toContainEqual(
      expect.stringMatching(
        new RegExp(`^⟦#${ownerId} Mira \\(you\\) · .*⟧ I'll answer this one myself, Alice: it's at 6\\.$`),
      ),
    );
    expect(
      h
        .sent(h.group)
        .map((m) => m.text)
        .at(-1),
    ).toBe("tomorrow at 7");
  });

  it("does not take the persona's own send for the owner's when its echo overtakes the answer", async () => {
    h = await Harness.start({ persona: PERSONA, requestTimeoutMs: 300 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    let echoed: Promise<void> | undefined;
    // The send is applied on the server, its echo reaches the client, and the answer never comes.
    h.emu.faults.hang("messages.SendMessage", {
      when: "after-apply",
      onHang: () => {
        const mine = h.emu.history(h.group).at(-1)!;
        echoed = h.emu.redeliver(h.group, mine.id, h.account);
      },
    });
    h.gemini.script(plan({ kind: "send", text: "hello alice" }));
    await h.pass(30_000); // the timed-out send is retried and completed by RANDOM_ID_DUPLICATE
    await echoed;
    const [mine] = h.sent(h.group);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello alice"]);
    expect(h.runtime.messages.get(h.group.peerId, mine!.id)).toMatchObject({
      isAgent: true,
      text: "hello alice",
    });
    expect(h.runtime.settings.get(h.group.peerId).silentUntil).toBeUndefined();

    // A later echo of a send whose answer did arrive is recognised by its stored id.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai again" });
    h.gemini.script(plan({ kind: "send", text: "again, hi" }));
    await h.pass(20_000);
    const second = h.sent(h.group).at(-1)!;
    await h.emu.redeliver(h.group, second.id, h.account);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and again" });
    h.gemini.script(plan({ kind: "send", text: "and again, hi" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello alice", "again, hi", "and again, hi"]);
    expect(h.runtime.settings.get(h.group.peerId).silentUntil).toBeUndefined();
  });
});
