/**
 * Shared pieces of the catch-up tests on many supergroups: groups the persona follows, what it
 * stored of one, and a model that answers "say <word>".
 */
import type { EmuChat } from "../../emulator";
import { promptSections, type FakeReply, type GenerateBody } from "./gemini-fake";
import type { Harness } from "./harness";

/** `n` supergroups the persona follows (with alice and bob): each saw one message live. */
export async function followedGroups(hh: Harness, n: number): Promise<EmuChat[]> {
  const groups = Array.from({ length: n }, (_, i) =>
    hh.emu.createSupergroup({ title: `G${i}`, members: [hh.account, hh.alice, hh.bob] }),
  );
  for (const g of groups) await hh.emu.post({ chat: g, from: hh.alice, text: "hello" });
  await hh.pass(2_000);
  return groups;
}

/** The texts the persona stored of `chat`, newest first. */
export const storedTexts = (hh: Harness, chat: EmuChat): string[] =>
  hh.runtime.messages.recent(chat.peerId, Number.MAX_SAFE_INTEGER, 1000).map((m) => m.text);

/** Answers every "say <word>" among the messages addressed now with a send "re <word>". */
export function sayNowResponder(body: GenerateBody): FakeReply {
  const words = [
    ...promptSections(body)
      .now.join("\n")
      .matchAll(/say (\w+)/g),
  ].map((m) => m[1]!);
  return { json: { tasks: words.map((w) => ({ kind: "send", text: `re ${w}` })) } };
}
