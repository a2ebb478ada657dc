import type { InboundMessage } from "../base/types";

/** What the persona is called by; compiled once per persona, used on every group message. */
export interface AddressMatcher {
  /** True when one of the names appears in `text` as a whole word (any case). */
  mentionsName(text: string): boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Build a matcher for the persona's name and aliases. "Whole word" means not glued to a
 * letter, digit or underscore on either side, in any script (so "Mira" matches "Mira," and
 * "@Mira" but not "Miranda" or "Амира").
 */
export function compileAddressMatcher(names: readonly string[]): AddressMatcher {
  const cleaned = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (cleaned.length === 0) return { mentionsName: () => false };
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${cleaned.map(escape).join("|")})(?![\\p{L}\\p{N}_])`, "iu");
  return { mentionsName: (text) => re.test(text) };
}

/**
 * Strict mode: a DM always; in a group, when Telegram flagged the message as mentioning the
 * account (an @mention, or a reply to one of its messages) or a name/alias appears.
 */
export function shouldRespondStrict(m: InboundMessage, names: AddressMatcher): boolean {
  if (m.chatType === "dm") return true;
  if (m.mentioned) return true;
  return names.mentionsName(m.text);
}
