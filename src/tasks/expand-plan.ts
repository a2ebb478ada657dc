import type { PlanTask } from "../llm/plan-schema";
import { standardReaction } from "../telegram/standard-reactions";
import { STICKER_CHOICE_SEC, typingSeconds, type Pacing } from "./pacing";
import { splitText } from "./split-text";
import type { NewTask } from "./task";

export interface ExpandOptions {
  readonly pacing: Pacing;
  readonly topicId?: number;
  /** The addressed messages the plan answers (stored on its sends, see TaskPayloads). */
  readonly answers?: readonly number[];
  /** Open task ids of the chat the plan must wait for (e.g. the pending read mark). */
  readonly waitFor?: readonly number[];
  /**
   * Groups: the message the plan's first answer replies to if others wrote after it before it
   * goes out (the last addressed message); used only when the plan names no reply_to anywhere.
   */
  readonly replyTarget?: number;
}

/**
 * Turn a validated plan into graph tasks. Each `send` becomes typing → send per message part
 * (long text is split), each `sticker` a short "choosing sticker" pause → sticker. A task
 * without `depends_on` follows the previous one; with it, it follows exactly those.
 * `remember` does not enter the graph: the caller stores it.
 */
export function expandPlan(plan: readonly PlanTask[], o: ExpandOptions): NewTask[] {
  const out: NewTask[] = [];
  /** Index in `out` of the last task each plan entry produced. */
  const lastOf: number[] = [];
  let previous: number | undefined;
  // The General topic (1) of a forum takes no topic header.
  const topic = o.topicId !== undefined && o.topicId !== 1 ? { topicId: o.topicId } : {};
  const answers = o.answers?.length ? { answers: [...o.answers] } : {};
  const named = plan.some((t) => (t.kind === "send" || t.kind === "sticker") && t.reply_to !== undefined);
  let auto = !named && o.replyTarget !== undefined ? { autoReplyTo: o.replyTarget } : {};

  plan.forEach((t, i) => {
    // Explicit dependencies count only on tasks that entered the graph (not remember);
    // with none left, the task follows the previous one like any other.
    const explicit = (t.depends_on?.length ? t.deps : []).map((d) => lastOf[d]).filter((x): x is number => x !== undefined);
    let after: number[] = explicit.length ? explicit : previous !== undefined ? [previous] : [];
    // Whatever starts the graph waits for the chat to be read first.
    let dependsOn = after.length === 0 && o.waitFor?.length ? o.waitFor : undefined;
    const push = (task: NewTask): number => {
      out.push({ ...task, after, ...(dependsOn ? { dependsOn } : {}) });
      after = [out.length - 1];
      dependsOn = undefined;
      return out.length - 1;
    };
    let last: number | undefined;
    switch (t.kind) {
      case "send": {
        splitText(t.text).forEach((part, n) => {
          push({ kind: "typing", payload: { seconds: typingSeconds(part, o.pacing), action: "typing", ...topic } });
          const replyTo = n === 0 && t.reply_to !== undefined ? { replyTo: t.reply_to } : {};
          last = push({ kind: "send", payload: { text: part, ...replyTo, ...auto, ...topic, ...answers }, needsRandomId: true });
          auto = {};
        });
        break;
      }
      case "sticker":
        push({ kind: "typing", payload: { seconds: STICKER_CHOICE_SEC, action: "sticker", ...topic } });
        last = push({
          kind: "sticker",
          payload: { set: t.sticker_set, name: t.name, ...(t.reply_to !== undefined ? { replyTo: t.reply_to } : {}), ...auto, ...topic, ...answers },
          needsRandomId: true,
        });
        auto = {};
        break;
      case "react":
        // Telegram knows each reaction by one exact code-point sequence (e.g. "❤" without U+FE0F).
        last = push({ kind: "react", payload: { messageId: t.message_id, emoji: standardReaction(t.emoji) ?? t.emoji } });
        break;
      case "wait":
        last = push({ kind: "wait", payload: { seconds: t.seconds } });
        break;
      case "read":
        last = push({ kind: "read", payload: { maxId: t.message_id ?? 0 } });
        break;
      case "block":
      case "unblock":
        last = push({ kind: t.kind, payload: {} });
        break;
      case "remember":
        break;
    }
    if (last !== undefined) {
      lastOf[i] = last;
      previous = last;
    }
  });
  return out;
}
