/**
 * `npm run login` end to end: the script's own `main` runs in-process with scripted answers;
 * every TelegramClient it builds connects to the emulator through GramJS's real connect()
 * (the emulator intercepts TelegramClient.prototype.connect). Time is a FakeClock.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Api, TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { StringSession } from "telegram/sessions/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../scripts/login";
import { FakeClock } from "../../../src/base/clock";
import { TelegramEmulator, type CodeDelivery, type EmuUser } from "../../../emulator";
import { scriptedPrompts, type ScriptedAnswer } from "../../support/scripted-prompts";
import { tempDir } from "../../support/temp-dir";
import { until } from "../../support/wait";

const API_ID = "12345";
const API_HASH = "0123456789abcdef0123456789abcdef";
const PHONE = "+15550001";

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

interface Setup {
  emu: TelegramEmulator;
  account: EmuUser;
  clock: FakeClock;
  dir: string;
  sessionFile: string;
  out: string[];
  err: string[];
  run(
    argv: string[],
    script: readonly ScriptedAnswer[],
    o?: { env?: NodeJS.ProcessEnv; qrTimeoutMs?: number },
  ): Promise<number>;
  output(): string;
}

function setup(
  o: {
    password?: string;
    dc?: number;
    personaPhone?: boolean;
    codeDelivery?: readonly CodeDelivery[];
    loginEmail?: string;
    /** No last name on the account (Telegram then sends none: GramJS decodes it as null). */
    noLastName?: boolean;
    strictTl?: boolean;
  } = {},
): Setup {
  const clock = new FakeClock();
  const emu = new TelegramEmulator({
    now: () => clock.now(),
    app: { apiId: Number(API_ID), apiHash: API_HASH },
    ...(o.strictTl ? { strictTl: true } : {}),
  });
  const account = emu.addAccount({
    firstName: "Mira",
    ...(o.noLastName ? {} : { lastName: "Lind" }),
    username: "mira_ai",
    phone: PHONE,
    ...(o.password !== undefined ? { password: o.password, passwordHint: "pet's name" } : {}),
    ...(o.dc !== undefined ? { dc: o.dc } : {}),
    ...(o.codeDelivery !== undefined ? { codeDelivery: o.codeDelivery } : {}),
    ...(o.loginEmail !== undefined ? { loginEmail: o.loginEmail } : {}),
  });
  restore = emu.interceptConnect();
  const dir = tempDir();
  mkdirSync(join(dir, "agents"));
  const phoneField = o.personaPhone === false ? "" : `# Agent Phone\n${PHONE}\n\n`;
  writeFileSync(
    join(dir, "agents", "Mira.md"),
    `# Agent Name\nMira\n\n${phoneField}# Agent Instructions\nBe Mira.\n`,
  );
  const out: string[] = [];
  const err: string[] = [];
  return {
    emu,
    account,
    clock,
    dir,
    sessionFile: join(dir, "sessions", "Mira.session"),
    out,
    err,
    run: (argv, script, ro = {}) => {
      const prompts = scriptedPrompts(script);
      return main(argv, {
        stdout: (t) => void out.push(t),
        stderr: (t) => void err.push(t),
        env: ro.env ?? { TELEGRAM_API_ID: API_ID, TELEGRAM_API_HASH: API_HASH },
        cwd: dir,
        prompts,
        clock,
        ...(ro.qrTimeoutMs !== undefined ? { qrTimeoutMs: ro.qrTimeoutMs } : {}),
      }).then((code) => {
        expect(prompts.remaining(), `unanswered script steps; asked: ${prompts.asked.join(" | ")}`).toBe(0);
        return code;
      });
    },
    output: () => out.join("") + err.join(""),
  };
}

