/**
 * Memory by meaning (docs/memory.md "Recall by meaning", issue 41): memories embedded in the
 * background through the real SDKs against the loopback fakes (their deterministic vectors:
 * test/support/fake-embeddings.ts), recalled through the real planning path into the request,
 * scoped in the query, on a real SQLite file with the real sqlite-vec extension.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryVectorStore } from "../../src/store/memory-vectors";
import { fakeEmbedding } from "../support/fake-embeddings";
import { Harness, plan } from "../support/harness";
import { OpenAiFake } from "../support/openai-fake";

let h: Harness;
let openai: OpenAiFake | undefined;
afterEach(async () => {
  await h?.close();
  await openai?.close();
  openai = undefined;
});

/** The memory lines of a request's user turn. */
const memoryLines = (i = h.lastPlanIndex()): string[] =>
  (h.gemini.requests[i]?.body.contents ?? [])
    .flatMap((c) => (c.parts ?? []).map((p) => p.text ?? ""))
    .join("\n")
    .split("\n")
    .filter((l) => l.startsWith("⟦memory "));

/** Bob's dog, told long ago in the group, then newer memories enough to fill the prompt's budget. */
function seed(h: Harness): void {
  const m = h.runtime.memories;
  const bob = String(h.bob.id);
  const group = h.group.peerId;
  const t0 = h.clock.now() - 30 * 86_400_000;
  m.remember({ chatId: group, subject: bob, toldBy: bob, content: "his puppy Rex chewed the sofa", now: t0 });
  m.remember({ chatId: group, subject: bob, toldBy: bob, content: "loves jazz records", now: t0 + 1000 });
  m.remember({
    chatId: group,
    subject: bob,
    toldBy: bob,
    content: "works nights at the bakery",
    now: t0 + 2000,
  });
  const notes = ["tea", "chess", "rain", "trains", "maps", "kites", "violins", "lamps", "boats", "bikes"];
  notes.forEach((w, i) =>
    m.remember({
      chatId: group,
      toldBy: String(h.alice.id),
      content: `the group meets on thursdays to talk about ${w} number ${i}`,
      now: t0 + 10_000 + i * 1000,
    }),
  );
}

