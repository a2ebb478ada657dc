/**
 * Composition, stage 3: how the persona sees media (the description chain: curated files, the
 * cache, the budget, downloads and the LLM; inline pictures) and what each chat allows to react with.
 */
import type { AgentRuntimeOptions, Stage } from "./agent-options";
import type { Stores } from "./compose-stores";
import type { Policy } from "./compose-policy";
import { DEFAULT_MEDIA_BUDGET_PER_MINUTE, MediaBudget } from "../media/budget";
import { CuratedMedia } from "../media/curated";
import { MediaDescriber } from "../media/describer";
import { ImageSource } from "../media/inline-images";
import { LlmMediaSource } from "../media/media-llm";
import { metrics } from "../metrics/metrics";
import { MediaCache } from "../store/media-cache";
import { MediaImages } from "../store/media-images";
import { ChatReactions } from "../telegram/outbound/chat-reactions";
import { TelegramMediaFetcher } from "../telegram/outbound/media-download";
import { OwnVoice } from "../telegram/outbound/own-voice";
import { chatLookup } from "./chat-lookup";

export interface Media {
  /** A chat's type and access hash (the chats table, else the entity store). */
  readonly lookupChat: ReturnType<typeof chatLookup>;
  readonly images: ImageSource;
  readonly media: MediaDescriber;
  readonly chatReactions: ChatReactions;
  /** Her voice notes fetched back from Telegram for the console to play (never stored). */
  readonly ownVoice: OwnVoice;
}

export function composeMedia(o: AgentRuntimeOptions, s: Stage, st: Stores, policy: Policy): Media {
  const { agent, clock, logger } = s;
  const lookupChat = chatLookup(st.chats, st.entities);
  const mo = o.media ?? {};
  const fetcher =
    o.llm && mo.ai !== false ? new TelegramMediaFetcher({ client: o.client, lookupChat, logger }) : undefined;
  const images = new ImageSource({
    images: new MediaImages(o.db),
    ...(fetcher ? { fetcher } : {}),
    clock,
    logger,
  });
  const media = new MediaDescriber({
    curated: mo.curated ?? { persona: new CuratedMedia(), global: new CuratedMedia() },
    cache: new MediaCache(o.db),
    budget: new MediaBudget(mo.budgetPerMinute ?? DEFAULT_MEDIA_BUDGET_PER_MINUTE, clock),
    ...(o.llm && fetcher ? { llm: new LlmMediaSource(o.llm), fetcher } : {}),
    onDownloaded: (d, bytes) => images.keep(d, bytes),
    clock,
    logger,
    ...(mo.limits ? { limits: mo.limits } : {}),
    onServed: (source) => metrics.mediaDescriptions.inc({ agent, source }),
    // Described on its sender's and its chat's share of the day's tokens.
    admit: (ref) => policy.gate.mediaCall(ref.chatId, ref.senderId),
  });
  const chatReactions = new ChatReactions({ client: o.client, lookupChat, logger });
  const ownVoice = new OwnVoice({ client: o.client, lookupChat, logger });
  return { lookupChat, images, media, chatReactions, ownVoice };
}
