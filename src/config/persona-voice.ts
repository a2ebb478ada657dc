/**
 * `# Voice`: whether the persona answers with voice notes, in which voice, and how long at most
 * (docs/media.md "Her voice"). One `key: value` a line:
 *
 * ```
 * # Voice
 * speaks: when spoken to     (never — the default | when spoken to | when it suits)
 * voice: Kore                (the speech model's voice name; default Kore)
 * max seconds: 30            (1–120; a longer answer is sent as text)
 * ```
 *
 * `never`: she always writes. `when spoken to`: a voice note may answer a voice note (in a DM it
 * usually does). `when it suits`: she may also speak when a short spoken answer fits the moment.
 * Wherever the chat forbids voice messages she writes.
 */
import { ConfigError } from "./config-error";
import { listItems, parseNumber, quoteValue, type NumberRule, type ValueSource } from "./persona-values";

/** When she speaks. */
type VoiceMode = "never" | "spoken-to" | "suits";

export interface VoiceSetting {
  readonly mode: VoiceMode;
  /** The prebuilt voice of the speech model (Gemini: Kore, Puck, Charon…; OpenAI: alloy, nova…). */
  readonly voiceName: string;
  /** The longest voice note she records; an answer that would take longer is written. */
  readonly maxSeconds: number;
}

const MODES: Readonly<Record<string, VoiceMode>> = {
  never: "never",
  "when spoken to": "spoken-to",
  "when it suits": "suits",
};

const MAX_SECONDS: NumberRule & { default: number } = {
  default: 30,
  min: 1,
  max: 120,
  unit: "seconds",
  integer: true,
};

export const DEFAULT_VOICE: VoiceSetting = Object.freeze({
  mode: "never",
  voiceName: "Kore",
  maxSeconds: MAX_SECONDS.default,
});

const KEYS = ["speaks", "voice", "max seconds"] as const;

/** `# Voice`'s value (see the module comment); a bad line is a ConfigError naming it. */
export function parseVoice(src: ValueSource, raw: string): VoiceSetting {
  const fail = (problem: string): never => {
    throw new ConfigError({ file: src.file, field: src.field, problem });
  };
  let mode: VoiceMode = DEFAULT_VOICE.mode;
  let voiceName = DEFAULT_VOICE.voiceName;
  let maxSeconds = DEFAULT_VOICE.maxSeconds;
  const seen = new Set<string>();
  for (const line of listItems(raw)) {
    const m = /^([a-z ]+?)\s*:\s*(.*)$/i.exec(line);
    const key = m?.[1]?.toLowerCase().replace(/\s+/g, " ");
    if (!m || key === undefined || !(KEYS as readonly string[]).includes(key))
      fail(`bad line ${quoteValue(line)} (expected "speaks: …", "voice: …" or "max seconds: …", one a line)`);
    if (seen.has(key!)) fail(`"${key}" is given twice`);
    seen.add(key!);
    const value = m![2]!.trim();
    if (key === "speaks") {
      const v = MODES[value.toLowerCase().replace(/\s+/g, " ")];
      if (v === undefined)
        fail(
          `speaks: unknown value ${quoteValue(value)} (expected one of: ${Object.keys(MODES).join(", ")})`,
        );
      mode = v!;
    } else if (key === "voice") {
      if (!/^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(value))
        fail(`voice: ${quoteValue(value)} is not a voice name (letters, digits, - or _, as Kore or alloy)`);
      voiceName = value;
    } else {
      maxSeconds = parseNumber({ file: src.file, field: `${src.field}: max seconds` }, value, MAX_SECONDS);
    }
  }
  return Object.freeze({ mode, voiceName, maxSeconds });
}
