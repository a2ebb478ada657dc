/**
 * The persona talks like a person: honest marks on what is addressed to it, reactions that land,
 * formatting that shows as formatting, its own facts remembered where it told them, the place
 * named, and what it knows of people who are spoken about. The real runtime and GramJS client on
 * the emulator, the real Gemini SDK against the loopback fake: the assertions are on the request
 * Gemini gets and on what reaches the chat.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { lastUserText, requestPurpose, type GenerateBody } from "../support/gemini-fake";
import { addressVerdict } from "../support/address-verdict";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const purposes = (from = 0) => h.gemini.requests.slice(from).map((r) => requestPurpose(r.body));
/** The header of message `id` in a request's user turn. */
const header = (body: GenerateBody, id: number) =>
  new RegExp(`^⟦#${id} [^⟧]*⟧`, "mu").exec(lastUserText(body))?.[0];
const lastPlan = () => h.gemini.requests[h.lastPlanIndex()]!.body;
/** What a plan request's schema lets `react.emoji` be: its enum, "any" (a plain string), or "no react". */
const reactOffered = (body: GenerateBody): string[] | "any" | "no react" => {
  type Variant = { properties: { kind: { enum: string[] }; emoji?: { enum?: string[] } } };
  const variants = (
    body.generationConfig!.responseJsonSchema as { properties: { tasks: { items: { anyOf: Variant[] } } } }
  ).properties.tasks.items.anyOf;
  const react = variants.find((v) => v.properties.kind.enum[0] === "react");
  return react === undefined ? "no react" : (react.properties.emoji?.enum ?? "any");
};
const reactionsSent = () =>
  h.emu.traffic.requests
    .filter((r) => r.method === "messages.SendReaction")
    .map((r) => ((r.request as Api.messages.SendReaction).reaction?.[0] as Api.ReactionEmoji).emoticon);

describe("how a message reached the persona", () => {
  it("marks a name-only message, a reply to the persona aimed at someone else, an @mention and a DM differently", async () => {
    h = await Harness.start();
    const opener = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai where is the cake?" });
    h.gemini.script(plan({ kind: "send", text: "in the fridge", reply_to: opener.id }));
    await h.pass(20_000);
    const mine = h.sent(h.group).find((m) => m.text === "in the fridge")!;

    // One burst: the two are planned together. The one that only talks about her goes to the
    // cheap addressing call instead (here: "not addressed"), and is shown unmarked.
    h.gemini.respondWith((b) => (requestPurpose(b) === "address" ? addressVerdict(false) : plan()));
    const before = h.gemini.requests.length;
    const named = await h.emu.post({ chat: h.group, from: h.carol, text: "Mira is the best at hiding cake" });
    const aimed = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@alice see, told you so",
      replyTo: mine.id,
    });
    const mention = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai thanks!" });
    await h.pass(20_000);
    const body = lastPlan();
    expect(purposes(before).sort()).toEqual(["address", "plan"]);
    expect(header(body, named.id)).toMatch(/ · \d\d:\d\d⟧$/);
    expect(header(body, aimed.id)).toMatch(/ · replies to you, but speaks to \[Alice\]\(tg:@alice\)⟧$/);
    expect(header(body, mention.id)).toMatch(/ · @mentions you⟧$/);

    const dm = h.emu.dm(h.account, h.carol);
    const hi = await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(header(lastPlan(), hi.id)).toMatch(/^⟦#\d+ \[Carol\] · [^⟧]* · to you⟧$/);
    // The rules say what each mark means, once, in the system instruction.
    expect(lastPlan().systemInstruction?.parts?.[0]?.text).toContain(
      '"names you": it talks about you, answer only if it asks or tells you something',
    );
  });

  it('"чемпионат мира" costs no planning call (one cheap addressing call judges it), "Мира, ты …" does', async () => {
    h = await Harness.start({
      persona: TEST_PERSONA.replace("# Aliases\nMirochka", "# Aliases\nMirochka\nМира"),
    });
    h.gemini.respondWith((body) => (requestPurpose(body) === "address" ? addressVerdict(false) : plan()));
    await h.emu.post({ chat: h.group, from: h.bob, text: "кто смотрел чемпионат мира?" });
    await h.pass(30_000);
    expect(purposes()).toEqual(["address"]);
    expect(h.sent(h.group)).toEqual([]);

    const ask = await h.emu.post({ chat: h.group, from: h.bob, text: "Мира, ты придёшь в субботу?" });
    await h.pass(30_000);
    expect(purposes()).toEqual(["address", "plan"]);
    expect(header(lastPlan(), ask.id)).toMatch(/ · calls you by name as "Мира"⟧$/);
  });
});