const phoneDefault: ScriptedAnswer = { kind: "text", ask: /phone number/i, answer: "" };
const codeFrom = (emu: TelegramEmulator): ScriptedAnswer => ({
  kind: "text",
  ask: /login code/i,
  answer: () => emu.auth.loginCode(PHONE) ?? "",
});
const wrongCode = (emu: TelegramEmulator): ScriptedAnswer => ({
  kind: "text",
  ask: /login code/i,
  answer: () => (emu.auth.loginCode(PHONE) === "12345" ? "54321" : "12345"),
});
const count = (emu: TelegramEmulator, method: string) =>
  emu.auth.methods().filter((m) => m === method).length;

async function connectsSignedIn(sessionFile: string): Promise<boolean> {
  const client = new TelegramClient(
    new StringSession(readFileSync(sessionFile, "utf8").trim()),
    Number(API_ID),
    API_HASH,
    {
      baseLogger: new Logger(LogLevel.NONE),
    },
  );
  try {
    await client.connect();
    return await client.checkAuthorization();
  } finally {
    await client.destroy();
  }
}

describe("npm run login: by code", () => {
  it("logs in with the persona's phone as default, saves the session 0600 and prints name, @username and id — nothing secret", async () => {
    const s = setup();
    const codes: string[] = [];
    const code: ScriptedAnswer = {
      kind: "text",
      ask: /login code/i,
      answer: () => (codes.push(s.emu.auth.loginCode(PHONE) ?? ""), codes[0] ?? ""),
    };

    expect(await s.run(["Mira"], [phoneDefault, code])).toBe(0);

    expect(s.out.join("")).toContain(`Logged in as Mira Lind (@mira_ai, id ${s.account.id})`);
    expect(statSync(s.sessionFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(s.dir, "sessions")).sort()).toEqual(["Mira.session"]); // no temp file, no lock left
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
    expect(s.emu.auth.methods().filter((m) => m.startsWith("auth."))).toEqual([
      "auth.SendCode",
      "auth.SignIn",
    ]);
    expect((s.emu.auth.requests[0]?.request as { phoneNumber?: string }).phoneNumber).toBe(PHONE);

    const session = readFileSync(s.sessionFile, "utf8").trim();
    for (const secret of [codes[0] ?? "missing", session, API_HASH]) expect(s.output()).not.toContain(secret);
  });

  it("prints an account without a last name as its first name alone, as Telegram's bytes decode it", async () => {
    const s = setup({ noLastName: true, strictTl: true });
    const code: ScriptedAnswer = {
      kind: "text",
      ask: /login code/i,
      answer: () => s.emu.auth.loginCode(PHONE) ?? "",
    };
    expect(await s.run(["Mira"], [phoneDefault, code])).toBe(0);
    expect(s.out.join("")).toContain(`Logged in as Mira (@mira_ai, id ${s.account.id})`);
  });

  it("names this project and its version in the account's device list, or what TELEGRAM_DEVICE_MODEL / TELEGRAM_APP_VERSION say", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    expect(s.emu.auth.devices(s.account)).toEqual([
      expect.objectContaining({
        deviceModel: pkg.name,
        appVersion: pkg.version,
        systemVersion: `Node.js ${process.versions.node}`,
      }),
    ]);

    const env = {
      TELEGRAM_API_ID: API_ID,
      TELEGRAM_API_HASH: API_HASH,
      TELEGRAM_DEVICE_MODEL: "Mira's laptop",
      TELEGRAM_APP_VERSION: "7.1",
    };
    expect(await s.run(["Mira", "--force"], [phoneDefault, codeFrom(s.emu)], { env })).toBe(0);
    expect(s.emu.auth.devices(s.account).map((d) => [d.deviceModel, d.appVersion])).toEqual([
      [pkg.name, pkg.version],
      ["Mira's laptop", "7.1"],
    ]);
  });

  it("says so when the saved session still works, and logs in again only with --force", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    const first = readFileSync(s.sessionFile, "utf8");

    expect(await s.run(["mira"], [])).toBe(0); // no question asked; the name is case-insensitive
    expect(s.out.at(-1)).toMatch(/Mira is already logged in as Mira Lind \(@mira_ai, id \d+\).*--force/);
    expect(count(s.emu, "auth.SendCode")).toBe(1);

    expect(await s.run(["Mira", "--force"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    expect(count(s.emu, "auth.SendCode")).toBe(2);
    expect(readFileSync(s.sessionFile, "utf8")).not.toBe(first);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });

  it("takes a wrong code, then the right one", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, wrongCode(s.emu), codeFrom(s.emu)])).toBe(0);
    expect(s.out.join("")).toContain("That code is wrong (2 tries left).");
    expect(count(s.emu, "auth.SignIn")).toBe(2);
    expect(existsSync(s.sessionFile)).toBe(true);
  });

  it("gives up after 3 wrong codes: exactly 3 sign-in attempts, no session", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, wrongCode(s.emu), wrongCode(s.emu), wrongCode(s.emu)])).toBe(
      1,
    );
    expect(s.err.join("")).toContain("The code was wrong 3 times");
    expect(count(s.emu, "auth.SignIn")).toBe(3);
    expect(existsSync(s.sessionFile)).toBe(false);
  });

  it("offers a new code when the code expired: a fresh auth.sendCode (an expired hash cannot be resent), then logs in", async () => {
    const s = setup();
    const late: ScriptedAnswer = {
      kind: "text",
      ask: /login code/i,
      answer: async () => {
        const code = s.emu.auth.loginCode(PHONE) ?? "";
        await s.clock.advance(6 * 60_000); // the person came back after six minutes
        return code;
      },
    };
    const resend: ScriptedAnswer = { kind: "confirm", ask: /expired.*send a new one/i, answer: true };
    expect(await s.run(["Mira"], [phoneDefault, late, resend, codeFrom(s.emu)])).toBe(0);
    expect(s.emu.auth.methods().filter((m) => m.startsWith("auth."))).toEqual([
      "auth.SendCode",
      "auth.SignIn",
      "auth.SendCode",
      "auth.SignIn",
    ]);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });

  it("says a malformed number is not valid and asks again; without a persona phone there is no default", async () => {
    const s = setup({ personaPhone: false });
    const bad: ScriptedAnswer = { kind: "text", ask: /phone number/i, answer: "+12" };
    const good: ScriptedAnswer = { kind: "text", ask: /phone number/i, answer: PHONE };
    expect(await s.run(["Mira"], [bad, good, codeFrom(s.emu)])).toBe(0);
    expect(s.out.join("")).toContain('Telegram says "+12" is not a valid phone number');
  });
});

