import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupDatabase } from "../../src/store/backup";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { MemoryStore } from "../../src/store/memories";
import { MemoryVectorStore } from "../../src/store/memory-vectors";
import { tempDir } from "../support/temp-dir";

const KEY = "gemini:gemini-embedding-001@4";
const vec = (...x: number[]) => Float32Array.from(x);

describe("memory vectors in the state database", () => {
  it("a deleted memory takes its vector with it, a reworded one loses it (pending again), and a backup carries them", async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, "state.db"));
    const memories = new MemoryStore(db, "Mira");
    const vectors = new MemoryVectorStore(db, "Mira");
    const a = memories.remember({ chatId: "-1001", content: "bob's puppy Rex chewed the sofa", now: 1 });
    const b = memories.remember({ chatId: "-1001", content: "carol has a peanut allergy", now: 2 });
    for (const [id, v] of [
      [a.id, vec(1, 0, 0, 0)],
      [b.id, vec(0, 1, 0, 0)],
    ] as const)
      expect(vectors.put({ id, content: memories.get(id)!.content }, KEY, v, 3)).toBe(true);
    expect(vectors.pending(KEY, 10)).toEqual([]);
    // A vector of what the memory no longer says is not kept.
    expect(vectors.put({ id: a.id, content: "something it never said" }, KEY, vec(0, 0, 1, 0), 4)).toBe(
      false,
    );

    const viewer = { chatId: "-1001", present: [] };
    expect(vectors.nearest(viewer, KEY, vec(0.9, 0.1, 0, 0), 5).map((n) => n.memory.id)).toEqual([
      a.id,
      b.id,
    ]);
    // Another model's vectors are never compared.
    expect(vectors.nearest(viewer, "gemini:gemini-embedding-001@8", vec(1, 0, 0, 0), 5)).toEqual([]);
    // Nor vectors of another size under the same key (a local model replaced under its name).
    expect(vectors.nearest(viewer, KEY, vec(1, 0, 0, 0, 0, 0), 5)).toEqual([]);

    const backup = join(dir, "backup.db");
    await backupDatabase(join(dir, "state.db"), backup);
    const copy = openDatabase(backup);
    expect(new MemoryVectorStore(copy, "Mira").progress(KEY)).toEqual({ total: 2, embedded: 2, otherKey: 0 });
    closeDatabase(copy);

    memories.edit(b.id, "carol cannot eat peanuts", 5);
    expect(vectors.pending(KEY, 10)).toEqual([{ id: b.id, content: "carol cannot eat peanuts" }]);
    memories.forget(a.id);
    expect(vectors.progress(KEY)).toEqual({ total: 1, embedded: 0, otherKey: 0 });
    expect(db.prepare("SELECT count(*) FROM memory_vectors").pluck().get()).toBe(0);
    closeDatabase(db);
  });
});
