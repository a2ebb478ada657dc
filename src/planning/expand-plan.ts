import type { PlanTask } from "./plan-schema";
import { STICKER_CHOICE_SEC, typingSeconds, type Pacing } from "../tasks/pacing";
import { parseMarkdown, type FormattedText } from "../base/text-format";
import { splitFormatted } from "./split-text";
import type { NewTask } from "../tasks/task";
import { speakingSeconds, writtenInstead, type VoiceOffer } from "./voice-offer";

/**
 * What one plan may do at most, whatever the model asks: one answer is a few messages, not a
 * flood, and it comes now, not tomorrow.
 */
export interface PlanBounds {
  /** Messages: every part of a split text counts, and every sticker. */
  readonly messages: number;
  /** Characters (UTF-16 units, as Telegram counts) of all its texts together. */
  readonly chars: number;
  /** Seconds its waits add up to. */
  readonly waitSec: number;
  /** Reactions (one plan answers; it does not react to the whole history). */
  readonly reactions: number;
  /** Memories it stores. */
  readonly remembers: number;
}

/** The bounds of every plan (README "The task engine"). */
export const PLAN_BOUNDS: PlanBounds = Object.freeze({
  messages: 6,
  chars: 8192,
  waitSec: 600,
  reactions: 3,
  remembers: 3,
});

/** A plan's `remember` as its task stores it (decided from the messages, never by the model). */
export type RememberPayload = NewTask<"remember">["payload"];

/** A text cut at the plan's character bound ends with this. */
const CUT_MARK = "…";
/** A remainder shorter than this is not worth a message of its own: the part is dropped instead. */
const MIN_CUT_CHARS = 16;

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
  /** Default PLAN_BOUNDS. */
  readonly bounds?: PlanBounds;
  /** Told what the bounds cut (one short description per plan entry); the caller logs it once. */
  readonly onCut?: (what: string) => void;
  /**
   * Seconds to wait before the plan starts (busy hours, `# Busy`: the typing starts later), a
   * `wait` task ahead of everything, outside the plan's own wait bound. 0 or absent: none.
   */
  readonly delayStartSec?: number;
  /**
   * What a `remember` stores (who it is about, who said it, in which message); undefined: it
   * stores nothing. Absent: remembers are dropped.
   */
  readonly remember?: (t: Extract<PlanTask, { kind: "remember" }>) => RememberPayload | undefined;
  /**
   * A send may be spoken here (planning/voice-offer.ts): a `voice` send becomes "recording a voice
   * message" for as long as the words take to say → a voice send of its plain words, unless it is
   * too long or carries a link or code (then it is written; `onCut` is told). Absent: every send is written.
   */
  readonly voice?: VoiceOffer;
}

/**
 * Turn a validated plan into graph tasks, in plan order. Each `send` becomes typing → send per
 * message part: its Markdown is turned into formatting entities (base/text-format.ts) and the
 * plain text is split at Telegram's limit with the entities kept whole (split-text.ts). Each
 * `sticker` is a short "choosing sticker" pause → sticker. A `remember` is a task of its own,
 * outside the chain (a failed send does not lose it), admitted like every task right before it
 * stores anything (planning/remember-handler.ts).
 *
 * The plan is bounded (PLAN_BOUNDS), in plan order: messages past the message bound are dropped,
 * the text that crosses the character bound is cut there (ending in "…"), and a wait past the
 * total wait is shortened or dropped, reactions and remembers past theirs are dropped; `onCut`
 * is told each time. Sends, stickers and their typing
 * carry the messages they answer, so each checks the answer-age limit again right before it runs
 * (handlers/answer-age.ts).
 */