describe("memory by meaning", () => {
  it('"what did bob say about his dog?" finds "his puppy Rex chewed the sofa" by meaning; by words alone it does not', async () => {
    for (const meaning of [false, true]) {
      h = await Harness.start(meaning ? { embeddings: { dimensions: 128 } } : {});
      seed(h);
      await h.pass(20_000); // the background embeds the backlog (bounded: a batch per gap)
      const before = h.gemini.embedRequests.length;
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did bob say about his dog?" });
      h.gemini.script(plan());
      await h.pass(20_000);
      const lines = memoryLines().join("\n");
      if (meaning) {
        expect(lines).toContain("his puppy Rex chewed the sofa");
        // Once per plan for the query, as a query; the memories as documents, at the set size.
        const queries = h.gemini.embedRequests.slice(before).filter((r) => r.taskType === "RETRIEVAL_QUERY");
        expect(queries.map((r) => r.texts)).toEqual([["@mira_ai what did bob say about his dog?"]]);
        expect(h.gemini.embedRequests[0]).toMatchObject({ dimensions: 128, taskType: "RETRIEVAL_DOCUMENT" });
        // Counted under its own purpose in /status.
        await h.ownerSays("/status");
        await h.pass(2_000);
        expect(h.savedReplies().at(-1)).toMatch(/LLM calls by purpose: .*embed \d+/);
        expect(h.savedReplies().at(-1)).toContain(
          "Recall by meaning: 13 of 13 memories embedded (gemini:gemini-embedding-001@128)",
        );
      } else {
        expect(memoryLines().length).toBeGreaterThan(3); // the budget is full of other memories
        expect(lines).not.toContain("puppy");
        expect(h.gemini.embedRequests).toEqual([]);
      }
      await h.close();
    }
  });

  it("a secret told in a DM is never a nearest neighbour in the group's request, though it is the nearest in the DM", async () => {
    h = await Harness.start({ embeddings: { dimensions: 128 } });
    const carol = String(h.carol.id);
    const dm = h.emu.dm(h.account, h.carol);
    h.runtime.memories.remember({
      chatId: dm.peerId,
      subject: carol,
      toldBy: carol,
      content: "her dog Rex is secretly very sick",
      now: h.clock.now() - 86_400_000,
    });
    h.runtime.memories.remember({
      chatId: h.group.peerId,
      toldBy: String(h.alice.id),
      content: "the group meets on thursdays",
      now: h.clock.now() - 3_600_000,
    });
    await h.pass(10_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai is the puppy rex sick?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    const group = h.lastPlanIndex();
    expect(h.gemini.requests[group]!.body.contents!.map((c) => JSON.stringify(c)).join("")).not.toContain(
      "secretly",
    );
    expect(memoryLines(group).join("\n")).toContain("thursdays");
    // The same question in her DM: there it is the nearest memory.
    await h.emu.post({ chat: dm, from: h.carol, text: "how is the puppy doing these days?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines()[0]).toContain("her dog Rex is secretly very sick");
    // And the vector store itself, asked for the group, never returns it.
    const vectors = new MemoryVectorStore(h.db, h.persona.name);
    const key = "gemini:gemini-embedding-001@128";
    const q = Float32Array.from(fakeEmbedding("is the puppy rex sick?", 128));
    const near = vectors.nearest({ chatId: h.group.peerId, present: [carol] }, key, q, 50);
    expect(near.map((n) => n.memory.content)).toEqual(["the group meets on thursdays"]);
  });

  it("a failed embedding loses nothing: the memory is stored, found by its words, and embedded later", async () => {
    h = await Harness.start({ embeddings: { dimensions: 128 } });
    h.gemini.embedFailures = [503, 503, 503];
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai my puppy Rex chewed the sofa again" });
    h.gemini.script(plan({ kind: "remember", content: "Bob's puppy Rex chewed the sofa" }));
    await h.pass(20_000);
    expect(h.runtime.memories.about(String(h.bob.id))).toEqual([
      expect.objectContaining({ content: "Bob's puppy Rex chewed the sofa" }),
    ]);
    const warnings = h.log.lines().filter((l) => String(l.msg).startsWith("embedding memories failed"));
    expect(warnings.filter((l) => l.level === 40)).toHaveLength(1); // one warning per run of failures
    const vectors = new MemoryVectorStore(h.db, h.persona.name);
    const key = "gemini:gemini-embedding-001@128";
    expect(vectors.progress(key)).toMatchObject({ total: 1, embedded: 0 });
    // /status names the last failure, not "the rest in the background".
    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toMatch(
      /Recall by meaning: 0 of 1 memories embedded \(gemini:gemini-embedding-001@128\); last failure at \d\d:\d\d UTC: .*503/,
    );
    // Found by its words meanwhile.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai who has a sofa?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines().join("\n")).toContain("Rex chewed the sofa");
    // The backoff passes, the provider answers again: embedded.
    await h.pass(120_000);
    expect(vectors.progress(key)).toMatchObject({ total: 1, embedded: 1 });
  });

  it("the owner's /pause of every chat holds the background embedding; /resume lets it go on", async () => {
    h = await Harness.start({ embeddings: { dimensions: 128 } });
    await h.ownerSays("/pause");
    await h.pass(2_000);
    seed(h);
    await h.pass(60_000);
    expect(h.gemini.embedRequests).toEqual([]);
    await h.ownerSays("/resume");
    await h.pass(70_000); // within a minute of the /resume (not the quarter of an hour it once waited)
    const vectors = new MemoryVectorStore(h.db, h.persona.name);
    expect(vectors.progress("gemini:gemini-embedding-001@128")).toMatchObject({ total: 13, embedded: 13 });
  });

  it("a database where the extension cannot load recalls by words, with one warning, and embeds nothing", async () => {
    h = await Harness.start({
      embeddings: {
        dimensions: 128,
        vectorExtension: () => {
          throw new Error("cannot open shared object file");
        },
      },
    });
    seed(h);
    await h.pass(10_000);
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai what did bob say about his dog? the sofa?",
    });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines().join("\n")).toContain("his puppy Rex chewed the sofa"); // by the word "sofa"
    expect(h.gemini.embedRequests).toEqual([]);
    const off = h.log.lines().filter((l) => String(l.msg).startsWith("recall by meaning is off"));
    expect(off).toHaveLength(1);
    expect(off[0]!.level).toBe(40);
    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toContain(
      "Recall by meaning: off — the sqlite-vec extension did not load (cannot open shared object file); memories are found by their words",
    );
  });

  it("a model whose dimensions change re-embeds in the background, with one warning; the old vectors are never compared", async () => {
    h = await Harness.start({ embeddings: { dimensions: 128 } });
    seed(h);
    await h.pass(20_000);
    const vectors = () => new MemoryVectorStore(h.db, h.persona.name);
    expect(vectors().progress("gemini:gemini-embedding-001@128")).toMatchObject({ total: 13, embedded: 13 });
    h.embeddingsNow = { dimensions: 256 };
    // The new model's first calls fail: meanwhile the 128-size vectors must not be compared.
    h.gemini.embedFailures = [503];
    await h.restart();
    const changed = h.log.lines().filter((l) => String(l.msg).startsWith("the embedding model changed"));
    expect(changed).toHaveLength(1);
    await h.pass(1_000);
    expect(vectors().progress("gemini:gemini-embedding-001@256")).toMatchObject({ total: 13, embedded: 0 });
    // Asked while nothing is embedded at the new size: answered from words ("sofa"), without errors.
    h.gemini.embedFailures = [503, 503, 503];
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did bob say about his sofa?" });
    h.gemini.script(plan());
    await h.pass(3_000);
    expect(memoryLines().join("\n")).toContain("his puppy Rex chewed the sofa");
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
    // The provider answers again: the backlog is embedded at the new size, and found by meaning.
    h.gemini.embedFailures = [];
    const before = h.gemini.embedRequests.length;
    await h.pass(11 * 60_000);
    expect(vectors().progress("gemini:gemini-embedding-001@256")).toMatchObject({ total: 13, embedded: 13 });
    expect(h.gemini.embedRequests.slice(before).every((r) => r.dimensions === 256)).toBe(true);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did bob say about his dog?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(memoryLines().join("\n")).toContain("his puppy Rex chewed the sofa");
  });

  it("one memory the provider refuses does not hold back the others: they are embedded, it is skipped for a while, /status says why", async () => {
    h = await Harness.start({ embeddings: { dimensions: 128 } });
    h.gemini.embedRefuses = (t) => t.includes("UNEMBEDDABLE");
    const m = h.runtime.memories;
    const group = h.group.peerId;
    const alice = String(h.alice.id);
    const now = h.clock.now();
    m.remember({ chatId: group, toldBy: alice, content: "carol can't eat peanuts", now: now - 4000 });
    m.remember({ chatId: group, toldBy: alice, content: "bob's puppy Rex chewed the sofa", now: now - 3000 });
    m.remember({ chatId: group, toldBy: alice, content: "the group meets on thursdays", now: now - 2000 });
    // The newest: in every "newest first" batch.
    m.remember({
      chatId: group,
      toldBy: alice,
      content: "UNEMBEDDABLE " + "x".repeat(5000),
      now: now - 1000,
    });
    await h.pass(30_000);
    const vectors = new MemoryVectorStore(h.db, h.persona.name);
    const key = "gemini:gemini-embedding-001@128";
    expect(vectors.progress(key)).toMatchObject({ total: 4, embedded: 3 });
    // Texts are cut before they are sent.
    expect(
      Math.max(...h.gemini.embedRequests.flatMap((r) => r.texts.map((t) => t.length))),
    ).toBeLessThanOrEqual(1_500);
    const refused = h.log
      .lines()
      .filter((l) => String(l.msg).startsWith("the embedding provider refused one memory"));
    expect(refused).toHaveLength(1);
    // Skipped for a while: no more calls for it, and no backoff holding the others.
    // Refused in its batch, then alone.
    expect(h.gemini.embedRequests.filter((r) => r.taskType === "refused").length).toBe(2);
    const calls = h.gemini.embedRequests.length;
    await h.pass(10 * 60_000);
    expect(h.gemini.embedRequests.length).toBe(calls);
    m.remember({ chatId: group, toldBy: alice, content: "dave plays the violin", now: h.clock.now() });
    await h.pass(5_000);
    expect(h.gemini.embedRequests.length).toBe(calls + 1);
    expect(vectors.progress(key)).toMatchObject({ total: 5, embedded: 4 });
    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toMatch(
      /Recall by meaning: 4 of 5 memories embedded \(gemini:gemini-embedding-001@128\); 1 refused by the provider, tried again later; last failure at \d\d:\d\d UTC: .*invalid argument/i,
    );
    // Tried again later (an hour): refused again, skipped longer.
    await h.pass(61 * 60_000);
    expect(h.gemini.embedRequests.filter((r) => r.taskType === "refused").length).toBe(3);
  });

  it("a local model replaced under the same name with another size is noticed and re-embedded, with one warning", async () => {
    openai = await OpenAiFake.start();
    h = await Harness.start({ openai, embeddings: { model: "nomic-embed-text" } });
    seed(h);
    await h.pass(20_000);
    const vectors = () => new MemoryVectorStore(h.db, h.persona.name);
    expect(vectors().progress("openai:nomic-embed-text", 384)).toMatchObject({ total: 13, embedded: 13 });
    openai.embeddingSize = 768;
    await h.restart();
    await h.pass(20_000);
    expect(vectors().progress("openai:nomic-embed-text", 768)).toMatchObject({ total: 13, embedded: 13 });
    const warned = h.log.lines().filter((l) => String(l.msg).includes("now answers 768 dimensions"));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain("13 memories are found by their words");
    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toContain(
      "Recall by meaning: 13 of 13 memories embedded (openai:nomic-embed-text)",
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did bob say about his dog?" });
    openai.reply({ json: { tasks: [] } });
    await h.pass(20_000);
    const user = openai.requests
      .at(-1)!
      .body.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("\n");
    expect(user).toContain("his puppy Rex chewed the sofa");
  });

  it("with an OpenAI-compatible server, /v1/embeddings finds the paraphrase too", async () => {
    openai = await OpenAiFake.start();
    h = await Harness.start({ openai, embeddings: { model: "nomic-embed-text" } });
    seed(h);
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did bob say about his dog?" });
    openai.reply({ json: { tasks: [] } });
    await h.pass(20_000);
    const last = openai.requests.at(-1)!;
    const user = last.body.messages
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("\n");
    expect(user).toContain("his puppy Rex chewed the sofa");
    expect(openai.embedRequests[0]).toMatchObject({ model: "nomic-embed-text", dimensions: undefined });
    expect(openai.embedRequests.at(-1)!.input).toEqual(["@mira_ai what did bob say about his dog?"]);
  });
});
