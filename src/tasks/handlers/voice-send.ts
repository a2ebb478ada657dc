/**
 * A send the plan chose to speak (`send` with `voice`): the text is synthesised and encoded into a
 * voice note (the `VoiceMaker` the composition root gives: llm/speech.ts + media/voice-note.ts),
 * then uploaded and sent with the task's own random_id — so a voice send is exactly-once like
 * every send: a retry after an upload or an unknown outcome sends with the same id, and Telegram
 * keeps it one message. Meanwhile she shows "recording a voice message", then "uploading" it.
 *
 * Never silence: a synthesis or encoding failure, a cap that leaves no room for the call, or the
 * chat refusing voice messages (its rights, the person's privacy) sends the words as text instead,
 * with the same random_id (nothing went out with it). What she said is stored as text
 * (`[voice 3 s] …`) in her history, so the next plan reads it as her message.
 */
import { errorMessage } from "../../base/error-message";
import type { Task } from "../task";
import { PermanentError } from "../errors";
import { TYPING_REFRESH_MS } from "../pacing";
import type { ActionHandlerDeps } from "./action-deps";
import type { MadeVoice } from "./voice-port";
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

/**
 * Speak the send: the new message id and the note's length, or undefined when the words must go
 * as text (told in one log line). Errors other than the refusals (network, flood waits) are thrown
 * for the engine to retry.
 */
export async function sendAsVoice(
  d: ActionHandlerDeps,
  task: Task<"send">,
  at: { readonly chatId: string },
  replyTo: number | undefined,
): Promise<{ id: number; seconds: number } | undefined> {
  const maker = d.voice;
  const sendVoice = d.actions.sendVoice?.bind(d.actions);
  if (!maker || !sendVoice) return undefined;
  const { text, topicId } = task.payload;
  const show = (action: "record" | "upload-voice") =>
    bestEffort(d, at.chatId, "typing", d.clock.now(), () =>
      d.actions.setTyping({ chatId: at.chatId, action, ...(topicId !== undefined ? { topicId } : {}) }),
    );
  // "Recording a voice message" while the speech is made, refreshed like typing.
  let recording = true;
  let timer: unknown;
  const refresh = () => {
    if (!recording) return;
    void show("record");
    timer = d.clock.setTimeout(refresh, TYPING_REFRESH_MS);
  };
  refresh();
  let made: MadeVoice | { readonly failed: string };
  try {
    made = await maker.make({ taskId: task.id, chatId: task.chatId, text });
  } catch (e) {
    made = { failed: errorMessage(e) };
  } finally {
    recording = false;
    if (timer !== undefined) d.clock.clearTimeout(timer);
  }
  if ("failed" in made) {
    d.logger.warn(
      { component: "tasks", chatId: task.chatId, taskId: task.id, reason: made.failed },
      "voice note not made; sending the words as text",
    );
    maker.forget(task.id);
    return undefined;
  }
  await show("upload-voice");
  try {
    const id = await sendVoice({
      chatId: at.chatId,
      ogg: made.ogg,
      seconds: made.seconds,
      waveform: made.waveform,
      randomId: task.randomId!,
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(topicId !== undefined ? { topicId } : {}),
    });
    maker.forget(task.id);
    return { id, seconds: made.seconds };
  } catch (e) {
    if (!(e instanceof PermanentError) || e.code === undefined || !REFUSALS.has(e.code)) throw e;
    maker.forget(task.id);
    maker.refused(task.chatId, e.code);
    d.logger.info(
      { component: "tasks", chatId: task.chatId, taskId: task.id, code: e.code },
      "the chat takes no voice messages from her; sending the words as text",
    );
    return undefined;
  }
}
