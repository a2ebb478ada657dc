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
  "👍",
  "👎",
  "❤",
  "🔥",
  "🥰",
  "👏",
  "😁",
  "🤔",
  "🤯",
  "😱",
  "🤬",
  "😢",
  "🎉",
  "🤩",
  "🤮",
  "💩",
  "🙏",
  "👌",
  "🕊",
  "🤡",
  "🥱",
  "🥴",
  "😍",
  "🐳",
  "❤\u200d🔥",
  "🌚",
  "🌭",
  "💯",
  "🤣",
  "⚡",
  "🍌",
  "🏆",
  "💔",
  "🤨",
  "😐",
  "🍓",
  "🍾",
  "💋",
  "🖕",
  "😈",
  "😴",
  "😭",
  "🤓",
  "👻",
  "👨\u200d💻",
  "👀",
  "🎃",
  "🙈",
  "😇",
  "😨",
  "🤝",
  "✍",
  "🤗",
  "🫡",
  "🎅",
  "🎄",
  "☃",
  "💅",
  "🤪",
  "🗿",
  "🆒",
  "💘",
  "🙉",
  "🦄",
  "😘",
  "💊",
  "🙊",
  "😎",
  "👾",
  "🤷\u200d♂",
  "🤷",
  "🤷\u200d♀",
  "😡",
]);

/** True when Telegram accepts `emoji` as a standard reaction (exact code points). */
export function isStandardReaction(emoji: string): boolean {
  return STANDARD_REACTIONS.has(emoji);
}

/**
 * The form Telegram knows a reaction by (variation selectors dropped, e.g. "❤️" → "❤"), or
 * undefined when it is not a standard reaction. Plans are checked and normalised with this.
 */
export function standardReaction(emoji: string): string | undefined {
  const e = emoji.replace(/\uFE0F/g, "").trim();
  return STANDARD_REACTIONS.has(e) ? e : undefined;
}

/**
 * Emoji people use as reactions that Telegram does not offer, each with the standard reaction
 * that says the same (😂 is the laugh people reach for; Telegram's is 🤣). Colours of a heart
 * are a heart; skin tones are dropped before this is asked.
 */
const NEAR_STANDARD: ReadonlyMap<string, string> = new Map([
  ...["😂", "😆", "😹", "😅", "😝", "😜", "😛"].map((e) => [e, "🤣"] as const),
  ...["😄", "😃", "😀", "🙂", "😊", "☺", "😺", "😸"].map((e) => [e, "😁"] as const),
  ...[
    "🧡",
    "💛",
    "💚",
    "💙",
    "💜",
    "🤎",
    "🖤",
    "🤍",
    "💕",
    "💞",
    "💓",
    "💗",
    "💖",
    "💝",
    "♥",
    "❣",
    "🩷",
    "🩵",
    "🩶",
  ].map((e) => [e, "❤"] as const),
  ...["😻", "🤩"].map((e) => [e, "😍"] as const),
  ...["🥲", "😞", "😔", "😟", "🙁", "☹", "😿", "😥", "😓"].map((e) => [e, "😢"] as const),
  ...["😮", "😯", "😲", "😳", "🙀", "😧", "😦"].map((e) => [e, "😱"] as const),
  ...["🧐", "🤷‍♂", "🤷‍♀"].map((e) => [e, "🤔"] as const),
  ...["✅", "✔", "☑", "🆗", "👊", "🤙", "✌", "💪"].map((e) => [e, "👍"] as const),
  ...["🥳", "🎊", "🎈", "🎁", "🪅"].map((e) => [e, "🎉"] as const),
  ...["🙌", "🤲"].map((e) => [e, "👏"] as const),
  ...["✨", "💥", "🚀", "⭐", "🌟"].map((e) => [e, "🔥"] as const),
  ...["😠", "👿", "💢"].map((e) => [e, "😡"] as const),
  ...["😬", "🫣", "🤭", "🙃"].map((e) => [e, "🙈"] as const),
  ...["😉", "😏"].map((e) => [e, "😎"] as const),
  ["🫶", "🤗"],
  ["🥺", "😢"],
  ...["❌", "🚫"].map((e) => [e, "👎"] as const),
  ...["😑", "😶", "🫤", "😕"].map((e) => [e, "😐"] as const),
  ...["🤢", "🤧"].map((e) => [e, "🤮"] as const),
  ...["😪", "💤"].map((e) => [e, "😴"] as const),
  ...["🎂", "🍰", "🥂", "🍻", "🍺"].map((e) => [e, "🍾"] as const),
]);