describe("npm run login: every way a code comes", () => {
  it("offers the next way when the code does not come: Enter asks for it by SMS (auth.resendCode), and that code logs in", async () => {
    const s = setup();
    const enter: ScriptedAnswer = { kind: "text", ask: /login code.*or Enter to get it by SMS/i, answer: "" };
    const bySms: ScriptedAnswer = {
      kind: "text",
      ask: /login code.*or Enter to get it by a phone call/i,
      answer: () => s.emu.auth.loginCode(PHONE) ?? "",
    };
    expect(await s.run(["Mira"], [phoneDefault, enter, bySms])).toBe(0);
    expect(s.out.join("")).toContain("No code within 60 s? Press Enter without one to have it sent by SMS.");
    expect(s.out.join("")).toContain("Telegram sent a login code by SMS.");
    expect(s.emu.auth.methods().filter((m) => m.startsWith("auth."))).toEqual([
      "auth.SendCode",
      "auth.ResendCode",
      "auth.SignIn",
    ]);
  });

  it("Enter after the code expired: auth.resendCode answers PHONE_CODE_EXPIRED, so a fresh auth.sendCode is made, and its code logs in", async () => {
    const s = setup();
    const lateEnter: ScriptedAnswer = {
      kind: "text",
      ask: /login code.*or Enter to get it by SMS/i,
      answer: async () => {
        await s.clock.advance(6 * 60_000); // no code came; six minutes later the person presses Enter
        return "";
      },
    };
    const fresh: ScriptedAnswer = {
      kind: "text",
      ask: /login code/i,
      answer: () => s.emu.auth.loginCode(PHONE) ?? "",
    };
    expect(await s.run(["Mira"], [phoneDefault, lateEnter, fresh])).toBe(0);
    expect(s.out.join("")).toContain("The code expired meanwhile; asking for a new one.");
    const auth = s.emu.auth.requests.filter((r) => r.method.startsWith("auth."));
    expect(auth.map((r) => r.method)).toEqual([
      "auth.SendCode",
      "auth.ResendCode",
      "auth.SendCode",
      "auth.SignIn",
    ]);
    // The new code came under a new hash; the sign-in used it, not the expired one.
    const [first, , , signIn] = auth.map((r) => r.request);
    expect((signIn as Api.auth.SignIn).phoneCodeHash).not.toBe(
      (s.emu.auth.requests.find((r) => r.method === "auth.ResendCode")!.request as Api.auth.ResendCode)
        .phoneCodeHash,
    );
    expect(first).toBeInstanceOf(Api.auth.SendCode);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });

  it("stops offering once Telegram has no other way, and then counts an empty answer as a wrong code", async () => {
    const s = setup({ codeDelivery: ["app", "sms"] });
    const enter = (way: RegExp): ScriptedAnswer => ({ kind: "text", ask: way, answer: "" });
    expect(
      await s.run(
        ["Mira"],
        [phoneDefault, enter(/or Enter to get it by SMS/), enter(/^Login code$/), codeFrom(s.emu)],
      ),
    ).toBe(0);
    expect(count(s.emu, "auth.ResendCode")).toBe(1);
    expect(count(s.emu, "auth.SignIn")).toBe(1); // the empty answer cost no request
    expect(s.out.join("")).toContain("That code is wrong (2 tries left)");
  });

  it("takes an SMS's secret word and phrase as the code (not digits), as typed", async () => {
    for (const way of ["sms-word", "sms-phrase"] as const) {
      const s = setup({ codeDelivery: [way] });
      const secret: ScriptedAnswer = {
        kind: "text",
        ask: way === "sms-word" ? /secret word/ : /secret phrase/,
        answer: () => ` ${s.emu.auth.loginCode(PHONE) ?? ""} `,
      };
      expect(await s.run(["Mira"], [phoneDefault, secret])).toBe(0);
      const code = s.emu.auth.loginCode(PHONE) ?? "";
      expect(s.out.join("")).toContain(
        way === "sms-word"
          ? `SMS with a secret word, starting with "${code[0]}"`
          : `SMS with a secret phrase, starting with "${code.split(" ")[0]}"`,
      );
      expect(count(s.emu, "auth.SignIn")).toBe(1); // a word is not "not digits": it was sent, once
      expect(await connectsSignedIn(s.sessionFile)).toBe(true);
      restore?.();
      restore = undefined;
    }
  });

  it("proves an e-mail code with email_verification, not as a phone code", async () => {
    const s = setup({ codeDelivery: ["email"], loginEmail: "mira@example.com" });
    const code: ScriptedAnswer = {
      kind: "text",
      ask: /login code \(from the e-mail to m\*\*\*@example\.com\)/i,
      answer: () => s.emu.auth.loginCode(PHONE) ?? "",
    };
    expect(await s.run(["Mira"], [phoneDefault, code])).toBe(0);
    const signIn = s.emu.auth.requests.find((r) => r.method === "auth.SignIn")!.request as Api.auth.SignIn;
    expect(signIn.phoneCode ?? undefined).toBeUndefined();
    expect(signIn.emailVerification).toBeInstanceOf(Api.EmailVerificationCode);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });

  it("sets a login e-mail up inside the login when Telegram requires one, then logs in with the code sent there", async () => {
    const s = setup({ codeDelivery: ["email"] });
    const script: ScriptedAnswer[] = [
      phoneDefault,
      { kind: "text", ask: /e-mail address for logging in/i, answer: "not-an-address" },
      { kind: "text", ask: /e-mail address for logging in/i, answer: "mira@example.org" },
      { kind: "text", ask: /code from the e-mail to m\*\*\*@example\.org/i, answer: "000000" },
      {
        kind: "text",
        ask: /code from the e-mail/i,
        answer: () => s.emu.auth.emailCode("mira@example.org") ?? "",
      },
      { kind: "text", ask: /login code \(from the e-mail/i, answer: () => s.emu.auth.loginCode(PHONE) ?? "" },
    ];
    expect(await s.run(["Mira"], script)).toBe(0);
    expect(s.out.join("")).toContain("That is not an e-mail address.");
    expect(s.out.join("")).toContain("mira@example.org is now this account's login e-mail.");
    expect(s.emu.auth.loginEmail(s.account)).toBe("mira@example.org");
    expect(
      s.emu.auth
        .methods()
        .filter((m) => m.startsWith("auth.") || (m.startsWith("account.") && m !== "account.GetPassword")),
    ).toEqual([
      "auth.SendCode",
      "account.SendVerifyEmailCode",
      "account.VerifyEmail",
      "account.VerifyEmail",
      "auth.SignIn",
    ]);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
    for (const secret of [
      s.emu.auth.emailCode("mira@example.org") ?? "missing",
      s.emu.auth.loginCode(PHONE) ?? "missing",
    ])
      expect(s.output()).not.toContain(secret);
  });
});

describe("npm run login: a login e-mail Telegram keeps asking for", () => {
  it("sets an address up again once when Telegram asks again, and stops with a named error when it asks a third time", async () => {
    const s = setup({ codeDelivery: ["email"] });
    s.emu.auth.refuseLoginEmail(PHONE, 5); // Telegram never takes the address
    const address = (email: string): ScriptedAnswer[] => [
      { kind: "text", ask: /e-mail address for logging in/i, answer: email },
      { kind: "text", ask: /code from the e-mail/i, answer: () => s.emu.auth.emailCode(email) ?? "" },
    ];
    expect(
      await s.run(["Mira"], [phoneDefault, ...address("one@example.org"), ...address("two@example.org")]),
    ).toBe(1);
    expect(s.err.join("")).toContain("Telegram asked for a login e-mail again after 2 set-ups");
    expect(s.emu.auth.methods().filter((m) => m === "account.VerifyEmail")).toHaveLength(2);
    expect(count(s.emu, "auth.SignIn")).toBe(0);
    expect(existsSync(s.sessionFile)).toBe(false);
  });

  it("a second set-up that Telegram takes logs in", async () => {
    const s = setup({ codeDelivery: ["email"] });
    s.emu.auth.refuseLoginEmail(PHONE, 1);
    const script: ScriptedAnswer[] = [
      phoneDefault,
      { kind: "text", ask: /e-mail address for logging in/i, answer: "one@example.org" },
      {
        kind: "text",
        ask: /code from the e-mail/i,
        answer: () => s.emu.auth.emailCode("one@example.org") ?? "",
      },
      { kind: "text", ask: /e-mail address for logging in/i, answer: "two@example.org" },
      {
        kind: "text",
        ask: /code from the e-mail/i,
        answer: () => s.emu.auth.emailCode("two@example.org") ?? "",
      },
      { kind: "text", ask: /login code \(from the e-mail/i, answer: () => s.emu.auth.loginCode(PHONE) ?? "" },
    ];
    expect(await s.run(["Mira"], script)).toBe(0);
    expect(s.emu.auth.loginEmail(s.account)).toBe("two@example.org");
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });
});

describe("npm run login: a connection that never comes up", () => {
  it("gives up on connect() after 1 minute with a named error, exit 1, nothing asked and no session written", async () => {
    const s = setup();
    s.emu.faults.stallHandshakes(1);
    const running = s.run(["Mira"], []);
    await s.clock.advance(59_000);
    let done = false;
    void running.then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false); // still within the bound
    await s.clock.advance(1_000);
    expect(await running).toBe(1);
    expect(s.err.join("")).toContain("Could not connect to Telegram: no connection within 1 minute");
    expect(s.emu.auth.methods()).toEqual([]);
    expect(existsSync(s.sessionFile)).toBe(false);
  });

  it("checking a saved session: the same bound, and the session file is left as it was", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    const saved = readFileSync(s.sessionFile, "utf8");
    s.emu.faults.stallHandshakes(1);
    const running = s.run(["Mira"], []);
    await s.clock.advance(60_000);
    expect(await running).toBe(1);
    expect(s.err.join("")).toContain("Could not check whether the saved session");
    expect(s.err.join("")).toContain("no connection within 1 minute");
    expect(count(s.emu, "auth.SendCode")).toBe(1);
    expect(readFileSync(s.sessionFile, "utf8")).toBe(saved);
  });
});

