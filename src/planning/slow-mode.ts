import type { PlanTask } from "./plan-schema";

/**
 * A plan for a chat in slow mode (base/chat-writes.ts): one message per answer. Telegram lets a
 * member send one message per window (10 s to 1 h) and answers the next one early with
 * SLOWMODE_WAIT, so a two-part answer would reach the chat a window apart, or — past the
 * answer-age limit — half of it never. Its texts are merged into the first send (a blank line
 * between them, where the first one replied); a sticker goes only when no text does (the first
 * one). The rest of the plan is kept as it is.
 */
function oneMessage(tasks: readonly PlanTask[]): PlanTask[] {
  const sends = tasks.filter((t): t is Extract<PlanTask, { kind: "send" }> => t.kind === "send");
  const firstSticker = tasks.find((t) => t.kind === "sticker");
  if (sends.length + (firstSticker ? 1 : 0) <= 1) return [...tasks];
  const out: PlanTask[] = [];
  for (const t of tasks) {
    if (t.kind === "send") {
      if (t !== sends[0]) continue;
      out.push({ ...t, text: sends.map((x) => x.text.trim()).join("\n\n") });
    } else if (t.kind === "sticker") {
      if (sends.length === 0 && t === firstSticker) out.push(t);
    } else out.push(t);
  }
  return out;
}

/**
 * The plan as carried out in slow mode: one message per answer (oneMessage) — with a look-up
 * the one message is the answer it brings, so no "let me check" takes the window (its sends and
 * stickers are left out).
 */
export function inSlowMode(tasks: readonly PlanTask[], looksUp: boolean): readonly PlanTask[] {
  return looksUp ? tasks.filter((t) => t.kind !== "send" && t.kind !== "sticker") : oneMessage(tasks);
}
