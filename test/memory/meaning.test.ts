/**
 * The background embedding job and a plan's query (memory/meaning.ts) on a real SQLite file with
 * the real sqlite-vec extension, a fake clock and an in-process embedder that records when it is
 * called (the HTTP side is covered by test/e2e/memory-meaning.test.ts).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import type { EmbedRequest, Embedder } from "../../src/llm/embedder";
import { MemoryMeaning } from "../../src/memory/meaning";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import { MemoryStore } from "../../src/store/memories";
import { MemoryVectorStore } from "../../src/store/memory-vectors";
import { fakeEmbedding } from "../support/fake-embeddings";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";

const DIMS = 32;

class ScriptedEmbedder implements Embedder {
  readonly key = `fake:fake-embed@${DIMS}`;
  readonly model = "fake-embed";
  readonly dimensions = DIMS;
  readonly calls: { readonly at: number; readonly req: EmbedRequest }[] = [];
  /** How a query call ends: answered, or failed as a hung endpoint's deadline does. */
  queries: "answer" | "time out" = "answer";
  constructor(private readonly clock: FakeClock) {}
  onUsage(): () => void {
    return () => {};
  }
  async embed(req: EmbedRequest): Promise<Float32Array[]> {
    this.calls.push({ at: this.clock.now(), req });
    if (req.task === "query" && this.queries === "time out") throw new Error("Request timed out.");
    return req.texts.map((t) => Float32Array.from(fakeEmbedding(t, DIMS)));
  }
}

let db: Db | undefined;
afterEach(() => {
  if (db) closeDatabase(db);
  db = undefined;
});

function rig(o: { vectors?: (db: Db) => MemoryVectorStore } = {}) {
  db = openDatabase(join(tempDir(), "state.db"));
  const clock = new FakeClock();
  const memories = new MemoryStore(db, "Mira");
  const vectors = o.vectors?.(db) ?? new MemoryVectorStore(db, "Mira");
  const embedder = new ScriptedEmbedder(clock);
  const log = captureLogger();
  const meaning = new MemoryMeaning({ embedder, vectors, memories, clock, logger: log.logger });
  const remember = (content: string) => memories.remember({ chatId: "-1001", content, now: clock.now() });
  return { clock, memories, vectors, embedder, meaning, log, remember };
}

describe("memory by meaning's background job and query", () => {
  it("a memory stored right after a call waits for the 2 s gap: at most one call per 2 s", async () => {
    const r = rig();
    r.meaning.start();
    r.remember("bob's puppy Rex chewed the sofa");
    await r.clock.advance(10);
    expect(r.embedder.calls).toHaveLength(1);
    const first = r.embedder.calls[0]!.at;
    r.remember("carol can't eat peanuts");
    await r.clock.advance(100);
    r.remember("the group meets on thursdays");
    await r.clock.advance(5_000);
    expect(r.embedder.calls).toHaveLength(2);
    expect(r.embedder.calls[1]!.at - first).toBeGreaterThanOrEqual(2_000);
    expect(r.embedder.calls[1]!.req.texts).toHaveLength(2);
    r.meaning.stop();
  });

  it("after a query timed out, the next plans do not wait for the endpoint; a few minutes later they try again", async () => {
    const r = rig();
    r.meaning.start();
    r.remember("bob's puppy Rex chewed the sofa");
    await r.clock.advance(10);
    r.embedder.queries = "time out";
    const queries = () => r.embedder.calls.filter((c) => c.req.task === "query").length;
    expect(await r.meaning.queryVector("what did bob say about his dog?", "-1001")).toBeUndefined();
    expect(queries()).toBe(1);
    await r.clock.advance(60_000);
    expect(await r.meaning.queryVector("is anyone allergic?", "-1001")).toBeUndefined();
    expect(queries()).toBe(1); // not called: this plan did not wait
    r.embedder.queries = "answer";
    await r.clock.advance(5 * 60_000);
    const q = await r.meaning.queryVector("is anyone allergic?", "-1001");
    expect(queries()).toBe(2);
    expect(q?.nearest({ chatId: "-1001", present: [] }, 5).map((n) => n.memory.content)).toEqual([
      "bob's puppy Rex chewed the sofa",
    ]);
    r.meaning.stop();
  });

  it("while the background's calls fail, a plan does not wait for a query embedding", async () => {
    const r = rig();
    r.meaning.start();
    r.remember("bob's puppy Rex chewed the sofa");
    await r.clock.advance(10);
    const embed = r.embedder.embed.bind(r.embedder);
    r.embedder.embed = async (req) => {
      if (req.task === "document") {
        r.embedder.calls.push({ at: r.clock.now(), req });
        throw new Error("503 Service Unavailable");
      }
      return embed(req);
    };
    r.remember("carol can't eat peanuts");
    await r.clock.advance(3_000);
    const before = r.embedder.calls.length;
    expect(await r.meaning.queryVector("is anyone allergic?", "-1001")).toBeUndefined();
    expect(r.embedder.calls.slice(before).filter((c) => c.req.task === "query")).toEqual([]);
    r.meaning.stop();
  });

  it("a store that fails while checking for vectors leaves the plan to its words: queryVector never throws", async () => {
    class Broken extends MemoryVectorStore {
      override hasAny(): boolean {
        throw new Error("SQLITE_BUSY: database is locked");
      }
    }
    const r = rig({ vectors: (d) => new Broken(d, "Mira") });
    await expect(r.meaning.queryVector("what did bob say about his dog?", "-1001")).resolves.toBeUndefined();
    expect(r.log.lines().some((l) => String(l.msg).startsWith("recall by meaning failed"))).toBe(true);
  });
});