describe("npm run login: is the saved session still signed in?", () => {
  it("a revoked session: says so, naming Telegram's answer, and logs in anew", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    s.emu.faults.revokeSession(s.account, "SESSION_EXPIRED");
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    expect(s.out.join("")).toMatch(/is no longer signed in \(SESSION_EXPIRED: the session expired/);
    expect(count(s.emu, "auth.SendCode")).toBe(2);
  });

  it("no answer, or a flood wait: a named error, exit 1, no code asked for and nothing re-sent — the session file untouched", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(0);
    const saved = readFileSync(s.sessionFile, "utf8");

    s.emu.faults.hang("updates.GetState", { when: "before-apply" });
    const running = s.run(["Mira"], []);
    await until(() => s.emu.traffic.requests.filter((r) => r.method === "updates.GetState").length >= 1);
    await s.clock.advance(60_000); // the check's time limit
    expect(await running).toBe(1);
    expect(s.err.join("")).toContain("Could not check whether the saved session");
    expect(s.err.join("")).toContain("Telegram did not answer updates.GetState within 1 minute");

    s.emu.faults.failNext("updates.GetState", "FLOOD_WAIT_30");
    expect(await s.run(["Mira"], [])).toBe(1);
    expect(s.err.join("")).toContain("FLOOD_WAIT_30 on updates.GetState");

    expect(count(s.emu, "auth.SendCode")).toBe(1);
    expect(readFileSync(s.sessionFile, "utf8")).toBe(saved);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });
});

