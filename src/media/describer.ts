/**
 * The description chain, first answer wins:
 *   curated for this persona → curated for every persona → the AI cache (SQLite, "unsupported"
 *   verdicts included) → the budget gate → the AI source (download + one multimodal call, cached)
 *   → nothing (the caller renders the plain placeholder).
 *
 * Only called for messages that enter a prompt. The caller waits a bounded time; work still
 * running then finishes in the background and is cached for the next prompt. An item the budget
 * refused is described later, when the budget frees up.
 */
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import { onTimeout, withTimeout } from "../base/timeout";
import type { CachedMedia, MediaCache } from "../store/media-cache";
import type { Clock } from "../base/types";
import type { MediaBudget } from "./budget";
import type { CuratedSources } from "./curated";
import {
  DESCRIBABLE,
  TRANSCRIBED,
  type MediaDescription,
  type MediaDescriptor,
} from "../base/media-descriptor";

/** A media message that enters a prompt: where it is (to refetch it) and what it carries. */
export interface MediaRef {
  readonly chatId: string;
  readonly messageId: number;
  readonly media: MediaDescriptor;
  /** Who sent it: the call to describe it is theirs (their token share pays for it). */
  readonly senderId?: string;
}

/** Downloads files and names sticker sets (the Telegram side). */
export interface MediaFetcher {
  /** The file's bytes; renews an expired file reference by refetching the message. */
  download(ref: MediaRef): Promise<Buffer>;
  /** A sticker set's short name (one request per set, then remembered). */
  stickerSetName(setId: string, accessHash: string): Promise<string | undefined>;
}

/** What the AI source answers for one file. */
export type MediaVerdict =
  | { readonly status: "ok"; readonly text: string }
  | { readonly status: "unsupported"; readonly reason: string };

/** Describes (or transcribes) one file with a multimodal model. */
export interface MediaLlm {
  readonly model: string;
  describe(input: {
    readonly bytes: Buffer;
    readonly mime: string;
    readonly kind: MediaDescriptor["kind"];
    /** Where it was sent and by whom: the call's usage is recorded for them. */
    readonly chatId?: string;
    readonly userId?: string;
  }): Promise<MediaVerdict>;
  /** False while the model is failing (an outage): nothing is downloaded for it meanwhile (default: available). */
  available?(kind: MediaDescriptor["kind"]): boolean;
}

export interface MediaLimits {
  /** Files larger than this are not downloaded (default 5 MB). */
  readonly maxBytes: number;
  /** Voice and video notes longer than this are not transcribed (default 300 s). */
  readonly maxVoiceSec: number;
  /** Transcripts and descriptions are cut to this many characters (default 1,000). */
  readonly maxTextChars: number;
}

const DEFAULT_MEDIA_LIMITS: MediaLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxVoiceSec: 300,
  maxTextChars: 1000,
};

/** MIME types Gemini reads as inline data (images, audio, video). */
const READABLE_MIME =
  /^(image\/(jpeg|png|webp|heic|heif)|audio\/(ogg|mpeg|mp3|mp4|wav|x-wav|aac|flac|webm)|video\/(mp4|webm|mpeg|quicktime|3gpp))$/;

export interface MediaDescriberOptions {
  readonly curated: CuratedSources;
  readonly cache: MediaCache;
  readonly budget: MediaBudget;
  /** Absent (dry sandbox, no Gemini key): the chain ends at the cache. */
  readonly fetcher?: MediaFetcher;
  readonly llm?: MediaLlm;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limits?: Partial<MediaLimits>;
  /** Told of every file downloaded (the inline picture cache keeps photos, so they are downloaded once). */
  readonly onDownloaded?: (d: MediaDescriptor, bytes: Buffer) => void;
  /** Where each file of a prompt got its description (metrics). */
  readonly onServed?: (source: MediaSource) => void;
  /**
   * The admission gate's token caps for a file's sender in its chat (policy/gate.ts): false
   * keeps its placeholder (nothing downloaded, no call) — one member's pictures cannot spend
   * past their share because someone else asked something. Absent: every file may be described.
   */
  readonly admit?: (ref: MediaRef) => boolean;
}

/** Where a prompt's media description came from; `placeholder`: none yet (the plain `[photo]`). */
type MediaSource = "curated" | "cache" | "ai" | "placeholder";

/** Counters for /status-like reporting and the benchmark. */
export interface MediaStats {
  downloads: number;
  calls: number;
  deferred: number;
}

