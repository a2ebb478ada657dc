/**
 * The emoji Telegram accepts as standard (non-premium, non-custom) reactions.
 *
 * This file holds data only (no GramJS import): the plan validator and the emulator share it.
 *
 * Source: the `messages.getAvailableReactions` list as Telegram serves it. Note the exact code
 * points: the heart is U+2764 *without* the U+FE0F variation selector, and so are ☃, ✍, ⚡ and
 * the ♂/♀ shrug variants. Telegram answers REACTION_INVALID for "❤️" (with U+FE0F), and the
 * emulator does the same so code that forgets to normalise fails in tests, not in production.
 */
const STANDARD_REACTIONS: ReadonlySet<string> = new Set([
  "👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩",
  "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤\u200d🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌",
  "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨\u200d💻", "👀",
  "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘",
  "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷\u200d♂", "🤷", "🤷\u200d♀", "😡",
]);

/** True when Telegram accepts `emoji` as a standard reaction (exact code points). */
export function isStandardReaction(emoji: string): boolean {
  return STANDARD_REACTIONS.has(emoji);
}

/** The standard reactions, in Telegram's order. */
export function standardReactions(): readonly string[] {
  return [...STANDARD_REACTIONS];
}

/**
 * The form Telegram knows a reaction by (variation selectors dropped, e.g. "❤️" → "❤"), or
 * undefined when it is not a standard reaction. Plans are checked and normalised with this.
 */
export function standardReaction(emoji: string): string | undefined {
  const e = emoji.replace(/\uFE0F/g, "").trim();
  return STANDARD_REACTIONS.has(e) ? e : undefined;
}
