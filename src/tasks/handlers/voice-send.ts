/**
 * A send the plan chose to speak (`send` with `voice`): the text is synthesised and encoded into a
 * voice note (the `VoiceMaker` the composition root gives: llm/speech.ts + media/voice-note.ts),
 * then uploaded and sent with the task's own random_id — so a voice send is exactly-once like
 * every send: a retry after an upload or an unknown outcome sends with the same id, and Telegram
 * keeps it one message. Before each send the note's mark (duration, waveform — never the audio) is
 * written into the task, so a restart whose send may have applied looks for that very note in her
 * last messages first: found, the send is settled with no second speech call. Meanwhile she shows
 * "recording a voice message", then "uploading" it.
 *
 * Never silence: a synthesis or encoding failure, a cap that leaves no room for the call, or
 * Telegram refusing the note (the chat's rights, the person's privacy, a file it will not take)
 * sends the words as text instead,
 * with the same random_id (nothing went out with it). What she said is stored as text
 * (`[voice 3 s] …`) in her history, so the next plan reads it as her message.
 */
import { errorMessage } from "../../base/error-message";
import type { Task } from "../task";
import { PermanentError } from "../errors";
import { TYPING_REFRESH_MS } from "../pacing";
import type { ActionHandlerDeps } from "./action-deps";
import { markOf, type MadeVoice } from "./voice-port";
import { bestEffort } from "./best-effort";

/** Telegram's refusals of a voice message that text gets past (rights and privacy). */
const REFUSALS = new Set([
  "VOICE_MESSAGES_FORBIDDEN",
  "CHAT_SEND_VOICES_FORBIDDEN",
  "CHAT_SEND_MEDIA_FORBIDDEN",
]);

/** How her voice note reads in her history and the console: `[voice 3 s] text`. */
export function voiceText(seconds: number, text: string): string {
  return `[voice ${seconds} s] ${text}`;
}

/** Marks of notes a send keeps (one per note made; a second only after a restart made it again). */
const MAX_MARKS = 4;

/** What speaking a send came to: sent (its id and length), made (run again to send it), or write it. */
export type Spoken = { readonly id: number; readonly seconds: number } | "made" | undefined;

/**
 * Speak the send: the new message id and the note's length; "made" when the note was just made
 * (the task runs again to send it, so the owner's takeover, a /pause, a replan, the answer age and
 * a deleted question that came while she spoke are checked before it goes out); or undefined when
 * the words must go as text (told in one log line). Errors other than Telegram's refusals
 * (network, flood waits) are thrown for the engine to retry.
 */
export async function sendAsVoice(
  d: ActionHandlerDeps,
  task: Task<"send">,
  at: { readonly chatId: string },
  replyTo: number | undefined,
): Promise<Spoken> {
  const maker = d.voice;
  const sendVoice = d.actions.sendVoice?.bind(d.actions);
  if (!maker || !sendVoice) return undefined;
  const { text, topicId } = task.payload;
  const marks = task.payload.notes ?? [];
  // In doubt (a restart found it running) with no mark: the process died before any note was
  // sent (a mark is written before every send), so nothing went out — it is a fresh send again,
  // held by the gates (the owner's takeover, /pause, the answer age) like any.
  if (task.inDoubt && marks.length === 0) task.inDoubt = false;
  // A re-run whose note may have gone out (the process died during its send): her recent history
  // first — found, it is settled as sent, with no second speech call; not found, it is made again.
  if (task.inDoubt && marks.length > 0 && !maker.has(task.id) && d.actions.findVoice) {
    // A lookup Telegram refuses settles nothing: the note is made again and its send decides.
    const found = await d.actions.findVoice({ chatId: at.chatId, marks }).catch((e: unknown) => {
      if (e instanceof PermanentError) return undefined;
      throw e;
    });
    if (found) {
      d.logger.info(
        { component: "tasks", chatId: task.chatId, taskId: task.id, messageId: found.id },
        "her voice note went out before the restart; not made again",
      );
      return { id: found.id, seconds: found.seconds };
    }
  }
  const show = (action: "record" | "upload-voice") =>
    bestEffort(d, at.chatId, "typing", d.clock.now(), () =>
      d.actions.setTyping({ chatId: at.chatId, action, ...(topicId !== undefined ? { topicId } : {}) }),
    );
  const fresh = !maker.has(task.id);
  let made: MadeVoice | { readonly failed: string };
  if (fresh) {
    // "Recording a voice message" while the speech is made, refreshed like typing. A refresh is
    // not awaited: what it meets (the account lost) is kept and thrown once the note is made.
    let recording = true;
    let timer: unknown;
    let lost: unknown;
    const refresh = () => {
      if (!recording) return;
      show("record").catch((e: unknown) => {
        lost ??= e;
      });
      timer = d.clock.setTimeout(refresh, TYPING_REFRESH_MS);
    };
    refresh();
    try {
      made = await maker.make({ taskId: task.id, chatId: task.chatId, text });
    } catch (e) {
      made = { failed: errorMessage(e) };
    } finally {
      recording = false;
      if (timer !== undefined) d.clock.clearTimeout(timer);
    }
    if (lost !== undefined) throw lost;
  } else made = await maker.make({ taskId: task.id, chatId: task.chatId, text });
  if ("failed" in made) {
    d.logger.warn(
      { component: "tasks", chatId: task.chatId, taskId: task.id, reason: made.failed },
      "voice note not made; sending the words as text",
    );
    maker.forget(task.id);
    return undefined;
  }
  // What identifies the note is in the task's state before it goes out (the again outcome below
  // writes it, and `keep` before every send): a restart looks for it by that.
  const mark = {
    ...markOf(made),
    at: Math.floor((d.telegramNow ?? (() => d.clock.now()))() / 1000),
  };
  const noted = marks.some((k) => k.seconds === mark.seconds && k.waveform === mark.waveform);
  if (!noted) task.payload = { ...task.payload, notes: [...marks, mark].slice(-MAX_MARKS) };
  // Made just now (seconds may have passed): the scheduler's gates run again before it goes out.
  // A task in doubt is not held (only the server's answer to its retry settles it).
  if (fresh && !task.inDoubt) return "made";
  d.keep?.(task);
  await show("upload-voice");
  try {
    const id = await sendVoice({
      chatId: at.chatId,
      ogg: made.ogg,
      seconds: made.seconds,
      waveform: made.waveform,
      sentBefore: marks,
      randomId: task.randomId!,
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(topicId !== undefined ? { topicId } : {}),
    });
    maker.forget(task.id);
    return { id, seconds: made.seconds };
  } catch (e) {
    // Any refusal of the note (its rights, privacy, a note Telegram will not take): the words go
    // as text with the same random_id — nothing went out with it.
    if (!(e instanceof PermanentError)) throw e;
    maker.forget(task.id);
    if (e.code !== undefined && REFUSALS.has(e.code)) {
      maker.refused(task.chatId, e.code);
      d.logger.info(
        { component: "tasks", chatId: task.chatId, taskId: task.id, code: e.code },
        "the chat takes no voice messages from her; sending the words as text",
      );
    } else
      d.logger.warn(
        { component: "tasks", chatId: task.chatId, taskId: task.id, code: e.code, err: errorMessage(e) },
        "voice note refused; sending the words as text",
      );
    return undefined;
  }
}
