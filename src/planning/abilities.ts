/**
 * The ⟦abilities⟧ part of a planning request: what the persona can do in this chat, and what it
 * cannot — so a model does not invent a train time, a link it never saw, or a call it cannot make.
 * Per request (it depends on the chat and on who asked), so it sits in the turn, not in the cached
 * system instruction.
 */
import type { VoiceOffer } from "./voice-offer";

/** What this request lets the persona do. */
export interface ChatAbilities {
  readonly isDm: boolean;
  /** It has stickers to send. */
  readonly stickers: boolean;
  /**
   * `offer`: it may look things up / open links now (the plan's `look_up`); `done`: it just did
   * (⟦looked up⟧), no new look-up; `closed`: not for this person or chat, or the day's look-ups are
   * spent; `none`: the persona never looks things up.
   */
  readonly lookUp: "offer" | "done" | "closed" | "none";
  /** It may set intentions (`schedule`). */
  readonly schedule: boolean;
  /** It may write text here (a chat's banned rights; absent: it may). */
  readonly text?: boolean;
  /** It may answer with a voice message here (planning/voice-offer.ts); absent: it may not. */
  readonly voice?: VoiceOffer;
  /**
   * No voice offered, but she speaks when spoken to (`# Voice` `speaks: when spoken to`): her
   * history may show her voice notes, so the part says why she writes here.
   */
  readonly voiceWhenSpokenTo?: boolean;
}

const ABILITIES_LABEL = "⟦abilities⟧";

/** The sentence on voice messages where one is offered. */
function voiceLine(v: VoiceOffer): string {
  const how = `To speak, give a send "voice": true: its text is said in your voice as a voice message (at most ${v.maxSeconds} s; plain spoken words, no links, lists or formatting).`;
  if (v.only)
    return `Every send you make here is said in your voice as a voice message (give it "voice": true; at most ${v.maxSeconds} s; plain spoken words, no links, lists or formatting — what cannot be said is not sent).`;
  return v.prefer
    ? `${how} They sent you a voice message: answer with one, unless what you say needs writing.`
    : `${how} Speak only when a short spoken answer suits the moment; otherwise write.`;
}

/** The part, one short paragraph. */
export function abilitiesPart(a: ChatAbilities): string {
  const can = [
    ...(a.text === false ? [] : ["write messages"]),
    "react",
    ...(a.stickers ? ["send your stickers"] : []),
    ...(a.schedule ? ["come back later (schedule)"] : []),
    ...(a.lookUp === "offer" ? ["look things up on the web or open a link someone sent (look_up)"] : []),
    ...(a.voice ? ["send voice messages"] : []),
  ];
  const web =
    a.lookUp === "offer"
      ? 'look_up {query?, url?}: search the web (query) or read a page someone linked (url), only for what you do not know and matters (facts, news, weather, prices, opening hours); you answer in the next request with what it finds, so put nothing after it (a short "let me check" send before it is fine).'
      : a.lookUp === "done"
        ? "You already looked it up (⟦looked up⟧): answer from that, no new look-up."
        : "You cannot look anything up or open links here: what you do not know, say you don't know or would have to check.";
  return [
    `${ABILITIES_LABEL} Here you can ${list(can)}.`,
    web,
    ...(a.text === false ? ["This chat does not let you write text."] : []),
    ...(a.voice ? [voiceLine(a.voice)] : []),
    ...(!a.voice && a.voiceWhenSpokenTo
      ? [
          "You answer a voice message with a voice message of your own; here you were written to, so you write.",
        ]
      : []),
    `You cannot make calls, browse the web beyond that, or send photos${a.voice || a.voiceWhenSpokenTo ? " or files" : ", files or voice messages"}; a link preview shows only what its line says. Never invent a link, a time, a price or a source.`,
  ].join(" ");
}

function list(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;
}
