import { describe, expect, it } from "vitest";
import { fuse, nearEnough } from "../../src/memory/hybrid";
import type { Memory } from "../../src/store/memories";

const m = (id: number, o: Partial<Memory> = {}): Memory => ({
  id,
  chatId: "-1001",
  content: `memory ${id}`,
  createdAt: 1000 + id,
  updatedAt: 1000 + id,
  ...o,
});

describe("hybrid ranking", () => {
  it("a memory both lists found comes first; one list's first beats its later ranks; at most `limit`", () => {
    const words = [m(1), m(2), m(3)];
    const meaning = [m(4), m(2), m(5)];
    const out = fuse({ words, meaning, present: [], limit: 10 }).map((x) => x.id);
    expect(out[0]).toBe(2);
    expect(out).toHaveLength(5);
    expect(fuse({ words, meaning, present: [], limit: 3 })).toHaveLength(3);
    expect(out.indexOf(1)).toBeLessThan(out.indexOf(3));
    expect(out.indexOf(4)).toBeLessThan(out.indexOf(5));
  });

  it("a memory about someone in view is lifted over one about someone absent at the same rank", () => {
    const out = fuse({
      words: [m(1, { subject: "absent" })],
      meaning: [m(2, { subject: "bob", updatedAt: 1000 })],
      present: ["bob"],
      limit: 2,
    });
    expect(out.map((x) => x.id)).toEqual([2, 1]);
  });

  it("neighbours far away, or far behind the nearest, are not matches", () => {
    const near = [
      { memory: m(1), distance: 0.3 },
      { memory: m(2), distance: 0.45 },
      { memory: m(3), distance: 0.6 },
    ];
    expect(nearEnough(near).map((x) => x.id)).toEqual([1, 2]);
    expect(nearEnough([{ memory: m(1), distance: 0.95 }])).toEqual([]);
  });
});