export class MediaDescriber {
  readonly stats: MediaStats = { downloads: 0, calls: 0, deferred: 0 };
  private readonly limits: MediaLimits;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Refused by the budget: described when it frees up (one ref per file). */
  private readonly later = new Map<string, MediaRef>();
  private laterTimer: unknown;
  private stopped = false;

  constructor(private readonly o: MediaDescriberOptions) {
    this.limits = { ...DEFAULT_MEDIA_LIMITS, ...o.limits };
  }

  /** The curated descriptions (for the sticker section of the system instruction). */
  get curated(): CuratedSources {
    return this.o.curated;
  }

  /** Curated (persona, then global), then the cache: no request, no call. */
  lookup(d: MediaDescriptor): MediaDescription | undefined {
    if (!d.uid) return undefined;
    const curated = this.o.curated.persona.get(d.uid) ?? this.o.curated.global.get(d.uid);
    if (curated)
      return { text: curated.description, ...(curated.stickerSet ? { stickerSet: curated.stickerSet } : {}) };
    const cached = this.o.cache.get(d.uid);
    if (cached?.status === "ok" && cached.description)
      return { text: cached.description, ...(cached.stickerSet ? { stickerSet: cached.stickerSet } : {}) };
    return undefined;
  }

  /** The cache's verdict when it holds one (also "unsupported"), else undefined. */
  private settled(uid: string): boolean {
    return (
      this.o.curated.persona.get(uid) !== undefined ||
      this.o.curated.global.get(uid) !== undefined ||
      this.o.cache.get(uid) !== undefined
    );
  }

  /**
   * Descriptions for these media messages (by unique id), waiting at most `waitMs` (real time:
   * it bounds network work) for the AI source. `refs` in priority order: the budget goes first
   * to the first ones.
   */
  async describe(refs: readonly MediaRef[], waitMs: number): Promise<Map<string, MediaDescription>> {
    const jobs: Promise<void>[] = [];
    const seen = new Set<string>();
    /** Files this call waits for the AI source on (a description found afterwards is the AI's). */
    const started = new Set<string>();
    for (const ref of refs) {
      const uid = ref.media.uid;
      if (!uid || seen.has(uid)) continue;
      seen.add(uid);
      if (this.settled(uid)) continue;
      const job = this.start(ref);
      if (job) {
        jobs.push(job);
        started.add(uid);
      }
    }
    if (jobs.length > 0) {
      await withTimeout(Promise.all(jobs), waitMs, "media descriptions", systemClock).catch(
        onTimeout(undefined),
      );
    }
    const out = new Map<string, MediaDescription>();
    for (const uid of seen) {
      const ref = refs.find((r) => r.media.uid === uid)!;
      const found = this.lookup(ref.media);
      if (found) out.set(uid, found);
      if (this.o.onServed) {
        const curated =
          this.o.curated.persona.get(uid) !== undefined || this.o.curated.global.get(uid) !== undefined;
        this.o.onServed(!found ? "placeholder" : curated ? "curated" : started.has(uid) ? "ai" : "cache");
      }
    }
    return out;
  }

  /** Wait for every AI job running now (tests, the benchmark, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /** No more deferred work. */
  stop(): void {
    this.stopped = true;
    if (this.laterTimer !== undefined) this.o.clock.clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
  }

  /** Start the AI source for `ref` (or join the job already running), or defer it. */
  private start(ref: MediaRef): Promise<void> | undefined {
    const d = ref.media;
    const uid = d.uid!;
    const running = this.inFlight.get(uid);
    if (running) return running;
    const why = this.unsupported(d);
    if (why) {
      this.o.cache.put({ uniqueId: uid, kind: d.kind, status: "unsupported" }, this.o.clock.now());
      this.o.logger.debug(
        { component: "media", uid, kind: d.kind, reason: why },
        "media not described (unsupported)",
      );
      return undefined;
    }
    if (!this.o.fetcher || !this.o.llm) return undefined;
    // The model is failing: no download, no call; the placeholder stands and the file is tried again next time.
    if (this.o.llm.available?.(d.kind) === false) return undefined;
    // Over its sender's (or chat's) share of the day's tokens: the placeholder stands.
    if (this.o.admit && !this.o.admit(ref)) return undefined;
    if (!this.o.budget.tryTake()) {
      if (!this.later.has(uid)) {
        this.later.set(uid, ref);
        this.stats.deferred++;
        this.o.logger.info({ component: "media", uid, kind: d.kind }, "media budget spent; described later");
      }
      this.scheduleLater();
      return undefined;
    }
    this.later.delete(uid);
    const job = this.run(ref).finally(() => this.inFlight.delete(uid));
    this.inFlight.set(uid, job);
    return job;
  }