/** Skin-tone modifiers (U+1F3FB–U+1F3FF): 👍🏽 is 👍 as a reaction. */
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;

/**
 * The standard reaction closest to `emoji`: itself (as Telegram spells it), or what an emoji
 * Telegram does not offer means as a reaction (😂 → 🤣, 💙 → ❤, 👍🏽 → 👍); undefined when
 * nothing is close.
 */
export function nearestStandardReaction(emoji: string): string | undefined {
  const e = emoji
    .replace(/\uFE0F/g, "")
    .replace(SKIN_TONE, "")
    .trim();
  if (STANDARD_REACTIONS.has(e)) return e;
  const near = NEAR_STANDARD.get(e);
  return near !== undefined && STANDARD_REACTIONS.has(near) ? near : undefined;
}

/**
 * What a chat lets its members react with (Telegram's chatReactionsAll / chatReactionsSome /
 * chatReactionsNone in the full chat's `available_reactions`). Private chats allow every
 * standard reaction.
 */
export type AllowedReactions =
  | { readonly kind: "all" }
  | { readonly kind: "some"; readonly emoji: readonly string[] }
  | { readonly kind: "none" };

/**
 * Reactions that say much the same, most typical first. A reaction the chat does not allow is
 * replaced by the first allowed one of its families; with none, the persona does not react.
 */
const FAMILIES: readonly (readonly string[])[] = [
  ["❤", "😍", "🥰", "💘", "😘", "❤\u200d🔥", "💋", "🤗"], // love
  ["👍", "👌", "👏", "🤝", "🙏", "💯", "🫡", "🆒", "😎"], // approval
  ["🔥", "⚡", "🤩", "❤\u200d🔥", "🏆", "💯", "🎉"], // excitement
  ["🎉", "🍾", "🏆", "🤩", "👏"], // celebration
  ["🤣", "😁", "🤪", "🤡", "🙈"], // laughter
  ["😢", "😭", "💔", "🥴"], // sadness
  ["😱", "🤯", "😨", "🙈", "👀"], // shock
  ["🤔", "🤨", "😐", "🗿", "🤓", "👀"], // doubt
  ["👎", "💩", "🤮", "🤬", "😡", "🖕"], // disapproval
  ["🥱", "😴", "😐"], // boredom
];

/** The families of reactions that say much the same (for tests and tools). */
export function reactionFamilies(): readonly (readonly string[])[] {
  return FAMILIES;
}

/** True when the chat allows `emoji` (a standard reaction, as Telegram spells it). */
export function isAllowed(emoji: string, allowed: AllowedReactions): boolean {
  if (allowed.kind === "none") return false;
  if (allowed.kind === "all") return isStandardReaction(emoji);
  return allowed.emoji.includes(emoji);
}

/**
 * The reaction to put when the persona chose `emoji`: itself when allowed, else the first allowed
 * reaction of a family it belongs to, else undefined (react with nothing).
 */
export function closestAllowed(emoji: string, allowed: AllowedReactions): string | undefined {
  const e = nearestStandardReaction(emoji) ?? emoji;
  if (isAllowed(e, allowed)) return e;
  for (const family of FAMILIES) {
    if (!family.includes(e)) continue;
    const hit = family.find((x) => isAllowed(x, allowed));
    if (hit !== undefined) return hit;
  }
  return undefined;
}