describe("reactions that land", () => {
  it("a 😂 the model asks for reaches the chat as 🤣, once; where only some are allowed, as the closest of those", async () => {
    h = await Harness.start();
    const joke = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai why did the chicken cross the road",
    });
    h.gemini.script(
      plan({ kind: "react", emoji: "😂", message_id: joke.id }, { kind: "send", text: "why?" }),
    );
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["🤣"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["why?"]);
    expect(h.runtime.reactions.forMessage(h.group.peerId, joke.id).map((r) => r.emoji)).toEqual(["🤣"]);

    await h.emu.chats.setAllowedReactions(h.group, ["👍", "😁"]);
    const pun = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@mira_ai I'm reading a book on anti-gravity",
    });
    h.gemini.script(plan({ kind: "react", emoji: "😂", message_id: pun.id }));
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["🤣", "😁"]);
    expect(reactOffered(lastPlan())).toEqual(["👍", "😁"]); // the schema's enum, not a line of text
  });
});

describe("stickers", () => {
  it("once a set is known (its first sticker sent), the instruction lists its stickers' emoji; before, the set by name only", async () => {
    h = await Harness.start();
    h.emu.addStickerSet({ shortName: "Cats", title: "Cats", stickers: [{ emoji: "😺" }, { emoji: "😹" }] });
    const system = () => h.gemini.requests[h.lastPlanIndex()]!.body.systemInstruction?.parts?.[0]?.text ?? "";
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai send a cat" });
    h.gemini.script(plan({ kind: "sticker", set: "cats", emoji: "😹" }));
    await h.pass(20_000);
    expect(system()).toContain("Also any sticker of these sets, by its emoji: MiraCats, Cats, NoSuchSet.");
    expect(h.emu.history(h.group).filter((m) => m.fromId === h.account.id)).toEqual([
      expect.objectContaining({ media: "sticker", stickerEmoji: "😹" }),
    ]);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai another" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(system()).toContain(
      "- Cats: 😺 😹\nAlso any sticker of these sets, by its emoji: MiraCats, NoSuchSet.",
    );
  });
});

describe("formatting", () => {
  it("a send with **bold**, _italic_, `code` and a link arrives with entities and no markers, after emoji", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "how did it go?" });
    h.gemini.script(
      plan({
        kind: "send",
        text: "🎉 done: **all green** and _on time_, see `ci` or [the log](https://example.org/log)",
      }),
    );
    await h.pass(30_000);
    const [sent] = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(sent!.text).toBe("🎉 done: all green and on time, see ci or the log");
    const entities = (sent!.entities ?? []).map((e) => ({
      kind: e.className,
      text: sent!.text.slice(e.offset, e.offset + e.length),
      ...(e instanceof Api.MessageEntityTextUrl ? { url: e.url } : {}),
    }));
    expect(entities).toEqual([
      { kind: "MessageEntityBold", text: "all green" },
      { kind: "MessageEntityItalic", text: "on time" },
      { kind: "MessageEntityCode", text: "ci" },
      { kind: "MessageEntityTextUrl", text: "the log", url: "https://example.org/log" },
    ]);
    expect(sent!.entities![0]!.offset).toBe(9); // "🎉 done: ": the emoji counts two UTF-16 units
  });

  it("across the 4,096 split: no markers in either message, the bold run whole in the second", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "tell me everything" });
    const filler = "🙂 word ".repeat(505); // 4,040 UTF-16 units
    const bold = "the part that matters, in bold and longer than what is left of the first message";
    h.gemini.script(plan({ kind: "send", text: `${filler}**${bold}** and the end` }));
    await h.pass(1_200_000);
    const sent = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(sent).toHaveLength(2);
    expect(sent.every((m) => m.text.length <= 4096 && !m.text.includes("**"))).toBe(true);
    expect(sent[0]!.entities).toBeUndefined();
    expect(sent[1]!.text).toBe(`${bold} and the end`);
    expect(sent[1]!.entities?.map((e) => [e.className, e.offset, e.length])).toEqual([
      ["MessageEntityBold", 0, bold.length],
    ]);
  });
});