  /** A reason not to try at all (decided from the descriptor, no download), or undefined. */
  private unsupported(d: MediaDescriptor): string | undefined {
    if (!DESCRIBABLE.has(d.kind)) return `kind ${d.kind}`;
    if (!d.file) return "no file";
    if (d.sticker?.animated === "tgs") return "animated (Lottie) sticker";
    // A photo is always JPEG; any other file needs a MIME type Gemini reads (none or "" is unreadable).
    if (d.kind !== "photo" && !(d.mime && READABLE_MIME.test(d.mime)))
      return d.mime ? `MIME type ${d.mime}` : "no MIME type";
    if (d.size !== undefined && d.size > this.limits.maxBytes)
      return `${d.size} bytes (cap ${this.limits.maxBytes})`;
    if (TRANSCRIBED.has(d.kind) && (d.duration ?? 0) > this.limits.maxVoiceSec)
      return `${d.duration} s (cap ${this.limits.maxVoiceSec} s)`;
    return undefined;
  }

  private async run(ref: MediaRef): Promise<void> {
    const d = ref.media;
    const uid = d.uid!;
    const log = { component: "media", chatId: ref.chatId, messageId: ref.messageId, uid, kind: d.kind };
    try {
      const setName =
        d.sticker?.setId && d.sticker.setAccessHash
          ? await this.o
              .fetcher!.stickerSetName(d.sticker.setId, d.sticker.setAccessHash)
              .catch(() => undefined)
          : undefined;
      this.stats.downloads++;
      const bytes = await this.o.fetcher!.download(ref);
      this.o.onDownloaded?.(d, bytes);
      if (bytes.length > this.limits.maxBytes) {
        this.put({
          uniqueId: uid,
          kind: d.kind,
          status: "unsupported",
          ...(setName ? { stickerSet: setName } : {}),
        });
        return;
      }
      this.stats.calls++;
      const verdict = await this.o.llm!.describe({
        bytes,
        mime: d.mime ?? "application/octet-stream",
        kind: d.kind,
        chatId: ref.chatId,
        ...(ref.senderId !== undefined ? { userId: ref.senderId } : {}),
      });
      if (verdict.status === "unsupported") {
        this.o.logger.info(
          { ...log, reason: verdict.reason },
          "media could not be described; not tried again",
        );
        this.put({
          uniqueId: uid,
          kind: d.kind,
          status: "unsupported",
          model: this.o.llm!.model,
          ...(setName ? { stickerSet: setName } : {}),
        });
        return;
      }
      const text = cap(verdict.text.trim(), this.limits.maxTextChars);
      this.put({
        uniqueId: uid,
        kind: d.kind,
        status: "ok",
        description: text,
        model: this.o.llm!.model,
        ...(setName ? { stickerSet: setName } : {}),
      });
      this.o.logger.debug({ ...log, chars: text.length }, "media described");
    } catch (err) {
      // A transient failure (network, Telegram, Gemini 5xx): nothing cached, tried again when it next enters a prompt.
      this.o.logger.warn(
        { ...log, err: errorMessage(err) },
        "describing media failed; the placeholder stands",
      );
    }
  }

  private put(e: CachedMedia): void {
    this.o.cache.put(e, this.o.clock.now());
  }

  /** Describe deferred items once the budget frees up (oldest first), as far as it goes. */
  private scheduleLater(): void {
    if (this.laterTimer !== undefined || this.stopped || this.later.size === 0) return;
    const wait = Math.max(0, this.o.budget.nextFreeAt() - this.o.clock.now());
    this.laterTimer = this.o.clock.setTimeout(() => {
      this.laterTimer = undefined;
      if (this.stopped) return;
      for (const [uid, ref] of [...this.later]) {
        if (this.settled(uid)) {
          this.later.delete(uid);
          continue;
        }
        if (!this.start(ref)) break;
      }
      this.scheduleLater();
    }, wait);
  }
}

function cap(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : `${cps.slice(0, max).join("").trimEnd()}…`;
}
