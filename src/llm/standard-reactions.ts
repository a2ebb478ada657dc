/**
 * Telegram's standard (free) reaction emoji. A reaction outside this list is answered with
 * REACTION_INVALID on accounts without Premium custom reactions, so plans are checked
 * against it before anything is sent. Compared with U+FE0F removed.
 */
export const STANDARD_REACTIONS: readonly string[] = [
  "👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏",
  "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨",
  "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝",
  "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎",
  "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
];

const normalized = new Set(STANDARD_REACTIONS);

/** The canonical form of a reaction emoji (variation selectors dropped), or undefined if not standard. */
export function standardReaction(emoji: string): string | undefined {
  const e = emoji.replace(/\uFE0F/g, "").trim();
  return normalized.has(e) ? e : undefined;
}
