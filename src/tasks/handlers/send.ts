import type { FormatEntity } from "../../base/text-format";
import type { VoiceMark } from "../actions-port";
import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { tooLate } from "./answer-age";
import { whereNow } from "./moved-chat";
import { replyTarget } from "./reply-target";
import { sendAsVoice, voiceText } from "./voice-send";

declare module "../task" {
  interface TaskPayloads {
    /**
     * `answers`: the addressed messages this plan answers — carried into the next plan if cancelled
     * unsent. `autoReplyTo`: in a group, the message this answer replies to when others wrote after
     * it by the time it is sent (the plan named no reply_to). `entities`: the formatting of
     * `text` (bold, links… — the plan's Markdown, base/text-format.ts), sent beside it. `voice`:
     * spoken, as a voice note (voice-send.ts), the text its words; written when that cannot be.
     * `notes`: what identifies each voice note made for it (duration, waveform — never the audio),
     * written before the note goes out, so a restart finds it in her history instead of speaking again.
     */
    send: {
      text: string;
      entities?: FormatEntity[];
      replyTo?: number;
      autoReplyTo?: number;
      topicId?: number;
      sentId?: number;
      answers?: number[];
      voice?: boolean;
      /** The chat takes no text from her: a note that cannot be made or sent is dropped, not written. */
      voiceOnly?: boolean;
      /**
       * A voice send whose note could not be made or was refused goes as text from then on (kept
       * before the text is sent, so a restart neither speaks again nor looks for a note).
       */
      written?: boolean;
      notes?: VoiceMark[];
    };
  }
}

/** A text message, with the task's random_id (a retry can never send it twice). */
export function sendHandler(d: ActionHandlerDeps): TaskHandler<"send"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const { text, entities, topicId } = task.payload;
      const at = whereNow(d, task.chatId);
      const replyTo = at.moved ? undefined : replyTarget(d, task.chatId, task.payload);
      const where = {
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      };
      const spoken =
        task.payload.voice && !task.payload.written ? await sendAsVoice(d, task, at, replyTo) : undefined;
      if (spoken === "made") return { type: "again", at: d.clock.now() };
      // Where her text is forbidden, writing the words would only earn Telegram's refusal.
      if (!spoken && task.payload.voiceOnly) {
        d.logger.warn(
          { component: "tasks", chatId: task.chatId, taskId: task.id },
          "voice note not sent, and this chat takes no text from her; dropped",
        );
        return { type: "dropped", reason: "voice note not sent where text is forbidden" };
      }
      if (spoken) {
        task.payload = { ...task.payload, sentId: spoken.id };
        d.onSent({
          chatId: at.chatId,
          messageId: spoken.id,
          text: voiceText(spoken.seconds, text),
          ...where,
        });
        return { type: "done" };
      }
      if (task.payload.voice && !task.payload.written) {
        task.payload = { ...task.payload, written: true };
        d.keep?.(task);
      }
      const id = await d.actions.sendText({
        chatId: at.chatId,
        text,
        ...(entities !== undefined && entities.length > 0 ? { entities } : {}),
        randomId: task.randomId!,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      });
      task.payload = { ...task.payload, sentId: id };
      d.onSent({ chatId: at.chatId, messageId: id, text, ...where });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("send", whereNow(d, t.chatId).chatId),
  };
}