export function expandPlan(plan: readonly PlanTask[], o: ExpandOptions): NewTask[] {
  const out: NewTask[] = [];
  let previous: number | undefined;
  // The General topic (1) of a forum takes no topic header.
  const topic = o.topicId !== undefined && o.topicId !== 1 ? { topicId: o.topicId } : {};
  const answers = o.answers?.length ? { answers: [...o.answers] } : {};
  const named = plan.some((t) => (t.kind === "send" || t.kind === "sticker") && t.reply_to !== undefined);
  let auto = !named && o.replyTarget !== undefined ? { autoReplyTo: o.replyTarget } : {};
  const bounds = o.bounds ?? PLAN_BOUNDS;
  let messagesLeft = bounds.messages;
  let charsLeft = bounds.chars;
  let waitLeft = bounds.waitSec;
  let reactionsLeft = bounds.reactions;
  let remembersLeft = bounds.remembers;
  const cut = (what: string) => o.onCut?.(what);
  // Busy: the persona gets to it later (a wait first, after the read mark).
  if (
    (o.delayStartSec ?? 0) > 0 &&
    plan.some((t) => t.kind !== "remember" && t.kind !== "schedule" && t.kind !== "cancel_schedule")
  ) {
    out.push({
      kind: "wait",
      payload: { seconds: Math.round(o.delayStartSec! * 1000) / 1000 },
      ...(o.waitFor?.length ? { dependsOn: o.waitFor } : {}),
    });
    previous = 0;
  }

  plan.forEach((t, i) => {
    let after: number[] = previous !== undefined ? [previous] : [];
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
        // Where she may not write (o.voice.only), every send is spoken, and one that cannot be is dropped.
        const only = o.voice?.only === true;
        const spoken = (t.voice === true || only) && o.voice ? parseMarkdown(t.text).text.trim() : undefined;
        const why = spoken !== undefined && o.voice ? writtenInstead(spoken, o.voice.maxSeconds) : undefined;
        if (why !== undefined)
          cut(
            `task ${i} (send): ${only ? "dropped (this chat takes no text from her)" : "written"}, not spoken: ${why}`,
          );
        if (
          spoken !== undefined &&
          spoken !== "" &&
          why === undefined &&
          messagesLeft > 0 &&
          spoken.length <= charsLeft
        ) {
          messagesLeft--;
          charsLeft -= spoken.length;
          push({
            kind: "typing",
            payload: {
              seconds: Math.min(o.voice!.maxSeconds, o.pacing.startTypingDelaySec + speakingSeconds(spoken)),
              action: "record",
              ...topic,
              ...answers,
            },
          });
          last = push({
            kind: "send",
            payload: {
              text: spoken,
              voice: true,
              ...(only ? { voiceOnly: true } : {}),
              ...(t.reply_to !== undefined ? { replyTo: t.reply_to } : {}),
              ...auto,
              ...topic,
              ...answers,
            },
            needsRandomId: true,
          });
          auto = {};
          break;
        }
        if (only) {
          if (why === undefined)
            cut(
              `task ${i} (send): dropped (at most ${bounds.messages} messages and ${bounds.chars} characters per plan)`,
            );
          break;
        }
        const parts = splitFormatted(parseMarkdown(t.text));
        for (const [n, whole] of parts.entries()) {
          let part: FormattedText = whole;
          if (part.text.length > charsLeft)
            part =
              charsLeft >= MIN_CUT_CHARS
                ? cutAt(part, charsLeft - CUT_MARK.length)
                : { text: "", entities: [] };
          if (messagesLeft === 0 || part.text === "") {
            cut(
              `task ${i} (send): ${parts.length - n} of its ${parts.length} message(s) dropped (at most ${bounds.messages} messages and ${bounds.chars} characters per plan)`,
            );
            break;
          }
          if (part !== whole)
            cut(
              `task ${i} (send): message ${n + 1} cut to ${part.text.length} characters (at most ${bounds.chars} per plan)`,
            );
          messagesLeft--;
          charsLeft = part === whole ? charsLeft - part.text.length : 0;
          push({
            kind: "typing",
            payload: { seconds: typingSeconds(part.text, o.pacing), action: "typing", ...topic, ...answers },
          });
          const replyTo = n === 0 && t.reply_to !== undefined ? { replyTo: t.reply_to } : {};
          const entities = part.entities.length > 0 ? { entities: [...part.entities] } : {};
          last = push({
            kind: "send",
            payload: { text: part.text, ...entities, ...replyTo, ...auto, ...topic, ...answers },
            needsRandomId: true,
          });
          auto = {};
        }
        break;
      }
      case "sticker":
        if (messagesLeft === 0) {
          cut(`task ${i} (sticker): dropped (at most ${bounds.messages} messages per plan)`);
          break;
        }
        messagesLeft--;
        push({
          kind: "typing",
          payload: { seconds: STICKER_CHOICE_SEC, action: "sticker", ...topic, ...answers },
        });
        last = push({
          kind: "sticker",
          payload: {
            set: t.set,
            name: t.emoji,
            ...(t.reply_to !== undefined ? { replyTo: t.reply_to } : {}),
            ...auto,
            ...topic,
            ...answers,
          },
          needsRandomId: true,
        });
        auto = {};
        break;
      case "react":
        if (reactionsLeft === 0) {
          cut(`task ${i} (react): dropped (at most ${bounds.reactions} reactions per plan)`);
          break;
        }
        reactionsLeft--;
        // Already the standard reaction as Telegram spells it (validatePlan); the chat's own
        // list is applied when it is put (handlers/react.ts).
        last = push({ kind: "react", payload: { messageId: t.message_id, emoji: t.emoji } });
        break;
      case "wait": {
        const seconds = Math.min(t.seconds, waitLeft);
        if (seconds < t.seconds)
          cut(
            `task ${i} (wait): ${seconds > 0 ? `shortened to ${seconds} s` : "dropped"} (at most ${bounds.waitSec} s of waiting per plan)`,
          );
        if (seconds <= 0) break;
        waitLeft -= seconds;
        last = push({ kind: "wait", payload: { seconds } });
        break;
      }
      case "block":
      case "unblock":
        last = push({ kind: t.kind, payload: {} });
        break;
      case "schedule":
      case "cancel_schedule":
        // Not graph tasks: the received handler hands them to the intentions engine.
        break;
      case "remember": {
        if (remembersLeft === 0) {
          cut(`task ${i} (remember): dropped (at most ${bounds.remembers} memories per plan)`);
          break;
        }
        const payload = o.remember?.(t);
        if (!payload) break;
        remembersLeft--;
        // Not in the chain: nothing waits for it, and it waits for nothing but its admission.
        out.push({ kind: "remember", payload: { ...payload, ...answers }, after: [] });
        break;
      }
    }
    if (last !== undefined) previous = last;
  });
  return out;
}

/** The first `max` UTF-16 units of a part (cut at a break, entities kept to it), ending in "…". */
function cutAt(part: FormattedText, max: number): FormattedText {
  const head = splitFormatted(part, max)[0]!;
  return { text: `${head.text}${CUT_MARK}`, entities: head.entities };
}
