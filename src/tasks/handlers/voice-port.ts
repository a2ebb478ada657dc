/** What the voice send (voice-send.ts) needs from above: the port the composition root fills (media/voice-maker.ts). */
import type { VoiceMark } from "../actions-port";

/** A voice note ready to send. */
export interface MadeVoice {
  readonly ogg: Buffer;
  readonly seconds: number;
  readonly waveform: Buffer;
}

/** The mark of a made note. */
export function markOf(v: MadeVoice): VoiceMark {
  return { seconds: v.seconds, waveform: v.waveform.toString("base64") };
}

/** What the voice send needs from above: synthesis + encoding, and what the chat refused. */
export interface VoiceMaker {
  /**
   * The note for this task's text, or why there is none (synthesis or encoding failed, a cap).
   * Kept in memory per task until `forget`, so a retry of the upload does not pay the call twice.
   */
  make(o: {
    readonly taskId: number;
    readonly chatId: string;
    readonly text: string;
  }): Promise<MadeVoice | { readonly failed: string }>;
  forget(taskId: number): void;
  /** Whether this task's note is made and kept (a re-run goes straight to the upload). */
  has(taskId: number): boolean;
  /** Notes kept in memory now (the metrics' gauge). */
  readonly held: number;
  /** The chat (or the person) refused a voice message: not offered there again for a while. */
  refused(chatId: string, code: string): void;
}
