import { describe, expect, it } from "vitest";
import { validatePlan } from "../../src/planning/plan-schema";
import { expandPlan } from "../../src/planning/expand-plan";
import { splitText } from "../../src/planning/split-text";

const pacing = { startTypingDelaySec: 1, typingSpeedCps: 10, readDelaySec: 2 };
const ctx = { inView: () => true, isDm: true, stickerSets: ["S"] };

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
          { kind: "sticker", set: "S", emoji: "😺" },
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

  it("a remember does not enter the graph: the send after it follows the previous task and the read", () => {
    const { tasks } = validatePlan(
      JSON.stringify({
        tasks: [
          { kind: "remember", content: "likes tea" },
          { kind: "send", text: "x" },
          { kind: "remember", content: "I have a cat", about: "me" },
          { kind: "send", text: "y" },
        ],
      }),
      ctx,
    );
    const out = expandPlan(tasks, { pacing, waitFor: [7] });
    expect(out.map((t) => t.kind)).toEqual(["typing", "send", "typing", "send"]);
    expect(out[0]!.dependsOn).toEqual([7]);
    expect(out[2]!.after).toEqual([1]); // y's typing waits for x
  });

  it("sends Markdown as formatting entities, never as markers, with UTF-16 offsets after emoji", () => {
    const { tasks } = validatePlan(
      JSON.stringify({
        tasks: [{ kind: "send", text: "🎉 **done** and _fine_, see `x` at [docs](https://example.org/a)" }],
      }),
      ctx,
    );
    const send = expandPlan(tasks, { pacing }).find((t) => t.kind === "send")!;
    expect(send.payload).toMatchObject({
      text: "🎉 done and fine, see x at docs",
      entities: [
        { kind: "bold", offset: 3, length: 4 },
        { kind: "italic", offset: 12, length: 4 },
        { kind: "code", offset: 22, length: 1 },
        { kind: "link", offset: 27, length: 4, url: "https://example.org/a" },
      ],
    });
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

  it("keeps entities whole across the 4,096 split: a bold run is never cut, and each part's offsets are its own", () => {
    const filler = "word ".repeat(810); // 4,050 characters
    const text = `${filler}**${"bold ".repeat(20).trim()}** after`;
    const { tasks } = validatePlan(JSON.stringify({ tasks: [{ kind: "send", text }] }), ctx);
    const sends = expandPlan(tasks, { pacing }).filter((t) => t.kind === "send");
    const parts = sends.map(
      (s) => s.payload as { text: string; entities?: { offset: number; length: number }[] },
    );
    expect(parts).toHaveLength(2);
    expect(parts[0]!.text).toBe(filler.trim());
    expect(parts[0]!.entities).toBeUndefined();
    expect(parts[1]!.text).toBe(`${"bold ".repeat(20).trim()} after`);
    expect(parts[1]!.entities).toEqual([{ kind: "bold", offset: 0, length: 99 }]);
    expect(parts.every((p) => p.text.length <= 4096 && !p.text.includes("**"))).toBe(true);
  });

  it("bounds a plan: messages (split parts and stickers count), characters (cut with …) and the total wait", () => {
    const bounds = { messages: 3, chars: 100, waitSec: 90, reactions: 3, remembers: 3 };
    const { tasks } = validatePlan(
      JSON.stringify({
        tasks: [
          { kind: "send", text: "a".repeat(40) },
          { kind: "wait", seconds: 60 },
          { kind: "sticker", set: "S", emoji: "😺" },
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
