import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/context/tokens";
import { curatedMemoryDir, loadCuratedMemories } from "../../src/memory/curated";
import { MEMORY_BUDGET_TOKENS } from "../../src/memory/recall";
import { Harness, plan } from "../support/harness";
import { tempDir } from "../support/temp-dir";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The system instruction of the i-th Gemini request. */
const system = (i: number) => h.gemini.requests[i]!.body.systemInstruction?.parts?.[0]?.text ?? "";
/** The user turn of the i-th Gemini request (where memories are: never in the system instruction). */
const user = (i: number) => (h.gemini.requests[i]!.body.contents ?? []).flatMap((c) => (c.parts ?? []).map((p) => p.text ?? "")).join("\n");
/** The memory section of a request's user turn: its lines "⟦memory <ref> · date⟧ fact". */
const memoryLines = (i: number) => {
  expect(system(i)).not.toContain("⟦memory");
  return user(i).split("\n").filter((l) => l.startsWith("⟦memory "));
};

describe("memories about people and chats", () => {
  it("keeps what it learnt about a person in a DM for where that person is, never for a group they are not in", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "careful, I'm allergic to peanuts" });
    h.gemini.script(plan({ kind: "remember", content: "Carol is allergic to peanuts" }, { kind: "send", text: "noted!" }));
    await h.pass(20_000);
    // The same fact again, reworded: merged, not stacked.
    await h.emu.post({ chat: dm, from: h.carol, text: "really, no peanuts" });
    h.gemini.script(plan({ kind: "remember", content: "carol is allergic to peanuts!" }));
    await h.pass(20_000);
    expect(h.runtime.memories.about(String(h.carol.id)).map((m) => m.content)).toEqual(["carol is allergic to peanuts!"]);

    // Club has alice and bob, not carol: the memory is not shown there, whatever the words.
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, peanuts for the party? anyone allergic?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines(2)).toEqual([]);
    expect(user(2)).not.toContain("allergic to peanuts");

    // In the supergroup, once carol has spoken in the window (alice's question replies to her,
    // so her message is in the question's thread), it is.
    const saturday = await h.emu.post({ chat: h.group, from: h.carol, text: "what are we bringing on saturday?" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai any snack ideas?", replyTo: saturday.id });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(4);
    expect(memoryLines(3)).toEqual([expect.stringMatching(/^⟦memory \[Carol\]\(tg:@carol\) · \d{4}-\d\d-\d\d⟧ carol is allergic to peanuts!$/)]);
  });

  it("stores a memory about the author of the message it names, the present person with that @username, or the chat", async () => {
    h = await Harness.start();
    const chess = await h.emu.post({ chat: h.group, from: h.carol, text: "anyone up for chess tonight?" });
    const moved = await h.emu.post({ chat: h.group, from: h.bob, text: "just moved to Lisbon" });
    // Alice answers carol's message, so carol is in the question's thread (present in the window).
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai remember where bob lives, and that we meet on fridays", replyTo: chess.id });
    h.gemini.script(
      plan(
        { kind: "remember", content: "Bob lives in Lisbon", about: String(moved.id) },
        { kind: "remember", content: "The group meets on fridays", about: "chat" },
        { kind: "remember", content: "Alice organises the meetings" },
        { kind: "remember", content: "Carol plays chess", about: "@Carol" },
        { kind: "remember", content: "Someone is new here", about: "@nobody_here" },
      ),
    );
    await h.pass(20_000);
    expect(h.runtime.memories.about(String(h.bob.id)).map((m) => m.content)).toEqual(["Bob lives in Lisbon"]);
    expect(h.runtime.memories.about(String(h.alice.id)).map((m) => m.content)).toEqual(["Alice organises the meetings"]);
    expect(h.runtime.memories.about(String(h.carol.id)).map((m) => m.content)).toEqual(["Carol plays chess"]);
    // A username nobody present has: a note about the chat, never pinned on someone.
    expect(h.runtime.memories.list(h.group.peerId).filter((m) => m.subject === undefined).map((m) => m.content)).toEqual(["The group meets on fridays", "Someone is new here"]);
  });

  it("picks the relevant memory out of 500, within the memory budget", async () => {
    h = await Harness.start();
    // 500 distinct memories (no two near-duplicates): Alice <verb> <thing> <place>.
    const verbs = ["painted", "sold", "borrowed", "fixed", "found", "lost", "bought", "cooked", "drew", "built"];
    const things = ["a bicycle", "a violin", "the chessboard", "a kite", "pasta", "a sailboat", "origami cranes", "a bookshelf", "a surfboard", "a lantern"];
    const places = ["in Porto", "at the lake", "near the station", "in the garden", "at school", "in Vienna", "by the river", "at the market", "on the roof", "in the attic"];
    const now = h.clock.now();
    for (let i = 0; i < 499; i++) {
      h.runtime.memories.remember({
        chatId: h.group.peerId,
        subject: String(h.alice.id),
        content: `Alice ${verbs[i % 10]} ${things[Math.floor(i / 10) % 10]} ${places[Math.floor(i / 100)]}`,
        now: now - (i + 1) * 60_000,
      });
    }
    h.runtime.memories.remember({ chatId: h.group.peerId, subject: String(h.alice.id), content: "Alice's favourite tea is genmaicha", now: now - 1000 * 60_000 });
    expect(h.runtime.memories.count()).toBe(500);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai which tea was my favourite again?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    const lines = memoryLines(0);
    expect(lines[0]).toMatch(/^⟦memory \[Alice\]\(tg:@alice\) · \d{4}-\d\d-\d\d⟧ Alice's favourite tea is genmaicha$/);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThan(30);
    expect(lines.reduce((n, l) => n + estimateTokens(l) + 1, 0)).toBeLessThanOrEqual(MEMORY_BUDGET_TOKENS);
  });

  it("includes a person's curated memory file where that person is present", async () => {
    const agents = tempDir();
    const dir = curatedMemoryDir(join(agents, "Mira.md"));
    mkdirSync(dir, { recursive: true });
    h = await Harness.start({ curated: new Map() }); // ids are known only once the world exists
    const aliceId = String(h.alice.id);
    writeFileSync(join(dir, `${aliceId}.md`), "# Alice\n- plays the cello in an orchestra\n- call her Ali\n");
    const curated = loadCuratedMemories(dir);
    await h.close();
    h = await Harness.start({ curated });
    // (A new world: the same ids, as the emulator numbers users in order.)
    expect(String(h.alice.id)).toBe(aliceId);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai guess what I play" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines(0)).toEqual(["⟦memory [Alice](tg:@alice) · curated⟧ plays the cello in an orchestra", "⟦memory [Alice](tg:@alice) · curated⟧ call her Ali"]);

    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(user(1)).not.toContain("cello");
  });
});
