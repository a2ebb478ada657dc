import type { Logger } from "pino";
import type { Embedder } from "../../src/llm/embedder";
import { GeminiEmbedder } from "../../src/llm/gemini-embedder";
import { OpenAiEmbedder } from "../../src/llm/openai-embedder";
import { GeminiSpeech } from "../../src/llm/speech";
import { GroundedLookup } from "../../src/llm/grounded";
import { parsePersona, type Persona } from "../../src/config/persona";
import { GeminiClient } from "../../src/llm/gemini-client";
import { GeminiLlm, type Llm } from "../../src/llm/llm";
import { createLlm } from "../../src/llm/providers";
import { readEnv } from "../../src/config/env";
import type { OpenAiFake } from "./openai-fake";
import { GeminiPlanner } from "../../src/planning/planner";
import type { PriceTable } from "../../src/llm/prices";
import type { CuratedMemories } from "../../src/memory/curated";
import { AgentRuntime, type MediaRuntimeOptions } from "../../src/runtime/agent-runtime";
import { FakeClock } from "../../src/base/clock";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import {
  createEmulatedClient,
  TelegramEmulator,
  type EmuChat,
  type EmulatorOptions,
  type EmuUser,
} from "../../emulator";
import type { TelegramClient } from "../../src/telegram/inbound/listen";
import { GeminiFake, isPlanRequest, lastUserText, promptSections } from "./gemini-fake";
import { captureLogger } from "./log-capture";
import { tempDbPath } from "./temp-dir";
import { PeerCacheSession } from "../../src/telegram/connection/session";

export const TEST_PERSONA = `# Agent Name
Mira

# Agent Instructions
You are Mira, a friendly member of this chat.

# Aliases
Mirochka

# Start Typing Delay
1

# Typing Speed
10

# Read Delay
2

# Agent Sticker Sets
MiraCats
Cats
NoSuchSet
`;

/** A scripted Gemini answer holding a plan with these tasks. */
export const plan = (...tasks: unknown[]) => ({ json: { tasks } });

export interface HarnessOptions {
  readonly persona?: string;
  readonly replyTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly dbPath?: string;
  readonly gemini?: GeminiFake;
  /** Plan (and everything else) through this OpenAI-compatible fake instead of Gemini (llm/providers.ts). */
  readonly openai?: OpenAiFake;
  readonly clock?: FakeClock;
  /** Emulator options (e.g. update protocol limits); `now` is always the fake clock's time passing (not its jumps). */
  readonly emulator?: Omit<EmulatorOptions, "now">;
  /** User ids of the other personas of the process (the loop guard). */
  readonly siblings?: ReadonlySet<string>;
  readonly prices?: PriceTable;
  readonly maxAnswerAgeMs?: number;
  /** Curated memories by user id (as loaded from agents/<Name>/memory/). */
  readonly curated?: CuratedMemories;
  /** Media understanding options (curated files, budget, limits). */
  readonly media?: MediaRuntimeOptions;
  /** SQLite's busy timeout of the runtime's connection (default: the product's). */
  readonly busyTimeoutMs?: number;
  /**
   * The scheduler's tick (default 100 ms). A test that lets hours pass uses a longer one: every
   * tick is a fake timer the clock fires on the way.
   */
  readonly tickMs?: number;
  /**
   * Memory by meaning: embeddings through the real SDK against the fake in use (Gemini's
   * embedContent, or the OpenAI fake's /v1/embeddings), with the fake's deterministic vectors;
   * `vectorExtension` replaces sqlite-vec's loader (one that throws: a database without it).
   */
  readonly embeddings?: {
    readonly model?: string;
    readonly dimensions?: number;
    readonly vectorExtension?: (db: Db) => void;
  };
}

/**
 * One persona on the emulator, planning through the real Gemini SDK against the loopback fake,
 * with a real SQLite file and a fake clock. The world is: a supergroup "Sandbox" with alice,
 * bob and carol (the account's contacts), a basic group "Club", and DMs.
 */
export class Harness {
  readonly emu: TelegramEmulator;
  readonly clock: FakeClock;
  /** The persona of the next `boot()` (see `restart`). */
  persona: Persona;
  /** The database file; a test may point it elsewhere (a restored backup) before the next `boot()`. */
  dbPath: string;
  account!: EmuUser;
  alice!: EmuUser;
  bob!: EmuUser;
  carol!: EmuUser;
  group!: EmuChat;
  club!: EmuChat;
  gemini!: GeminiFake;
  db!: Db;
  client!: TelegramClient;
  runtime!: AgentRuntime;
  log!: ReturnType<typeof captureLogger>;
  /** Embedding options of the next `boot()` when the test changes them (a model change); default the option given. */
  embeddingsNow: HarnessOptions["embeddings"];
  /** Media options of the next `boot()` (starts as the option given). */
  media: MediaRuntimeOptions | undefined;