describe("npm run login: the sample persona", () => {
  it("logs agents/Mira.md in although it has no # Agent Phone: the number is asked without a default", async () => {
    const s = setup();
    writeFileSync(join(s.dir, "agents", "Mira.md"), readFileSync(join(__dirname, "../../../agents/Mira.md")));
    const empty: ScriptedAnswer = { kind: "text", ask: /phone number/i, answer: "" }; // no default to fall back on
    const phone: ScriptedAnswer = { kind: "text", ask: /phone number/i, answer: PHONE };
    expect(await s.run(["Mira"], [empty, phone, codeFrom(s.emu)])).toBe(0);
    expect(s.out.join("")).toContain("A phone number is needed");
    expect(count(s.emu, "auth.SendCode")).toBe(1); // the empty answer cost no request
    expect(existsSync(s.sessionFile)).toBe(true);
  });
});

describe("npm run login: 2FA", () => {
  it("asks the password hidden, with the hint; a wrong one fails the SRP check, the right one logs in", async () => {
    const s = setup({ password: "correct horse" });
    const wrong: ScriptedAnswer = {
      kind: "secret",
      ask: /2FA password \(hint: pet's name\)/,
      answer: "wrong horse",
    };
    const right: ScriptedAnswer = { kind: "secret", ask: /2FA password/, answer: "correct horse" };
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu), wrong, right])).toBe(0);
    expect(s.out.join("")).toContain("Wrong password (2 tries left).");
    expect(count(s.emu, "auth.CheckPassword")).toBe(2);
    expect(count(s.emu, "account.GetPassword")).toBe(2);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
    expect(s.output()).not.toContain("correct horse");
    expect(s.output()).not.toContain("wrong horse");
  });
});

