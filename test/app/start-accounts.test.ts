import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { start, type StartOptions } from "../../src/app/start";
import { TelegramEmulator, type EmuUser } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";
import { sessionString } from "../support/live-env";

const API_HASH = "0123456789abcdef0123456789abcdef";
const GEMINI_KEY = "test-gemini-key-7f3a";

function persona(dir: string, name: string): void {
  writeFileSync(
    join(dir, `${name}.md`),
    `# Agent Name\n${name}\n\n# Agent Instructions\nBe ${name}.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n`,
  );
}

/** Personas with sessions, each on its own emulated account, and `start()` wired to them. */
async function liveWorld(names: string[]) {
  const agents = tempDir();
  const sessions = tempDir();
  const db = join(tempDir(), "agents.db");
  const emu = new TelegramEmulator();
  const accounts = new Map<number, EmuUser>();
  const byName = new Map<string, EmuUser>();
  const secrets: string[] = [];
  for (const [i, name] of names.entries()) {
    persona(agents, name);
    const s = await sessionString(i + 1);
    secrets.push(s);
    writeFileSync(join(sessions, `${name}.session`), s, { mode: 0o600 });
    const account = emu.addAccount({ firstName: name, username: `${name.toLowerCase()}_live` });
    accounts.set(i + 1, account);
    byName.set(name, account);
  }
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const gemini = await GeminiFake.start();
  const log = captureLogger();
  const env = readEnv({
    AGENTS_DIR: agents,
    SESSIONS_DIR: sessions,
    STATE_DB: db,
    TELEGRAM_API_ID: "12345",
    TELEGRAM_API_HASH: API_HASH,
    GEMINI_API_KEY: GEMINI_KEY,
    GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
  });
  const run = (extra: Partial<StartOptions> = {}) => {
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const running = start({
      env,
      clientFactory: (s, apiId, apiHash, opts) => {
        const client = new TelegramClient(s, apiId, apiHash, opts);
        emu.attach(client, accounts.get(s.dcId)!); // this account's Telegram is the emulator
        return client;
      },
      until: stopped,
      logger: log.logger,
      ...extra,
    });
    return { running, stop };
  };
  const started = (name: string, n = 1) =>
    log.lines().filter((l) => l.msg === "agent started" && l.agent === name).length >= n;
  return {
    emu,
    carol,
    gemini,
    log,
    run,
    started,
    account: (n: string) => byName.get(n)!,
    agents,
    sessions,
    secrets,
  };
}

