/**
 * The day's follow-ups (`# Proactive Per Day`) are not a stranger's to spend (issue 36). Like the
 * token caps, the daily cap keeps a reserve for the owner and the persona's people (contacts,
 * `# Allowed Users`): strangers — a DM with someone not among them, or such a person on
 * strangers' ground (policy/gate.ts) — share at most STRANGERS_SHARE of the day, and one
 * stranger at most half of that (at least one). A stranger's DM and his two-person group count as
 * one stranger: the calls are counted by whom they are for, wherever they were set.
 */

/** Strangers together may set at most this part of a day's follow-ups (rounded down). */
const STRANGERS_SHARE = 0.5;

export interface ShareInput {
  /** The day's follow-ups already set or made, with their chat and whom they are for. */
  readonly calls: readonly { readonly chatId: string; readonly forUser?: string }[];
  /** The one asked for now. */
  readonly n: { readonly chatId: string; readonly forUser?: string };
  readonly perDay: number;
  /** The day, as the refusal says it ("2026-11-23"). */
  readonly day: string;
  /** Whether a call for `userId` in `chatId` counts as a stranger's (policy/gate.ts isStrangerCall). */
  readonly isStranger: (chatId: string, userId: string | undefined) => boolean;
}

/** Why the day holds no room for this follow-up, or undefined when it does. */
export function strangersPart(i: ShareInput): string | undefined {
  const { perDay, day } = i;
  if (i.calls.length >= perDay)
    return `${day} already has ${perDay} follow-up${perDay === 1 ? "" : "s"}, the most a day may have`;
  if (!i.isStranger(i.n.chatId, i.n.forUser)) return undefined;
  const part = Math.floor(perDay * STRANGERS_SHARE);
  const whom = (c: { chatId: string; forUser?: string }) => c.forUser ?? c.chatId;
  const strangers = i.calls.filter((c) => i.isStranger(c.chatId, c.forUser));
  if (strangers.length >= part)
    return `${day} already has ${strangers.length} follow-up${strangers.length === 1 ? "" : "s"} for people who are not the owner's contacts, all they may share (the rest is kept for the owner's people)`;
  const perStranger = Math.max(1, Math.ceil(part / 2));
  const mine = strangers.filter((c) => whom(c) === whom(i.n)).length;
  if (mine >= perStranger)
    return `${day} already has ${mine} follow-up${mine === 1 ? "" : "s"} for this person, the most one who is not the owner's contact may have`;
  return undefined;
}