describe("what the persona knows", () => {
  it('remember {about: "me"} is the persona\'s own memory, shown as its own where it said it, and nowhere else', async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "do you have pets?" });
    h.gemini.script(
      plan(
        { kind: "send", text: "a cat called Tom" },
        { kind: "remember", content: "I have a cat called Tom", about: "me" },
      ),
    );
    await h.pass(20_000);
    expect(h.runtime.memories.about(String(h.account.id))).toEqual([
      expect.objectContaining({
        content: "I have a cat called Tom",
        chatId: dm.peerId,
        toldBy: String(h.account.id),
      }),
    ]);

    await h.emu.post({ chat: dm, from: h.carol, text: "what was your cat's name again?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(lastUserText(lastPlan())).toMatch(
      /^⟦memory Mira \(you\) · \d{4}-\d\d-\d\d⟧ you said: I have a cat called Tom$/mu,
    );

    // What it told carol in private is not what it knows in the group.
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai do you have a cat?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(lastUserText(lastPlan())).not.toContain("Tom");
  });

  it("a group question about carol shows carol's memories from this group, though carol did not write; her private ones stay private", async () => {
    h = await Harness.start();
    const carol = String(h.carol.id);
    // The persona knows carol (she wrote to it once, in private), but she writes nothing in the group.
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hi!" });
    h.gemini.script(plan());
    await h.pass(20_000);
    const now = h.clock.now();
    const mem = h.runtime.memories;
    mem.remember({
      chatId: h.group.peerId,
      subject: carol,
      toldBy: carol,
      content: "allergic to peanuts",
      now,
    });
    mem.remember({
      chatId: String(h.carol.id),
      subject: carol,
      toldBy: carol,
      content: "her peanut secret is 4711",
      now,
    });
    // Newer memories of the group about others, more than a prompt's memory budget holds.
    for (let i = 0; i < 20; i++)
      mem.remember({
        chatId: h.group.peerId,
        subject: String(i % 2 ? h.alice.id : h.bob.id),
        toldBy: String(i % 2 ? h.alice.id : h.bob.id),
        content: `fact number ${i} about hobby ${i * 7}`,
        now: now + 1000 + i,
      });
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai peanut butter cookies for carol's birthday?",
    });
    h.gemini.script(plan());
    await h.pass(20_000);
    const turn = lastUserText(lastPlan());
    expect(turn).not.toMatch(/^⟦#\d+ \[Carol\]/mu); // carol wrote nothing in view
    expect(turn).toMatch(
      /^⟦memory \[Carol\]\(tg:@carol\) · [^⟧]*⟧ \[Carol\]\(tg:@carol\) said: allergic to peanuts$/mu,
    );
    expect(turn).not.toContain("4711");
  });
});

describe("a refused task", () => {
  it("never silences the rest of the plan, and the next plan in the chat is told what was not done and why", async () => {
    h = await Harness.start();
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai carol is allergic to peanuts, remember that",
    });
    h.gemini.script(
      plan(
        { kind: "remember", content: "allergic to peanuts", about: "carol" },
        { kind: "send", text: "noted!" },
      ),
    );
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["noted!"]);
    expect(h.runtime.memories.count()).toBe(0); // never guessed into a chat note

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai did you get that?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(lastUserText(lastPlan())).toMatch(
      /^⟦system · [^⟧]*⟧ Your last plan's task 1 \(remember\) was not done: about: "carol" names nobody: use "@username", the id of a message the person wrote, "chat" or "me"$/mu,
    );
    // Told once.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai ok" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(lastUserText(lastPlan())).not.toContain("was not done");
  });
});

describe("the place", () => {
  it("a forum topic's request names the topic and the group; a DM's names its partner once", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({
      title: "Flat 3B",
      forum: true,
      members: [h.account, h.alice, h.bob],
    });
    const trip = h.emu.createTopic(forum, "Trip to Lisbon");
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.alice, text: "flights are booked", topicId: trip });
    await h.emu.post({ chat: forum, from: h.bob, text: "@mira_ai are you in?", topicId: trip });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(lastUserText(lastPlan()).split("\n")[0]).toMatch(
      /^⟦chat⟧ topic "Trip to Lisbon" in the group "Flat 3B" \(only this topic's messages\)( · \d+ members)?$/u,
    );

    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hey" });
    await h.emu.post({ chat: dm, from: h.carol, text: "you there?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    const turn = lastUserText(lastPlan());
    expect(turn.split("\n")[0]).toBe("⟦chat⟧ a private chat with [Carol](tg:@carol)");
    expect(turn.match(/tg:@carol/gu)).toHaveLength(1);
    expect(turn.match(/^⟦#\d+ \[Carol\] · /gmu)).toHaveLength(2);
  });
});
