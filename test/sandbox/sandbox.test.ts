import Database from "better-sqlite3";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { parseSandboxLine } from "../../src/sandbox/grammar";
import { runSandbox } from "../../src/sandbox/repl";
import { start } from "../../src/app/start";
import { sandbox } from "../support/sandbox-run";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

describe("sandbox", () => {
  it("parses the three input forms", () => {
    expect(parseSandboxLine("alice: hi there")).toEqual({ kind: "post", member: "alice", text: "hi there" });
    expect(parseSandboxLine("Bob > 12: indeed")).toEqual({
      kind: "post",
      member: "bob",
      replyTo: 12,
      text: "indeed",
    });
    expect(parseSandboxLine("dm carol: psst")).toEqual({ kind: "dm", member: "carol", text: "psst" });
    expect(parseSandboxLine("just words")).toBeUndefined();
  });

  it("parses the typing lines (and a post that merely says typing)", () => {
    expect(parseSandboxLine("alice typing")).toEqual({
      kind: "typing",
      member: "alice",
      dm: false,
      stop: false,
    });
    expect(parseSandboxLine("dm Carol typing…")).toEqual({
      kind: "typing",
      member: "carol",
      dm: true,
      stop: false,
    });
    expect(parseSandboxLine("bob stops typing")).toEqual({
      kind: "typing",
      member: "bob",
      dm: false,
      stop: true,
    });
    expect(parseSandboxLine("alice: typing")).toEqual({ kind: "post", member: "alice", text: "typing" });
  });

  it("parses the reaction lines", () => {
    expect(parseSandboxLine("bob reacts 👍 to #12")).toEqual({
      kind: "react",
      member: "bob",
      dm: false,
      messageId: 12,
      emoji: "👍",
    });
    expect(parseSandboxLine("dm Carol reacts ❤️ to 5")).toEqual({
      kind: "react",
      member: "carol",
      dm: true,
      messageId: 5,
      emoji: "❤️",
    });
    expect(parseSandboxLine("bob unreacts #12")).toEqual({
      kind: "react",
      member: "bob",
      dm: false,
      messageId: 12,
      emoji: null,
    });
    expect(parseSandboxLine("bob: reacts 👍 to #12")).toEqual({
      kind: "post",
      member: "bob",
      text: "reacts 👍 to #12",
    });
  });

  it("people react to messages and take reactions back; a reaction outside Telegram's list is refused with a line saying why", async () => {
    const out = await sandbox([
      "alice: the cake is ready",
      "bob reacts ❤️ to #2",
      "carol reacts 🦖 to #2",
      "bob unreacts #2",
    ]);
    expect(out).toContain("* bob reacts ❤ to #2");
    expect(out).toContain(`! emulator: "🦖" is not a standard Telegram reaction`);
    expect(out).toContain("* bob takes back the reaction on #2");
  });

  it("parses control lines, and names an unknown one", () => {
    expect(parseSandboxLine("/offline")).toEqual({ kind: "control", name: "offline" });
    expect(parseSandboxLine(" /KILL ")).toEqual({ kind: "control", name: "kill" });
    expect(parseSandboxLine("/reboot")).toEqual({ kind: "unknown-control", name: "reboot" });
  });

  it("/offline, /online, /kill and /start: what people wrote meanwhile reaches the persona after recovery, once", async () => {
    const out = await sandbox([
      "alice: hello all",
      "/help",
      "/offline",
      "bob: Mira, are you there?",
      "dm carol: psst, Mira",
      "/online",
      "/kill",
      "alice: Mira, back yet?",
      "/start",
      "/start",
      "/nap",
    ]);
    const text = out.join("\n");
    expect(text).toContain("/offline");
    // The account's difference, the group's, and the one dialogs page that looks for unseen groups.
    expect(out).toContain("sandbox: caught up: 2 messages in 2 chats, 3 requests");
    expect(out.some((l) => l.startsWith("sandbox: Mira's process was killed"))).toBe(true);
    // After the restart: alice's message, and bob's again if its channel state was not yet
    // committed when the process died (stored once all the same).
    expect(out.some((l) => /^sandbox: caught up: [12] messages in 1 chats/.test(l))).toBe(true);
    expect(out).toContain("sandbox: Mira is already running; /kill it first");
    expect(out.some((l) => l.startsWith('? unknown control line "/nap"'))).toBe(true);
    // Each addressed message is planned once: the dry run prints one request per planning call.
    const dry = text.split("--- dry run").slice(1);
    for (const said of ["Mira, are you there?", "psst, Mira", "Mira, back yet?"]) {
      expect(dry.some((d) => d.includes(said))).toBe(true);
    }
    // bob's and alice's messages in the group join one planning call (a burst); carol's DM its own.
    expect(dry).toHaveLength(2);
  });

  it("runs dry without a key: prints every message and the request body it would send, answers nothing", async () => {
    // A new supergroup's first message is its service message, so members' messages start at #2.
    const out = await sandbox(
      ["alice: lunch?", "alice typing", "bob > 2: Mira, what do you think?", "zed: hi", "dm carol: psst"],
      {},
      { json: true },
    );
    expect(out).toContain("… alice is typing");
    expect(out).toContain("#2 alice: lunch?");
    expect(out).toContain("#3 bob: Mira, what do you think? (↩ #2)");
    expect(out.some((l) => l.startsWith("? expected"))).toBe(true);
    expect(out.some((l) => /^\[dm\] #\d+ carol: psst$/.test(l))).toBe(true);
    const dry = out.filter((l) => l.startsWith("--- dry run"));
    expect(dry).toHaveLength(2); // the mention and the DM; "lunch?" addresses nobody
    const text = out.join("\n");
    expect(text).toContain('"responseMimeType": "application/json"');
    // Alice's message is history (the thread bob's question opens in); the question names it by id.
    expect(text).toMatch(/"text": "⟦#2 \[Alice\]\(tg:@alice\) · [^"]*⟧ lunch\?"/);
    expect(text).toContain("\\n[↩ reply to #2 [Alice](tg:@alice)]\\nMira, what do you think?");
    expect(out.filter((l) => /^#\d+ Mira:/.test(l))).toEqual([]);
  });

  it("answers through Gemini when a key is set, and exits once the reply is sent", async () => {
    const gemini = await GeminiFake.start();
    gemini.respondWith(() => ({
      json: {
        tasks: [
          { kind: "react", emoji: "👍", message_id: 2 },
          { kind: "send", text: "hi alice!" },
        ],
      },
    }));
    try {
      const out = await sandbox(["alice: hey Mira"], {
        GEMINI_API_KEY: "k",
        GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
      });
      expect(out).toContain("* Mira reacts 👍 to #2");
      expect(out).toContain("#3 Mira: hi alice!");
      expect(gemini.requests).toHaveLength(1);
    } finally {
      await gemini.close();
    }
  }, 30_000);
});

describe("npm start without a session", () => {
  it("says there is no session, how to log in, and runs the sandbox instead — even with a malformed TELEGRAM_API_HASH", async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on("data", (c) => chunks.push(String(c)));
    const code = await start({
      // The sandbox does not use Telegram's credentials, so a bad hash must not stop it.
      env: readEnv({
        AGENTS_DIR: "agents",
        SESSIONS_DIR: tempDir(),
        LOG_LEVEL: "silent",
        TELEGRAM_API_HASH: "not-a-hash",
        TELEGRAM_API_ID: "abc",
      }),
      sandbox: {
        input: Readable.from(["alice: hello\n"]),
        output: out,
        dbPath: join(tempDir(), "s.db"),
        logger: captureLogger().logger,
      },
    });
    expect(code).toBe(0);
    const text = chunks.join("");
    expect(text).toMatch(/No account session in .*Mira\.session/s);
    expect(text).toContain("log in once: npm run login -- Mira");
    expect(text).toContain("Starting the offline sandbox instead.");
    expect(text).toContain("#2 alice: hello");
  });
});

describe("stopping the sandbox", () => {
  /**
   * A wait of ten minutes pending in one chat and a slow planning call in flight for another;
   * then `signal`: the sandbox stops within a couple of seconds and says what it left.
   */
  async function stopsWithPendingWork(signal: "SIGINT" | "SIGTERM"): Promise<void> {
    const gemini = await GeminiFake.start();
    // The first plan waits ten minutes before answering; the second is a slow planning call.
    gemini.script(
      {
        json: {
          tasks: [
            { kind: "wait", seconds: 600 },
            { kind: "send", text: "much later" },
          ],
        },
      },
      { delayMs: 60_000, then: { json: { tasks: [] } } },
    );
    const input = new PassThrough();
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on("data", (c) => chunks.push(String(c)));
    const signals = new EventEmitter();
    const exits: number[] = [];
    const dbPath = join(tempDir(), "kept.db");
    const running = runSandbox({
      input,
      output: out,
      dbPath,
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: "agents", GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: gemini.baseUrl }),
      signals,
      exit: (c) => exits.push(c),
    });
    try {
      await until(() => chunks.join("").includes("Type "), 20_000);
      input.write("dm carol: wait for it\n");
      await until(() => gemini.requests.length === 1, 20_000);
      await new Promise((r) => setTimeout(r, 300)); // the plan is in: its wait task is pending
      input.write("alice: Mira, and now?\n"); // another chat: the DM's wait stays pending
      await until(() => gemini.requests.length === 2, 20_000); // the slow planning call is in flight
      const t0 = Date.now();
      signals.emit(signal);
      expect(await running).toBe(0);
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(chunks.join("")).toMatch(
        /sandbox: stopped\. \d+ unfinished tasks \(.*1 wait.*\), not run: left in .*kept\.db, as a stopped process leaves them\./,
      );
      expect(chunks.join("")).toMatch(/unfinished tasks \(.*1 received/);
      expect(chunks.join("")).not.toContain("much later");
      expect(exits).toEqual([]); // it returned: no forced exit
      signals.emit(signal);
      expect(exits).toEqual([]); // the sandbox is gone: its handlers too
    } finally {
      await gemini.close();
    }
  }

  it("Ctrl-C stops within a couple of seconds, abandoning a planning call in flight and a wait, and says what it left; a second Ctrl-C exits at once", async () => {
    await stopsWithPendingWork("SIGINT");
  }, 60_000);

  it("SIGTERM first (kill, a container stop) does the same: stopped within a couple of seconds, the work left in the database", async () => {
    await stopsWithPendingWork("SIGTERM");
  }, 60_000);

  it("Ctrl-C while another process holds the database's write lock (messages typed meanwhile wait for it) stops within 2 s", async () => {
    const input = new PassThrough();
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on("data", (c) => chunks.push(String(c)));
    const signals = new EventEmitter();
    const exits: number[] = [];
    const dbPath = join(tempDir(), "held.db");
    const running = runSandbox({
      input,
      output: out,
      dbPath,
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: "agents" }),
      signals,
      exit: (c) => exits.push(c),
    });
    await until(() => chunks.join("").includes("Type "), 20_000);
    // An sqlite3 shell (or a second program) takes the write lock and keeps it.
    const other = new Database(dbPath);
    other.exec("BEGIN IMMEDIATE");
    other.prepare("INSERT INTO chat_settings (agent, chat_id, paused) VALUES ('someone else', 'x', 0)").run();
    try {
      input.write("alice: hello\n");
      input.write("dm carol: Mira, are you there?\n");
      await new Promise((r) => setTimeout(r, 1500)); // the lines wait for the database
      const t0 = Date.now();
      signals.emit("SIGINT");
      expect(await running).toBe(0);
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(chunks.join("")).toContain("sandbox: stopped.");
      expect(exits).toEqual([]); // stopped by itself, not by a forced exit
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
  }, 30_000);

  it("a second Ctrl-C while it stops exits at once", async () => {
    const input = new PassThrough();
    const signals = new EventEmitter();
    const exits: number[] = [];
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on("data", (c) => chunks.push(String(c)));
    const running = runSandbox({
      input,
      output: out,
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: "agents" }),
      signals,
      exit: (c) => exits.push(c),
    });
    await until(() => chunks.join("").includes("Type "), 20_000);
    signals.emit("SIGTERM");
    signals.emit("SIGINT");
    expect(exits).toEqual([130]);
    expect(await running).toBe(0);
  }, 30_000);
});