describe("npm run login: flood waits", () => {
  it("stops at a flood wait on sign-in, says how long to wait, exits non-zero", async () => {
    const s = setup();
    s.emu.faults.failNext("auth.SignIn", "FLOOD_WAIT_4000");
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)])).toBe(1);
    expect(s.err.join("")).toContain(
      "Telegram asks to wait 1 hour 7 minutes before trying again (FLOOD_WAIT_4000 on auth.SignIn)",
    );
    expect(count(s.emu, "auth.SignIn")).toBe(1);
    expect(existsSync(s.sessionFile)).toBe(false);
  });

  it("stops at a flood wait on sending the code before asking for one", async () => {
    const s = setup();
    s.emu.faults.failNext("auth.SendCode", "FLOOD_WAIT_86300");
    expect(await s.run(["Mira"], [phoneDefault])).toBe(1);
    expect(s.err.join("")).toContain("wait 23 hours 59 minutes");
  });
});

describe("npm run login --qr", () => {
  it("shows a QR code, refreshes it when the token expires, follows the DC move after the scan and asks the 2FA password", async () => {
    const s = setup({ dc: 2, password: "pw" });
    const password: ScriptedAnswer = { kind: "secret", ask: /2FA password/, answer: "pw" };
    const running = s.run(["Mira", "--qr"], [password]);

    await until(() => s.out.join("").includes("Scan this QR code"));
    expect(s.out.join("")).toMatch(/[▄▀█]/); // drawn by the qrcode library
    await s.clock.advance(30_000);
    await until(() => s.out.join("").includes("The QR code expired; here is a new one"));
    expect(s.emu.auth.acceptLoginToken(s.account)).toBe(true);

    expect(await running).toBe(0);
    expect(
      s.emu.auth.requests.filter((r) => r.method.startsWith("auth.")).map((r) => `${r.method}@${r.dcId}`),
    ).toEqual([
      "auth.ExportLoginToken@4",
      "auth.ExportLoginToken@4",
      "auth.ExportLoginToken@4",
      "auth.ImportLoginToken@2",
      "auth.CheckPassword@2",
    ]);
    expect(s.out.join("")).toContain("moving there");
    expect(s.out.join("")).toContain(`Logged in as Mira Lind (@mira_ai, id ${s.account.id})`);
    const saved = new StringSession(readFileSync(s.sessionFile, "utf8").trim());
    expect(saved.dcId).toBe(2);
    expect(await connectsSignedIn(s.sessionFile)).toBe(true);
  });

  it("names a flood wait met during the DC move (GramJS's own help.getConfig) and exits non-zero", async () => {
    const s = setup({ dc: 2 });
    s.emu.faults.failNext("help.GetConfig", "FLOOD_WAIT_120");
    const running = s.run(["Mira", "--qr"], []);
    await until(() => s.out.join("").includes("Scan this QR code"));
    expect(s.emu.auth.acceptLoginToken(s.account)).toBe(true);
    expect(await running).toBe(1);
    expect(s.err.join("")).toContain("Telegram asks to wait 2 minutes before trying again (FLOOD_WAIT_120");
    expect(existsSync(s.sessionFile)).toBe(false);
  });

  it("gives up when nobody scans within the time limit", async () => {
    const s = setup();
    const running = s.run(["Mira", "--qr"], [], { qrTimeoutMs: 60_000 });
    await until(() => s.out.join("").includes("Scan this QR code"));
    await s.clock.advance(30_000);
    await until(() => s.out.join("").includes("here is a new one"));
    await s.clock.advance(30_000);
    expect(await running).toBe(1);
    expect(s.err.join("")).toContain("The QR code was not scanned within 1 minute");
    expect(count(s.emu, "auth.ExportLoginToken")).toBe(2); // no token is asked for once time is up
  });
});