  private constructor(private readonly o: HarnessOptions) {
    this.clock = o.clock ?? new FakeClock();
    const clock = this.clock;
    // Telegram's time moves with time passing (advance), not when the local clock is set (jump).
    // strictTl: every update and answer goes through TL bytes and back, so GramJS hands the product
    // what it would decode from Telegram (an absent optional field is null, not undefined).
    const zero = clock.now() - clock.monotonic();
    this.emu = new TelegramEmulator({ strictTl: true, ...o.emulator, now: () => zero + clock.monotonic() });
    this.persona = parsePersona(o.persona ?? TEST_PERSONA, { file: "agents/Mira.md", promptDirs: [] });
    this.dbPath = o.dbPath ?? tempDbPath();
    this.media = o.media;
  }

  static async start(o: HarnessOptions = {}): Promise<Harness> {
    const h = new Harness(o);
    h.account = h.emu.addAccount({ firstName: "Mira", username: "mira_ai" });
    h.alice = h.emu.addUser({ firstName: "Alice", username: "alice" });
    h.bob = h.emu.addUser({ firstName: "Bob", username: "bob" });
    h.carol = h.emu.addUser({ firstName: "Carol", username: "carol" });
    h.group = h.emu.createSupergroup({ title: "Sandbox", members: [h.account, h.alice, h.bob, h.carol] });
    h.club = h.emu.createGroup({ title: "Club", members: [h.account, h.alice, h.bob] });
    // They are the persona's contacts (a `contacts` DM policy answers them).
    for (const u of [h.alice, h.bob, h.carol]) h.emu.addContact(h.account, u);
    h.gemini = o.gemini ?? (await GeminiFake.start());
    h.boot();
    await h.runtime.caughtUp;
    h.emu.traffic.clearRequests(); // the start's catch-up (updates.GetState) is not what tests look at
    return h;
  }

  /** Build (or rebuild, after `crash()`) the runtime on the same database, emulator and Gemini fake. */
  boot(): void {
    this.log = captureLogger();
    this.db = openDatabase(
      this.dbPath,
      this.o.busyTimeoutMs !== undefined ? { busyTimeoutMs: this.o.busyTimeoutMs } : {},
    );
    this.client = createEmulatedClient(this.emu, this.account, { session: new PeerCacheSession("") });
    const llm: Llm = this.o.openai
      ? createLlm({
          env: {
            ...readEnv({}),
            OPENAI_BASE_URL: this.o.openai.baseUrl,
            OPENAI_API_KEY: "local",
            OPENAI_MODEL: "fake-model",
          },
          logger: this.log.logger,
          now: () => this.clock.now(),
          openaiClient: { maxAttempts: 2, sleep: async () => {} },
        }).llm
      : new GeminiLlm({
          client: this.geminiClient(this.log.logger),
          logger: this.log.logger,
          model: "gemini-2.5-flash",
          models: {
            address: "gemini-2.5-flash-lite",
            summarise: "gemini-2.5-flash-lite-summary",
            describe: "gemini-2.5-flash-lite",
            transcribe: "gemini-2.5-flash-lite",
          },
        });
    this.runtime = new AgentRuntime({
      persona: this.persona,
      db: this.db,
      client: this.client,
      selfId: String(this.account.id),
      ...(this.account.username ? { selfUsername: this.account.username } : {}),
      planner: new GeminiPlanner({ llm, logger: this.log.logger }),
      llm,
      lookups: new GroundedLookup({
        apiKey: "test-key-not-secret",
        model: "gemini-2.5-flash",
        baseUrl: this.gemini.baseUrl,
        logger: this.log.logger,
      }),
      // Her voice (`# Voice`, off unless the persona says so): speech from the same fake.
      speech: new GeminiSpeech({
        apiKey: "test-key-not-secret",
        model: "gemini-2.5-flash-preview-tts",
        baseUrl: this.gemini.baseUrl,
        logger: this.log.logger,
      }),
      logger: this.log.logger,
      clock: this.clock,
      replyTimeoutMs: this.o.replyTimeoutMs ?? 5000,
      ...(this.o.requestTimeoutMs !== undefined ? { requestTimeoutMs: this.o.requestTimeoutMs } : {}),
      scheduler: { tickMs: this.o.tickMs ?? 100, retryDelayMs: 10_000 },
      ...(this.o.siblings ? { siblings: this.o.siblings } : {}),
      ...(this.o.prices ? { prices: this.o.prices } : {}),
      ...(this.o.maxAnswerAgeMs !== undefined ? { maxAnswerAgeMs: this.o.maxAnswerAgeMs } : {}),
      ...(this.o.curated ? { curated: this.o.curated } : {}),
      ...(this.media ? { media: this.media } : {}),
      ...this.embeddingOptions(),
    });
    this.clock.settle = () => this.runtime.scheduler.whenIdle();
    this.runtime.start();
  }

