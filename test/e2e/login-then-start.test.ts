/**
 * The user's journey on the emulator: `npm run login` (the script itself, with scripted answers,
 * 2FA included), then `npm start` on the saved session with GramJS's real connect() path — no
 * client factory, no attach: the auth key in the session file is what signs the persona in.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../scripts/login";
import { readEnv } from "../../src/config/env";
import { start } from "../../src/app/start";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { scriptedPrompts } from "../support/scripted-prompts";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

const API_ID = "12345";
const API_HASH = "0123456789abcdef0123456789abcdef";
const PHONE = "+15550001";
const PASSWORD = "correct horse battery";

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe("log in, then run", () => {
  it("logs in with code and 2FA, then npm start answers on the saved session; no secret in any output", async () => {
    const emu = new TelegramEmulator({ app: { apiId: Number(API_ID), apiHash: API_HASH } });
    const account = emu.addAccount({
      firstName: "Mira",
      username: "mira_ai",
      phone: PHONE,
      password: PASSWORD,
      dc: 2,
    });
    const carol = emu.addUser({ firstName: "Carol", username: "carol" });
    restore = emu.interceptConnect();
    const dir = tempDir();
    mkdirSync(join(dir, "agents"));
    writeFileSync(
      join(dir, "agents", "Mira.md"),
      `# Agent Name\nMira\n\n# Agent Phone\n${PHONE}\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n`,
    );
    const env = { TELEGRAM_API_ID: API_ID, TELEGRAM_API_HASH: API_HASH, GEMINI_API_KEY: "test-key" };
    const codes: string[] = [];
    const output: string[] = [];
    const prompts = scriptedPrompts([
      { kind: "text", ask: /phone number/i, answer: "" },
      {
        kind: "text",
        ask: /login code/i,
        answer: () => (codes.push(emu.auth.loginCode(PHONE) ?? "?"), codes[0] ?? "?"),
      },
      { kind: "secret", ask: /2FA password/, answer: PASSWORD },
    ]);
    const loggedIn = await main(["Mira"], {
      stdout: (t) => void output.push(t),
      stderr: (t) => void output.push(t),
      env,
      cwd: dir,
      prompts,
    });
    expect(loggedIn, output.join("")).toBe(0);
    const session = readFileSync(join(dir, "sessions", "Mira.session"), "utf8").trim();

    const gemini = await GeminiFake.start();
    gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "hi carol" }] } }));
    const log = captureLogger();
    let shutdown!: () => void;
    const running = start({
      env: readEnv({
        ...env,
        AGENTS_DIR: join(dir, "agents"),
        SESSIONS_DIR: join(dir, "sessions"),
        STATE_DB: join(dir, "agents.db"),
        GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
      }),
      until: new Promise<void>((r) => (shutdown = r)),
      logger: log.logger,
    });
    try {
      await until(() => log.lines().some((l) => l.msg === "agent started")).catch(() => {
        throw new Error(`not started:\n${log.text()}`);
      });
      const dm = emu.dm(account, carol);
      await emu.post({ chat: dm, from: carol, text: "hey Mira" });
      await until(() => emu.history(dm).some((m) => m.fromId === account.id));
      expect(emu.history(dm).find((m) => m.fromId === account.id)?.text).toBe("hi carol");
    } finally {
      shutdown();
      expect(await running).toBe(0);
      await gemini.close();
    }
    const everything = output.join("") + log.text();
    for (const secret of [codes[0] ?? "missing", PASSWORD, session, API_HASH, "test-key"])
      expect(everything).not.toContain(secret);
  });
});