describe("npm run login: refusals", () => {
  it("refuses while npm start holds the session lock", async () => {
    const s = setup();
    mkdirSync(join(s.dir, "sessions"));
    writeFileSync(`${s.sessionFile}.lock`, String(process.pid));
    expect(await s.run(["Mira"], [])).toBe(1);
    expect(s.err.join("")).toMatch(
      /Mira's session is in use \(.*process \d+ is using this session\)\. Stop that process \(npm start\) first/,
    );
    expect(s.emu.auth.methods()).toEqual([]);
  });

  it("fails at once, naming the variable, when API credentials are missing or malformed — no question asked", async () => {
    const s = setup();
    expect(await s.run(["Mira"], [], { env: {} })).toBe(1);
    expect(s.err.join("")).toContain("TELEGRAM_API_ID: must be set");
    expect(s.err.join("")).toContain("TELEGRAM_API_HASH: must be set");
    expect(s.err.join("")).toContain("my.telegram.org");
    s.err.length = 0;
    expect(
      await s.run(["Mira"], [], {
        env: { TELEGRAM_API_ID: "12x", TELEGRAM_API_HASH: "not-a-hash-but-a-secret" },
      }),
    ).toBe(1);
    expect(s.err.join("")).toContain("TELEGRAM_API_ID: must be a number");
    expect(s.err.join("")).toContain("TELEGRAM_API_HASH: must be 32 hex characters");
    expect(s.err.join("")).not.toContain("not-a-hash-but-a-secret");
    expect(s.emu.auth.methods()).toEqual([]);
  });

  it("reads the credentials from .env; the environment wins over the file", async () => {
    const s = setup();
    writeFileSync(join(s.dir, ".env"), `TELEGRAM_API_ID=${API_ID}\nTELEGRAM_API_HASH=${API_HASH}\n`, {
      mode: 0o644,
    });
    chmodSync(join(s.dir, ".env"), 0o644);
    expect(await s.run(["Mira"], [phoneDefault, codeFrom(s.emu)], { env: {} })).toBe(0);
    // It holds the API hash: narrowed to 0600 before it was read, and the login said so.
    expect(statSync(join(s.dir, ".env")).mode & 0o777).toBe(0o600);
    expect(s.err.join("")).toContain("login: .env: others could read it (mode 0644); narrowed to 0600");
    writeFileSync(join(s.dir, ".env"), `TELEGRAM_API_ID=99\nTELEGRAM_API_HASH=${API_HASH}\n`);
    expect(
      await s.run(["Mira", "--force"], [phoneDefault, codeFrom(s.emu)], { env: { TELEGRAM_API_ID: API_ID } }),
    ).toBe(0);
  });

  it("names an unknown flag, a missing persona name and an unknown persona", async () => {
    const s = setup();
    expect(await s.run(["Mira", "--bogus"], [])).toBe(2);
    expect(s.err.join("")).toContain('unknown flag "--bogus"; the flags are: --qr, --force, --help');
    expect(await s.run([], [])).toBe(2);
    expect(s.err.join("")).toContain("name the persona");
    expect(await s.run(["Nobody"], [])).toBe(1);
    expect(s.err.join("")).toContain('no persona named "Nobody"');
    expect(await s.run(["--help"], [])).toBe(0);
    expect(s.out.join("")).toContain("Usage: npm run login -- <Agent> [--qr] [--force]");
  });
});
