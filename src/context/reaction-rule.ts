/**
 * The chat part's line about what this chat lets the persona react with (the chat's
 * `available_reactions`). Nothing when everything standard is allowed (the plan rules say
 * "standard Telegram reactions"); the list when the chat allows some; "do not react" for none.
 */
import type { AllowedReactions } from "../base/standard-reactions";

export function reactionRule(allowed: AllowedReactions | undefined): string | undefined {
  if (allowed === undefined || allowed.kind === "all") return undefined;
  if (allowed.kind === "none" || allowed.emoji.length === 0)
    return "Reactions are turned off in this chat: never plan a react task here.";
  return `Reactions this chat allows: ${allowed.emoji.join(" ")} (react with these only).`;
}
