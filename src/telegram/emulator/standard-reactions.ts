/**
 * The emoji Telegram accepts as standard (non-premium, non-custom) reactions.
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