describe("npm start with several personas", () => {
  it("a revoked session stops that persona with one error line and the login command; the other keeps answering; none left → exit 1", async () => {
    const w = await liveWorld(["Mira", "Nova"]);
    w.gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "still here" }] } }));
    const { running } = w.run();
    try {
      await until(() => w.started("Mira") && w.started("Nova"));
      const mira = w.account("Mira");
      const nova = w.account("Nova");
      const dmMira = w.emu.dm(mira, w.carol);
      const dmNova = w.emu.dm(nova, w.carol);

      w.emu.faults.revokeSession(mira); // e.g. terminated from the phone's "Devices" list
      await w.emu.post({ chat: dmMira, from: w.carol, text: "Mira?" });
      await until(() => w.log.lines().some((l) => l.msg === "agent stopped" && l.agent === "Mira"));
      await until(() => !existsSync(join(w.sessions, "Mira.session.lock")));

      const errors = w.log.lines().filter((l) => (l.level as number) >= 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.agent).toBe("Mira");
      expect(errors[0]!.msg).toContain("SESSION_REVOKED");
      expect(errors[0]!.msg).toContain("To log in again: npm run login -- Mira");

      // Nova is unaffected.
      await w.emu.post({ chat: dmNova, from: w.carol, text: "Nova, still there?" });
      await until(() => w.emu.history(dmNova).some((m) => m.fromId === nova.id));
      expect(w.emu.history(dmNova).map((m) => m.text)).toEqual(["Nova, still there?", "still here"]);
      expect(w.emu.history(dmMira).map((m) => m.text)).toEqual(["Mira?"]);

      // The last persona goes too: the process ends, non-zero.
      w.emu.faults.revokeSession(nova, "USER_DEACTIVATED_BAN");
      await w.emu.post({ chat: dmNova, from: w.carol, text: "Nova?" });
      expect(await running).toBe(1);
      const novaError = w.log.lines().find((l) => (l.level as number) >= 50 && l.agent === "Nova");
      expect(novaError?.msg).toContain("USER_DEACTIVATED_BAN");
      expect(novaError?.msg).toContain("npm run login -- Nova");
    } finally {
      await w.gemini.close();
    }
  });

  it("an expired session and an invalid key are terminal too: a quiet persona is stopped by the watchdog's probe, with the login command", async () => {
    const w = await liveWorld(["Mira", "Nova"]);
    const { running } = w.run({ health: { probeEveryMs: 50 } });
    try {
      await until(() => w.started("Mira") && w.started("Nova"));
      // Nobody writes: only the watchdog's probe (updates.getState) can notice.
      w.emu.faults.revokeSession(w.account("Mira"), "SESSION_EXPIRED");
      w.emu.faults.revokeSession(w.account("Nova"), "AUTH_KEY_INVALID");
      expect(await running).toBe(1);
      const errors = w.log.lines().filter((l) => (l.level as number) >= 50 && l.agent !== undefined);
      expect(errors.map((l) => [l.agent, l.rpcError])).toEqual(
        expect.arrayContaining([
          ["Mira", "SESSION_EXPIRED"],
          ["Nova", "AUTH_KEY_INVALID"],
        ]),
      );
      for (const name of ["Mira", "Nova"]) {
        expect(errors.find((l) => l.agent === name)?.msg).toContain(
          `To log in again: npm run login -- ${name}`,
        );
        expect(existsSync(join(w.sessions, `${name}.session.lock`))).toBe(false);
      }
      // Telegram answered: the error was never mistaken for a live connection to keep probing.
      const probesAfter = w.emu.traffic
        .methods(w.account("Mira"))
        .filter((m) => m === "updates.GetState").length;
      expect(probesAfter).toBeLessThan(10);
    } finally {
      await w.gemini.close();
    }
  });

  it("a session revoked before start: that persona reports it at connect; the other runs; one without a session is listed with its login command", async () => {
    const w = await liveWorld(["Mira", "Nova"]);
    persona(w.agents, "Zed"); // a persona that never logged in
    w.emu.faults.revokeSession(w.account("Mira"), "AUTH_KEY_UNREGISTERED");
    const { running, stop } = w.run();
    try {
      await until(() => w.started("Nova"));
      const zed = w.log.lines().find((l) => l.agent === "Zed");
      // Listed with its session file and the command that makes one.
      expect(zed?.msg).toContain("Zed.session");
      expect(zed?.msg).toContain("npm run login -- Zed");
      // A persona file without a life of her own is said once at start, naming the file.
      expect(
        w.log
          .lines()
          .filter((l) => l.component === "config" && /Zed\.md: no "# Life" section/.test(String(l.msg))),
      ).toHaveLength(1);
      await until(() => w.log.lines().some((l) => (l.level as number) >= 50));
      const errors = w.log.lines().filter((l) => (l.level as number) >= 50);
      // One error for the operator: which persona, Telegram's reason, and how to log in again.
      expect(errors.map((l) => l.agent)).toEqual(["Mira"]);
      expect(errors[0]!.msg).toContain("AUTH_KEY_UNREGISTERED");
      expect(errors[0]!.msg).toContain("npm run login -- Mira");
      expect(existsSync(join(w.sessions, "Mira.session.lock"))).toBe(false);
    } finally {
      stop();
      await w.gemini.close();
    }
    expect(await running).toBe(1); // a persona failed: never exit 0 after a failure
  });
});

