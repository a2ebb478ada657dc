/**
 * Her voice notes made: the send's words → speech (llm/speech.ts, purpose `speech`, priced and
 * capped like every call) → Ogg Opus (voice-note.ts), in memory. The note is kept per task until
 * its send is over, so a retried upload does not pay the speech call again, and forgotten then —
 * sent, written instead, or its task ended any other way (cancelled, failed: the scheduler's
 * onFinished): the audio never touches the disk. What a chat refused (voice messages forbidden by its rights or
 * by the person's privacy) is remembered for a day, so her next plans there write.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import type { VoiceSetting } from "../config/persona-voice";
import type { SpeechClient } from "../llm/speech";
import type { MadeVoice, VoiceMaker } from "../tasks/handlers/voice-port";
import { AudioFormatError, encodeVoiceNote } from "./voice-note";

/** Notes kept at once (one per voice send in flight). */
const MAX_KEPT = 8;
/** How long a chat's refusal of voice messages keeps her writing there. */
const REFUSAL_MS = 24 * 3_600_000;
/** A note this much longer than `max seconds` (the text ran long when spoken) is written instead. */
const OVERRUN_SEC = 5;

export class SpeechVoiceMaker implements VoiceMaker {
  private readonly kept = new Map<number, MadeVoice>();
  private readonly refusals = new Map<string, number>();

  constructor(
    private readonly o: {
      readonly speech: SpeechClient;
      /** The persona's `# Voice`, read at each send (it applies live). */
      readonly setting: () => VoiceSetting;
      /** Why no call may be made for this chat now (the token caps), or undefined. */
      readonly capped: (chatId: string) => string | undefined;
      /** The person a call in this chat is for (usage per person): a DM's partner. */
      readonly personOf?: (chatId: string) => string | undefined;
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {}

  async make(r: { taskId: number; chatId: string; text: string }): Promise<MadeVoice | { failed: string }> {
    const kept = this.kept.get(r.taskId);
    if (kept) return kept;
    const cap = this.o.capped(r.chatId);
    if (cap !== undefined) return { failed: `cap: ${cap}` };
    const setting = this.o.setting();
    const userId = this.o.personOf?.(r.chatId);
    let note: MadeVoice;
    try {
      const audio = await this.o.speech.speak({
        text: r.text,
        voiceName: setting.voiceName,
        chatId: r.chatId,
        ...(userId !== undefined ? { userId } : {}),
      });
      note = await encodeVoiceNote(audio, { maxSeconds: setting.maxSeconds + OVERRUN_SEC });
    } catch (e) {
      return { failed: e instanceof AudioFormatError ? `unreadable audio: ${e.message}` : errorMessage(e) };
    }
    if (note.seconds > setting.maxSeconds + OVERRUN_SEC)
      return { failed: `the note runs ${note.seconds} s, past # Voice max seconds (${setting.maxSeconds})` };
    this.o.logger.info(
      {
        component: "voice",
        chatId: r.chatId,
        seconds: note.seconds,
        bytes: note.ogg.length,
        model: this.o.speech.model,
      },
      "voice note made",
    );
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(r.taskId, note);
    return note;
  }

  get held(): number {
    return this.kept.size;
  }

  has(taskId: number): boolean {
    return this.kept.has(taskId);
  }

  forget(taskId: number): void {
    this.kept.delete(taskId);
  }

  refused(chatId: string, code: string): void {
    this.refusals.set(chatId, this.o.clock.now() + REFUSAL_MS);
    this.o.logger.info(
      { component: "voice", chatId, code },
      "voice messages refused here; she writes for a day",
    );
  }

  /** Whether the chat refused a voice message lately. */
  refusedIn(chatId: string): boolean {
    const until = this.refusals.get(chatId);
    if (until === undefined) return false;
    if (until > this.o.clock.now()) return true;
    this.refusals.delete(chatId);
    return false;
  }
}
