/**
 * Whether this plan may answer with a voice note (`send` with `voice: true`), and whether it
 * should: her `# Voice` setting (config/persona-voice.ts), the chat's rights (a group whose
 * default banned rights forbid voice messages, her own restriction, a person whose privacy
 * forbids them, as a refused send taught), and how she was spoken to. Decided in code, not left
 * to the model: where it is not offered the plan's schema has no `voice` field at all, and
 * expand-plan.ts writes a spoken answer that is long or carries links. A chat that forbids her
 * text but takes voice messages is offered voice only (`only`): every send there is spoken.
 */
import type { VoiceSetting } from "../config/persona-voice";

/** What the plan is offered. */
export interface VoiceOffer {
  /** A voice note answers a voice note in a DM: she usually speaks back. */
  readonly prefer: boolean;
  readonly maxSeconds: number;
  /**
   * The chat forbids her text but takes voice messages (`send_plain` banned): every send is
   * spoken, and one that cannot be (too long, a link, code) is dropped, not written.
   */
  readonly only?: boolean;
}

/** The offer for one plan, or undefined (she writes). */
function voiceOffer(o: {
  readonly setting: VoiceSetting;
  /** A speech model is configured (a Gemini key, or an OpenAI-compatible speech server). */
  readonly canSpeak: boolean;
  /** The chat lets her send voice messages (its rights; no refusal learnt lately). */
  readonly chatAllows: boolean;
  /** The chat lets her write text (absent: it does). */
  readonly textAllowed?: boolean;
  readonly isDm: boolean;
  /** The newest message she answers is a voice (or video) note. */
  readonly spokenTo: boolean;
}): VoiceOffer | undefined {
  const { setting } = o;
  if (setting.mode === "never" || !o.canSpeak || !o.chatAllows) return undefined;
  if (setting.mode === "spoken-to" && !o.spokenTo) return undefined;
  return {
    prefer: o.spokenTo && o.isDm,
    maxSeconds: setting.maxSeconds,
    ...(o.textAllowed === false ? { only: true } : {}),
  };
}

/** About how many characters a second of speech carries (≈ 150 words a minute). */
const CHARS_PER_SECOND = 15;
/** A spoken answer carries no links: `https://…`, `www.…`, `t.me/…`. */
const LINK_RE = /\b(?:https?:\/\/|www\.|t\.me\/)\S+/i;

/** Seconds the words take to say (at least 1). */
export function speakingSeconds(text: string): number {
  return Math.max(1, Math.round([...text].length / CHARS_PER_SECOND));
}

/** Why these words are written even though the plan chose to speak them, or undefined: speak. */
export function writtenInstead(text: string, maxSeconds: number): string | undefined {
  if (LINK_RE.test(text)) return "it carries a link";
  const s = speakingSeconds(text);
  if (s > maxSeconds) return `it would take ${s} s to say (max seconds ${maxSeconds})`;
  if (text.includes("```")) return "it carries code";
  return undefined;
}

/** What planning knows of her voice (absent: no speech model, she writes). */
export interface VoicePort {
  /** The chat (or its person) refused a voice message lately (media/voice-maker.ts). */
  refusedIn(chatId: string): boolean;
}

/**
 * No offer now, yet she would speak had she been spoken to (`speaks: when spoken to`, a speech
 * model, a chat that takes voice messages): the ⟦abilities⟧ part says so (planning/abilities.ts).
 */
export function speaksWhenSpokenTo(
  d: { readonly persona: { readonly voice: VoiceSetting }; readonly voice?: VoicePort },
  chat: { readonly chatId: string; readonly mayVoice: boolean },
): boolean {
  return (
    d.persona.voice.mode === "spoken-to" &&
    d.voice !== undefined &&
    chat.mayVoice &&
    !d.voice.refusedIn(chat.chatId)
  );
}

/** The offer of one plan in a chat, from what the received handler has at hand. */
export function planVoice(
  d: {
    readonly persona: { readonly voice: VoiceSetting };
    readonly messages: {
      get(chatId: string, id: number): { readonly media?: { readonly kind: string } } | undefined;
    };
    readonly voice?: VoicePort;
  },
  chat: {
    readonly chatId: string;
    readonly isDm: boolean;
    readonly mayVoice: boolean;
    /** She may write text there (absent: she may). */
    readonly mayText?: boolean;
    readonly lastId?: number;
  },
): VoiceOffer | undefined {
  const kind = chat.lastId !== undefined ? d.messages.get(chat.chatId, chat.lastId)?.media?.kind : undefined;
  return voiceOffer({
    setting: d.persona.voice,
    canSpeak: d.voice !== undefined,
    chatAllows: chat.mayVoice && !(d.voice?.refusedIn(chat.chatId) ?? false),
    ...(chat.mayText === false ? { textAllowed: false } : {}),
    isDm: chat.isDm,
    spokenTo: kind === "voice" || kind === "video_note",
  });
}
