/**
 * P9: media understanding's cost. The same sticker is sent 100 times across 20 chats (DMs: each
 * one addresses the persona) through the emulator, real GramJS and the whole runtime; the
 * persona plans each time. Counted: downloads (upload.getFile requests and the describer's own
 * count) and description calls (goal 1 and 1). Then the latency a cached description adds to an
 * answer: rendering a 30-message history holding the sticker (cache hit) minus the same history
 * without media (goal < 5 ms).
 */
import { parsePersona } from "../src/config/persona";
import type { JsonOutcome, JsonRequest, Llm } from "../src/llm/llm";
import { DryPlanner } from "../src/planning/planner";
import type { SelectedContext } from "../src/planning/assemble";
import { withMediaDescriptions } from "../src/planning/media-in-view";
import { FakeClock } from "../src/base/clock";
import type { StoredMessage } from "../src/store/messages";
import { benchWorld, startRig, tearDownRig } from "./rig";

export interface MediaFigures {
  readonly stickers: number;
  readonly chats: number;
  /** upload.getFile requests (one chunk per download of this small file). */
  readonly fileRequests: number;
  readonly downloads: number;
  readonly descriptionCalls: number;
  /** Plans made (one per sticker): every sticker was addressed and answered. */
  readonly plans: number;
  /** Mean added time to render a history when its media description is a cache hit, ms. */
  readonly cacheHitAddedMs: number;
  readonly renderWithMediaMs: number;
  readonly renderTextOnlyMs: number;
}

const PERSONA =
  "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n\n# Read Delay\n0\n\n# Answers Per Hour\n100\n";

/** An in-process LLM that describes anything as a waving cat and counts its calls. */
class CountingLlm implements Llm {
  calls = 0;
  modelFor(): string {
    return "bench-model";
  }
  onUsage(): () => void {
    return () => {};
  }
  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    if (req.purpose === "describe" || req.purpose === "transcribe") this.calls++;
    return { ok: true, value: { text: "a cartoon cat waving hello" } as T, model: "bench-model", calls: 1 };
  }
}

export async function benchMedia(
  o: { chats?: number; stickers?: number; renders?: number } = {},
): Promise<MediaFigures> {
  const chatsN = o.chats ?? 20;
  const stickersN = o.stickers ?? 100;
  const renders = o.renders ?? 2000;
  const clock = new FakeClock();
  const world = benchWorld("bench-media", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = Array.from({ length: chatsN }, (_, i) =>
    emu.addUser({ firstName: `P${i}`, username: `p${i}` }),
  );
  emu.addStickerSet({ shortName: "BenchCats", title: "Cats", stickers: [{ emoji: "👋" }] });
  const llm = new CountingLlm();
  let plans = 0;
  const rig = startRig(world, me, {
    persona: parsePersona(PERSONA, { file: "bench", promptDirs: [] }),
    planner: new DryPlanner(() => plans++),
    llm,
    scheduler: { tickMs: 100 },
  });
  const { runtime } = rig;
  try {
    await runtime.caughtUp;
    for (let i = 0; i < stickersN; i++) {
      const from = people[i % chatsN]!;
      await emu.post({
        chat: emu.dm(me, from),
        from,
        text: "",
        media: { kind: "sticker", set: "BenchCats", emoji: "👋" },
      });
      await clock.advance(1000);
      await runtime.media.idle();
    }
    await clock.advance(5000);
    const fileRequests = emu.traffic.fileRequests().length;

    // Latency: a 30-message history with the (cached) sticker, against the same history as text.
    const chatId = emu.dm(me, people[0]!).peerId;
    const stored = runtime.messages.recent(chatId, Number.MAX_SAFE_INTEGER, 1)[0]!;
    const textOnly: StoredMessage[] = Array.from({ length: 30 }, (_, i) => ({
      ...stored,
      messageId: i + 1,
      text: `message ${i}`,
      media: undefined,
    }));
    const withMedia: StoredMessage[] = [...textOnly.slice(0, 29), { ...stored, messageId: 30 }];
    // What the received handler does with a context before the prompt (only history and targets are read).
    const contextOf = (h: StoredMessage[]) =>
      ({
        chat: { chatId, chatType: "dm" },
        items: [],
        room: { kind: "root", chatId },
        history: h.slice(0, -1),
        earlierIds: new Set(),
        targets: h.slice(-1),
        speakers: undefined as never,
      }) as SelectedContext;
    const time = async (h: StoredMessage[]) => {
      const c = contextOf(h);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < renders; i++) {
        const prepared = await withMediaDescriptions(c, runtime.media);
        for (const m of [...prepared.context.history, ...prepared.context.targets]) prepared.media(m);
      }
      return Number(process.hrtime.bigint() - t0) / 1e6 / renders;
    };
    await time(withMedia); // warm-up
    const renderWithMediaMs = await time(withMedia);
    const renderTextOnlyMs = await time(textOnly);
    return {
      stickers: stickersN,
      chats: chatsN,
      fileRequests,
      downloads: runtime.media.stats.downloads,
      descriptionCalls: llm.calls,
      plans,
      cacheHitAddedMs: renderWithMediaMs - renderTextOnlyMs,
      renderWithMediaMs,
      renderTextOnlyMs,
    };
  } finally {
    await tearDownRig(rig, 100);
  }
}