  /** Stop the runtime cleanly and start a new process on the same database, optionally with an edited persona file. */
  async restart(o: { persona?: string } = {}): Promise<void> {
    await this.runtime.stop();
    this.emu.detach(this.client);
    closeDatabase(this.db);
    if (o.persona !== undefined)
      this.persona = parsePersona(o.persona, { file: "agents/Mira.md", promptDirs: [] });
    this.boot();
    await this.runtime.caughtUp;
  }

  /** Kill the runtime the way a dead process goes: no clean-up, nothing more written. */
  crash(): void {
    this.runtime.abandon();
    this.emu.detach(this.client);
    this.db.close();
  }

  async close(): Promise<void> {
    await this.runtime.stop();
    this.emu.detach(this.client);
    closeDatabase(this.db);
    if (!this.o.gemini) await this.gemini.close();
  }

  /** Let fake time pass (typing, waits, read delays), finishing the work due on the way. */
  async pass(ms: number): Promise<void> {
    await this.clock.advance(ms);
  }

  /** Messages the account sent in a chat, as the server has them. */
  sent(chat: EmuChat): { id: number; text: string; replyTo?: number }[] {
    return this.emu
      .history(chat)
      .filter((m) => m.fromId === this.account.id)
      .map((m) => ({ id: m.id, text: m.text, ...(m.replyTo !== undefined ? { replyTo: m.replyTo } : {}) }));
  }

  /** The account's Saved Messages (its chat with itself). */
  get saved(): EmuChat {
    return this.emu.savedMessages(this.account);
  }

  /** The owner types `text` in `chat` on another device (default: Saved Messages). */
  async ownerSays(text: string, chat: EmuChat = this.saved): Promise<number> {
    const posted = await this.emu.post({ chat, from: this.account, text, deliverToSender: true });
    return posted.id;
  }

  /** Texts in Saved Messages that are not the owner's commands: the persona's answers. */
  savedReplies(): string[] {
    return this.emu
      .history(this.saved)
      .map((m) => m.text)
      .filter((t) => !t.startsWith("/"));
  }

  /** Index of the newest planning request (not a summary, description or addressing call). */
  lastPlanIndex(): number {
    for (let i = this.gemini.requests.length - 1; i >= 0; i--)
      if (isPlanRequest(this.gemini.requests[i]!.body)) return i;
    return -1;
  }

  /** The text of the last `user` turn of a recorded Gemini request (default: the newest planning request). */
  lastUserTurn(index = this.lastPlanIndex()): string {
    return lastUserText(this.gemini.requests[index]!.body);
  }

  /** The messages shown as context in a planning request (default the newest), one envelope each, addressed ones left out. */
  historyParts(index = this.lastPlanIndex()): string[] {
    return promptSections(this.gemini.requests[index]!.body).history;
  }

  /** The addressed messages of a planning request (default the newest), one envelope each. */
  nowParts(index = this.lastPlanIndex()): string[] {
    return promptSections(this.gemini.requests[index]!.body).now;
  }

  /** The runtime's embedder (and vector extension) for `embeddings`; none without it. */
  private embeddingOptions(): { embedder?: Embedder; vectorExtension?: (db: Db) => void } {
    const e = this.embeddingsNow ?? this.o.embeddings;
    if (e === undefined) return {};
    const embedder: Embedder = this.o.openai
      ? new OpenAiEmbedder({
          baseUrl: this.o.openai.baseUrl,
          apiKey: "local",
          model: e.model ?? "fake-embed",
          ...(e.dimensions !== undefined ? { dimensions: e.dimensions } : {}),
          logger: this.log.logger,
        })
      : new GeminiEmbedder({
          apiKey: "test-key-not-secret",
          model: e.model ?? "gemini-embedding-001",
          dimensions: e.dimensions ?? 128,
          baseUrl: this.gemini.baseUrl,
          logger: this.log.logger,
        });
    return { embedder, ...(e.vectorExtension ? { vectorExtension: e.vectorExtension } : {}) };
  }

  private geminiClient(logger: Logger): GeminiClient {
    return new GeminiClient({
      apiKey: "test-key-not-secret",
      model: "gemini-2.5-flash",
      baseUrl: this.gemini.baseUrl,
      logger,
      maxAttempts: 2,
      sleep: async () => {},
      now: () => this.clock.now(),
    });
  }
}
