/**
 * The media side of the prompt, through the context engine's media seam (context/history-item.ts
 * `MediaRenderer`): before the prompt is built, the media of the messages in view is described
 * (the chain, bounded wait); then each media message reads as its compact part (`[photo: …]`,
 * `[voice 0:12: "…"]`) followed by its caption, and an album as one item (its parts joined on the
 * album's first message in view).
 */
import type { SelectedContext } from "./assemble";
import type { MediaRenderer } from "../context/history-item";
import type { StoredMessage } from "../store/messages";
import { renderMedia, type MediaDescription } from "../base/media-descriptor";
import { linkParts } from "../base/link-preview";
import type { MediaDescriber, MediaRef } from "../media/describer";

/** How long an answer waits for descriptions at most (real time), by default. */
export const MEDIA_WAIT_MS = 8_000;
/** At most this many media messages of one prompt go to the AI source (addressed and newest first). */
const MEDIA_PER_PROMPT = 6;

/** The context with media made ready, and the renderer the prompt uses for it. */
export interface MediaContext {
  readonly context: SelectedContext;
  readonly media: MediaRenderer;
}

/** Describe the media in view (targets first, then the newest) and prepare its rendering. */
export async function withMediaDescriptions(
  c: SelectedContext,
  describer: MediaDescriber,
  o: { readonly waitMs?: number } = {},
): Promise<MediaContext> {
  const targets = new Set(c.targets.map((m) => m.messageId));
  // A link preview is read from what was stored: it never takes an AI source's slot.
  const all = [...c.history, ...c.targets].filter(
    (m) => m.media !== undefined && m.media.kind !== "webpage" && !m.isAgent,
  );
  const refs: MediaRef[] = all
    .sort(
      (a, b) =>
        Number(targets.has(b.messageId)) - Number(targets.has(a.messageId)) || b.messageId - a.messageId,
    )
    .slice(0, MEDIA_PER_PROMPT)
    .map((m) => ({ chatId: m.chatId, messageId: m.messageId, media: m.media!, senderId: m.senderId }));
  const found =
    refs.length > 0
      ? await describer.describe(refs, o.waitMs ?? MEDIA_WAIT_MS)
      : new Map<string, MediaDescription>();
  const part = (m: StoredMessage): string => {
    const d = m.media!;
    return renderMedia(d, d.uid ? (found.get(d.uid) ?? describer.lookup(d)) : undefined);
  };
  // Albums: later parts in view (not themselves addressed) fold into the first one.
  const parts = new Map<number, string>();
  const head = new Map<string, number>();
  const history: StoredMessage[] = [];
  for (const m of c.history) {
    const g = m.media?.groupedId;
    if (g === undefined || !m.media) {
      history.push(m);
      continue;
    }
    const key = `${m.senderId}\u0000${g}`;
    const first = head.get(key);
    if (first !== undefined && !targets.has(m.messageId)) {
      parts.set(first, `${parts.get(first)}\n${part(m)}`);
      continue;
    }
    head.set(key, m.messageId);
    parts.set(m.messageId, part(m));
    history.push(m);
  }
  return {
    context: { ...c, history },
    // The stored text of a media message without a caption is its plain placeholder: the part replaces it.
    media: (m) => {
      if (m.media && !m.isAgent)
        return { part: parts.get(m.messageId) ?? part(m), text: m.media.caption ? m.text : "" };
      // A link Telegram attached no preview to still says where it goes.
      const links = m.media || m.isAgent ? "" : linkParts(m.text);
      return links ? { part: links, text: m.text } : undefined;
    },
  };
}
