import { describe, expect, it } from "vitest";
import { validatePlan } from "../../src/llm/plan-schema";
import { expandPlan } from "../../src/tasks/expand-plan";
import { splitText } from "../../src/tasks/split-text";

const pacing = { startTypingDelaySec: 1, typingSpeedCps: 10, readDelaySec: 2 };
const ctx = { isChatMessage: () => true, isDm: true, stickerSets: ["S"] };

describe("splitText", () => {
  it("splits at paragraph, then sentence boundaries, within the limit", () => {
    const para = "A".repeat(3000);
    const parts = splitText(`${para}\n\n${para}\n\n${para}`);
    expect(parts).toEqual([para, para, para]);
    const sentences = Array.from({ length: 400 }, (_, i) => `Sentence number ${i}.`).join(" ");
    const cut = splitText(sentences);
    expect(cut.every((p) => p.length <= 4096)).toBe(true);
    expect(cut.every((p) => p.endsWith("."))).toBe(true);
    expect(cut.join(" ")).toBe(sentences);
  });

  it("never splits a surrogate pair in text without breaks", () => {
    const emoji = "😀".repeat(3000);
    const parts = splitText(emoji);
    expect(parts.join("")).toBe(emoji);
    expect(parts.every((p) => p.length <= 4096 && !/^[\uDC00-\uDFFF]/.test(p))).toBe(true);
  });
});

describe("expandPlan", () => {
  it("puts typing before each send part and chains the plan in order", () => {
    const { tasks } = validatePlan(
      JSON.stringify({ tasks: [{ kind: "send", text: "hello there" }, { kind: "wait", seconds: 3 }, { kind: "sticker", sticker_set: "S", name: "😺" }] }),
      ctx,
    );
    const out = expandPlan(tasks, { pacing, waitFor: [42] });
    expect(out.map((t) => t.kind)).toEqual(["typing", "send", "wait", "typing", "sticker"]);
    expect(out[0]!.payload).toEqual({ seconds: 1 + 11 / 10, action: "typing" });
    expect(out[0]!.dependsOn).toEqual([42]);
    expect(out.slice(1).map((t) => t.after)).toEqual([[0], [1], [2], [3]]);
    expect(out[1]!.needsRandomId).toBe(true);
  });

  it("a task whose depends_on names only a remember still follows the previous task and the read", () => {
    const { tasks } = validatePlan(
      JSON.stringify({ tasks: [{ kind: "remember", id: "t", content: "likes tea" }, { kind: "send", text: "x" }, { kind: "send", text: "y", depends_on: ["t"] }] }),
      ctx,
    );
    const out = expandPlan(tasks, { pacing, waitFor: [7] });
    expect(out.map((t) => t.kind)).toEqual(["typing", "send", "typing", "send"]);
    expect(out[0]!.dependsOn).toEqual([7]);
    expect(out[2]!.after).toEqual([1]); // y's typing waits for x
  });

  it("splits a 10,000-character text into several sends, replying only with the first", () => {
    const text = Array.from({ length: 500 }, (_, i) => `Line ${i} of a long story.`).join("\n").slice(0, 10_000);
    const { tasks } = validatePlan(JSON.stringify({ tasks: [{ kind: "send", text, reply_to: 7 }] }), ctx);
    const sends = expandPlan(tasks, { pacing }).filter((t) => t.kind === "send");
    expect(sends.length).toBe(3);
    expect(sends.map((s) => (s.payload as { replyTo?: number }).replyTo)).toEqual([7, undefined, undefined]);
  });
});