describe("the 401 class", () => {
  it("a 401 under a name Telegram has not used before stops the persona with the login command; SESSION_PASSWORD_NEEDED on one request does not", async () => {
    const w = await liveWorld(["Mira", "Nova"]);
    let n = 0;
    w.gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: `answer ${++n}` }] } }));
    const { running, stop } = w.run();
    try {
      await until(() => w.started("Mira") && w.started("Nova"));
      const mira = w.account("Mira");
      const nova = w.account("Nova");
      const dmMira = w.emu.dm(mira, w.carol);
      const dmNova = w.emu.dm(nova, w.carol);

      // Nova's send is answered SESSION_PASSWORD_NEEDED (401): that request wanted the 2FA
      // password; the session is fine. The task fails, Nova goes on answering.
      w.emu.faults.failNext("messages.SendMessage", "SESSION_PASSWORD_NEEDED");
      await w.emu.post({ chat: dmNova, from: w.carol, text: "Nova, one" });
      await until(() =>
        w.emu.traffic.requests.some((r) => r.account.id === nova.id && r.method === "messages.SendMessage"),
      );
      // The failure is recorded before Carol writes again (a message arriving while the send is in
      // flight would replan the chat, and the failed send would end as cancelled instead).
      await until(() => w.log.lines().some((l) => l.agent === "Nova" && (l.level as number) >= 50));
      await w.emu.post({ chat: dmNova, from: w.carol, text: "Nova, two" });
      await until(() => w.emu.history(dmNova).some((m) => m.fromId === nova.id));
      expect(w.emu.history(dmNova).filter((m) => m.fromId === nova.id)).toHaveLength(1);
      expect(w.log.lines().some((l) => l.msg === "agent stopped" && l.agent === "Nova")).toBe(false);
      // One line: that send failed, naming Telegram's answer.
      expect(
        w.log
          .lines()
          .filter((l) => (l.level as number) >= 50 && l.agent === "Nova")
          .map((l) => [l.msg, l.kind, l.err]),
      ).toEqual([
        [
          "task failed (permanent error)",
          "send",
          `messages.SendMessage in ${w.emu.chats.peerIdFor(dmNova, nova)}: SESSION_PASSWORD_NEEDED (401)`,
        ],
      ]);

      // Mira's session is answered with a 401 nobody has a name for yet: not authorized is not
      // authorized — the persona stops with the command that fixes it.
      w.emu.faults.revokeSession(mira, "SESSION_SOMETHING_NEW", { code: 401 });
      await w.emu.post({ chat: dmMira, from: w.carol, text: "Mira?" });
      await until(() => w.log.lines().some((l) => l.msg === "agent stopped" && l.agent === "Mira"));
      const miraErrors = w.log.lines().filter((l) => (l.level as number) >= 50 && l.agent === "Mira");
      expect(miraErrors).toHaveLength(1);
      expect(miraErrors[0]!.msg).toContain(
        "Telegram says this session is no longer authorized (SESSION_SOMETHING_NEW)",
      );
      expect(miraErrors[0]!.msg).toContain("To log in again: npm run login -- Mira");
      await until(() => !existsSync(join(w.sessions, "Mira.session.lock")));
      expect(w.emu.history(dmMira).map((m) => m.text)).toEqual(["Mira?"]);
      // Nova still runs.
      expect(w.log.lines().some((l) => l.msg === "agent stopped" && l.agent === "Nova")).toBe(false);
    } finally {
      stop();
      await w.gemini.close();
    }
    expect(await running).toBe(1); // a persona failed
  });
});

describe("graceful shutdown", () => {
  it("a send in flight completes, the process exits 0 with the lock released and nothing secret logged; a restart sends the rest", async () => {
    const w = await liveWorld(["Mira"]);
    w.gemini.respondWith(() => ({
      json: {
        tasks: [
          { kind: "send", text: "first" },
          { kind: "send", text: "second" },
        ],
      },
    }));
    const mira = w.account("Mira");
    const dm = w.emu.dm(mira, w.carol);
    w.emu.faults.setDelay("messages.SendMessage", 300);
    const first = w.run();
    let stopAsked = false;
    const off = w.emu.traffic.onRequest((r) => {
      // Ctrl-C arrives while "first" is on the wire.
      if (r.method === "messages.SendMessage" && !stopAsked) {
        stopAsked = true;
        first.stop();
      }
    });
    try {
      await until(() => w.started("Mira"));
      await w.emu.post({ chat: dm, from: w.carol, text: "hey Mira" });
      expect(await first.running).toBe(0);
      off();
      expect(w.emu.history(dm).map((m) => m.text)).toEqual(["hey Mira", "first"]);
      expect(existsSync(join(w.sessions, "Mira.session.lock"))).toBe(false);

      w.emu.faults.setDelay("messages.SendMessage", 0);
      const second = w.run();
      await until(() => w.emu.history(dm).length === 3);
      second.stop();
      expect(await second.running).toBe(0);
      expect(w.emu.history(dm).map((m) => m.text)).toEqual(["hey Mira", "first", "second"]);
      expect(w.gemini.requests).toHaveLength(1); // the plan was stored, not made again
    } finally {
      await w.gemini.close();
    }
    const text = w.log.text();
    for (const s of [...w.secrets, API_HASH, GEMINI_KEY]) expect(text).not.toContain(s);
  });
});
