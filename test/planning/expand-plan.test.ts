import { describe, expect, it } from "vitest";
import { validatePlan } from "../../src/planning/plan-schema";
import { expandPlan } from "../../src/planning/expand-plan";
import { splitText } from "../../src/planning/split-text";

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
      JSON.stringify({
        tasks: [
          { kind: "send", text: "hello there" },
          { kind: "wait", seconds: 3 },
          { kind: "sticker", sticker_set: "S", name: "😺" },
        ],
      }),
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
      JSON.stringify({
        tasks: [
          { kind: "remember", id: "t", content: "likes tea" },
          { kind: "send", text: "x" },
          { kind: "send", text: "y", depends_on: ["t"] },
        ],
      }),
      ctx,
    );
    const out = expandPlan(tasks, { pacing, waitFor: [7] });
    expect(out.map((t) => t.kind)).toEqual(["typing", "send", "typing", "send"]);
    expect(out[0]!.dependsOn).toEqual([7]);
    expect(out[2]!.after).toEqual([1]); // y's typing waits for x
  });

  it("splits a 10,000-character text into several sends, replying only with the first", () => {
    const text = Array.from({ length: 500 }, (_, i) => `Line ${i} of a long story.`)
      .join("\n")
      .slice(0, 10_000);
    const { tasks } = validatePlan(JSON.stringify({ tasks: [{ kind: "send", text, reply_to: 7 }] }), ctx);
    const sends = expandPlan(tasks, { pacing }).filter((t) => t.kind === "send");
    expect(sends.length).toBe(3);
    expect(sends.map((s) => (s.payload as { replyTo?: number }).replyTo)).toEqual([7, undefined, undefined]);
  });

  it("bounds a plan: messages (split parts and stickers count), characters (cut with …) and the total wait", () => {
    const bounds = { messages: 3, chars: 100, waitSec: 90 };
    const { tasks } = validatePlan(
      JSON.stringify({
        tasks: [
          { kind: "send", text: "a".repeat(40) },
          { kind: "wait", seconds: 60 },
          { kind: "sticker", sticker_set: "S", name: "😺" },
          { kind: "wait", seconds: 60 },
          { kind: "send", text: "Second sentence here. ".repeat(5) },
          { kind: "wait", seconds: 60 },
          { kind: "react", emoji: "👍", message_id: 5 },
          { kind: "send", text: "never" },
        ],
      }),
      ctx,
    );
    const cut: string[] = [];
    const out = expandPlan(tasks, { pacing, bounds, answers: [5], onCut: (w) => cut.push(w) });
    expect(out.map((t) => t.kind)).toEqual([
      "typing",
      "send",
      "wait",
      "typing",
      "sticker",
      "wait",
      "typing",
      "send",
      "react",
    ]);
    const texts = out.filter((t) => t.kind === "send").map((t) => (t.payload as { text: string }).text);
    expect(texts[0]).toBe("a".repeat(40));
    expect(texts[1]).toBe("Second sentence here. Second sentence here.…"); // at a sentence end, within the 60 left
    expect(texts.join("").length).toBeLessThanOrEqual(100);
    expect(
      out.filter((t) => t.kind === "wait").map((t) => (t.payload as { seconds: number }).seconds),
    ).toEqual([60, 30]);
    // The messages they answer travel with the sends and their typing (the answer-age check).
    expect(
      out
        .filter((t) => t.kind === "typing")
        .every((t) => (t.payload as { answers?: number[] }).answers?.[0] === 5),
    ).toBe(true);
    expect(cut).toEqual([
      "task 3 (wait): shortened to 30 s (at most 90 s of waiting per plan)",
      "task 4 (send): message 1 cut to 44 characters (at most 100 per plan)",
      "task 5 (wait): dropped (at most 90 s of waiting per plan)",
      "task 7 (send): 1 of its 1 message(s) dropped (at most 3 messages and 100 characters per plan)",
    ]);
  });
});
