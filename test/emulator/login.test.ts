/**
 * The emulator's login server, driven by GramJS's real connect() path and raw auth requests:
 * auth keys, phone codes, DC moves, server-side SRP and QR tokens.
 */
import { Api, errors, TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { computeCheck } from "telegram/Password.js";
import { StringSession } from "telegram/sessions/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramEmulator, type CodeDelivery } from "../../emulator/index";

const API_ID = 12345;
const API_HASH = "0123456789abcdef0123456789abcdef";
const PHONE = "+15550001";

let restore: (() => void) | undefined;
let clients: TelegramClient[] = [];

function newClient(session = ""): TelegramClient {
  const c = new TelegramClient(new StringSession(session), API_ID, API_HASH, {
    baseLogger: new Logger(LogLevel.NONE),
    floodSleepThreshold: 0,
  });
  clients.push(c);
  return c;
}

function setup(
  o: {
    password?: string;
    dc?: number;
    strictTl?: boolean;
    codeDelivery?: readonly CodeDelivery[];
    loginEmail?: string;
  } = {},
) {
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const emu = new TelegramEmulator({
    now: () => now,
    strictTl: o.strictTl ?? true,
    app: { apiId: API_ID, apiHash: API_HASH },
  });
  const account = emu.addAccount({
    firstName: "Mira",
    username: "mira_ai",
    phone: PHONE,
    ...(o.password !== undefined ? { password: o.password, passwordHint: "pet's name" } : {}),
    ...(o.dc !== undefined ? { dc: o.dc } : {}),
    ...(o.codeDelivery !== undefined ? { codeDelivery: o.codeDelivery } : {}),
    ...(o.loginEmail !== undefined ? { loginEmail: o.loginEmail } : {}),
  });
  restore = emu.interceptConnect();
  return { emu, account, advance: (ms: number) => (now += ms) };
}

const sendCode = (client: TelegramClient, phone = PHONE) =>
  client.invoke(
    new Api.auth.SendCode({
      phoneNumber: phone,
      apiId: API_ID,
      apiHash: API_HASH,
      settings: new Api.CodeSettings({}),
    }),
  ) as Promise<Api.auth.SentCode>;

const signIn = (client: TelegramClient, phoneCodeHash: string, phoneCode: string) =>
  client.invoke(new Api.auth.SignIn({ phoneNumber: PHONE, phoneCodeHash, phoneCode }));

const rpcError = (e: unknown): string => (e instanceof errors.RPCError ? e.errorMessage : String(e));

beforeEach(() => {
  clients = [];
});

afterEach(async () => {
  restore?.();
  restore = undefined;
  await Promise.all(clients.map((c) => c.destroy()));
});

describe("emulator login: auth keys", () => {
  it("runs GramJS's real connect(); a new key is anonymous: account methods answer AUTH_KEY_UNREGISTERED", async () => {
    const { emu } = setup();
    const client = newClient();
    await client.connect();
    expect(await client.checkAuthorization()).toBe(false);
    const e = await client
      .invoke(new Api.users.GetUsers({ id: [new Api.InputUserSelf()] }))
      .catch((x: unknown) => x);
    expect((e as errors.RPCError).code).toBe(401);
    expect(rpcError(e)).toBe("AUTH_KEY_UNREGISTERED");
    expect(emu.auth.methods()).toEqual(["updates.GetState", "users.GetUsers"]);
    // The handshake made a real 256-byte key that the session now holds.
    expect(client.session.getAuthKey()?.getKey()?.length).toBe(256);
  });

  it("signs a key in with the code; a saved session reconnects signed in, with no login", async () => {
    const { emu, account } = setup();
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    expect(sent.type).toBeInstanceOf(Api.auth.SentCodeTypeApp);
    const code = emu.auth.loginCode(PHONE);
    expect(code).toMatch(/^\d{5}$/);
    const auth = (await signIn(client, sent.phoneCodeHash, code ?? "")) as Api.auth.Authorization;
    expect((auth.user as Api.User).username).toBe("mira_ai");
    expect(emu.auth.isSignedIn(account)).toBe(true);
    expect((await client.getMe()).id.toString()).toBe(String(account.id));

    const saved = (client.session as StringSession).save();
    await client.disconnect();
    const again = newClient(saved);
    await again.connect();
    expect(await again.checkAuthorization()).toBe(true);
    expect((await again.getMe()).username).toBe("mira_ai");
    // Requests of a signed-in key are the account's: they land in the normal request log.
    expect(emu.traffic.methods(account)).toContain("users.GetUsers");
  });

  it("keeps what initConnection named with the key: the account's device list shows it once signed in", async () => {
    const { emu, account } = setup();
    const client = new TelegramClient(new StringSession(""), API_ID, API_HASH, {
      baseLogger: new Logger(LogLevel.NONE),
      floodSleepThreshold: 0,
      deviceModel: "persona-bot",
      systemVersion: "Node.js 20",
      appVersion: "0.9.1",
    });
    clients.push(client);
    await client.connect();
    expect(emu.auth.devices(account)).toEqual([]); // an anonymous key is nobody's device
    const sent = await sendCode(client);
    await signIn(client, sent.phoneCodeHash, emu.auth.loginCode(PHONE) ?? "");
    expect(emu.auth.devices(account)).toEqual([
      { apiId: API_ID, deviceModel: "persona-bot", systemVersion: "Node.js 20", appVersion: "0.9.1" },
    ]);
  });

  it("rejects a wrong code and an expired one; an expired code cannot be resent, a fresh sendCode works", async () => {
    const { emu, advance } = setup();
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    const code = emu.auth.loginCode(PHONE) ?? "";
    const wrong = code === "11111" ? "22222" : "11111";
    expect(rpcError(await signIn(client, sent.phoneCodeHash, wrong).catch((e: unknown) => e))).toBe(
      "PHONE_CODE_INVALID",
    );

    advance(5 * 60_000);
    expect(rpcError(await signIn(client, sent.phoneCodeHash, code).catch((e: unknown) => e))).toBe(
      "PHONE_CODE_EXPIRED",
    );
    // Telegram lists PHONE_CODE_EXPIRED among auth.resendCode's errors: the hash is spent.
    const resend = await client
      .invoke(new Api.auth.ResendCode({ phoneNumber: PHONE, phoneCodeHash: sent.phoneCodeHash }))
      .catch((e: unknown) => e);
    expect(rpcError(resend)).toBe("PHONE_CODE_EXPIRED");

    const fresh = await sendCode(client);
    const freshCode = emu.auth.loginCode(PHONE) ?? "";
    expect(await signIn(client, fresh.phoneCodeHash, freshCode)).toBeInstanceOf(Api.auth.Authorization);
    // A used code does not work twice.
    const other = newClient();
    await other.connect();
    expect(rpcError(await signIn(other, fresh.phoneCodeHash, freshCode).catch((e: unknown) => e))).toBe(
      "PHONE_CODE_EXPIRED",
    );
  });

  it("names the next way with a timeout; auth.resendCode sends the code that way (app → SMS → call), then SEND_CODE_UNAVAILABLE", async () => {
    const { emu } = setup();
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    expect([sent.type.className, sent.nextType?.className, sent.timeout]).toEqual([
      "auth.SentCodeTypeApp",
      "auth.CodeTypeSms",
      60,
    ]);
    const resend = () =>
      client.invoke(
        new Api.auth.ResendCode({ phoneNumber: PHONE, phoneCodeHash: sent.phoneCodeHash }),
      ) as Promise<Api.auth.SentCode>;
    const sms = await resend();
    expect([sms.type.className, sms.nextType?.className, sms.phoneCodeHash]).toEqual([
      "auth.SentCodeTypeSms",
      "auth.CodeTypeCall",
      sent.phoneCodeHash,
    ]);
    const call = await resend();
    expect([call.type.className, call.nextType ?? undefined]).toEqual(["auth.SentCodeTypeCall", undefined]);
    expect(rpcError(await resend().catch((e: unknown) => e))).toBe("SEND_CODE_UNAVAILABLE");
    // The code of the last delivery is the one that works.
    expect(await signIn(client, sent.phoneCodeHash, emu.auth.loginCode(PHONE) ?? "")).toBeInstanceOf(
      Api.auth.Authorization,
    );
  });

  it("sends a secret word or phrase by SMS (its beginning told), compared without case or extra spaces", async () => {
    for (const way of ["sms-word", "sms-phrase"] as const) {
      const { emu } = setup({ codeDelivery: [way] });
      const client = newClient();
      await client.connect();
      const sent = await sendCode(client);
      const code = emu.auth.loginCode(PHONE) ?? "";
      if (way === "sms-word") {
        expect(sent.type).toBeInstanceOf(Api.auth.SentCodeTypeSmsWord);
        expect((sent.type as Api.auth.SentCodeTypeSmsWord).beginning).toBe(code[0]);
        expect(code).toMatch(/^[a-z]+$/);
      } else {
        expect(sent.type).toBeInstanceOf(Api.auth.SentCodeTypeSmsPhrase);
        expect((sent.type as Api.auth.SentCodeTypeSmsPhrase).beginning).toBe(code.split(" ")[0]);
        expect(code.split(" ")).toHaveLength(3);
      }
      expect(rpcError(await signIn(client, sent.phoneCodeHash, "12345").catch((e: unknown) => e))).toBe(
        "PHONE_CODE_INVALID",
      );
      const typed = ` ${code.toUpperCase().replace(/ /g, "  ")} `;
      expect(await signIn(client, sent.phoneCodeHash, typed)).toBeInstanceOf(Api.auth.Authorization);
      restore?.();
      restore = undefined;
    }
  });

  it("an e-mail code is proved with email_verification; as phone_code it is wrong", async () => {
    const { emu } = setup({ codeDelivery: ["email"], loginEmail: "mira@example.com" });
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    expect(sent.type).toBeInstanceOf(Api.auth.SentCodeTypeEmailCode);
    expect((sent.type as Api.auth.SentCodeTypeEmailCode).emailPattern).toBe("m***@example.com");
    const code = emu.auth.loginCode(PHONE) ?? "";
    expect(rpcError(await signIn(client, sent.phoneCodeHash, code).catch((e: unknown) => e))).toBe(
      "PHONE_CODE_INVALID",
    );
    const byEmail = (c: string) =>
      client.invoke(
        new Api.auth.SignIn({
          phoneNumber: PHONE,
          phoneCodeHash: sent.phoneCodeHash,
          emailVerification: new Api.EmailVerificationCode({ code: c }),
        }),
      );
    expect(rpcError(await byEmail(code === "11111" ? "22222" : "11111").catch((e: unknown) => e))).toBe(
      "EMAIL_CODE_INVALID",
    );
    expect(await byEmail(code)).toBeInstanceOf(Api.auth.Authorization);
  });

  it("sets a login e-mail up inside the login: a code to the address given, verified, then the login code goes there", async () => {
    const { emu, account } = setup({ codeDelivery: ["email"] });
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    expect(sent.type).toBeInstanceOf(Api.auth.SentCodeTypeSetUpEmailRequired);
    const purpose = new Api.EmailVerifyPurposeLoginSetup({
      phoneNumber: PHONE,
      phoneCodeHash: sent.phoneCodeHash,
    });
    // GramJS's invoke() hands every answer to its entity cache, which takes anything with a numeric
    // `length` for a list: account.sentEmailCode{email_pattern, length} makes it throw after the
    // server sent the e-mail. A client must send this request past invoke() (the sender itself).
    const viaInvoke = await client
      .invoke(new Api.account.SendVerifyEmailCode({ purpose, email: "first@example.org" }))
      .catch((e: unknown) => e);
    expect(viaInvoke).toBeInstanceOf(TypeError);
    expect(emu.auth.emailCode("first@example.org")).toMatch(/^\d{6}$/); // sent all the same
    const sender = (client as unknown as { _sender: { send(r: Api.AnyRequest): Promise<unknown> } })._sender;
    const bad = await sender
      .send(new Api.account.SendVerifyEmailCode({ purpose, email: "not an address" }))
      .catch((e: unknown) => e);
    expect(rpcError(bad)).toBe("EMAIL_INVALID");
    const mailed = (await sender.send(
      new Api.account.SendVerifyEmailCode({ purpose, email: "mira@example.org" }),
    )) as Api.account.SentEmailCode;
    expect(mailed.emailPattern).toBe("m***@example.org");
    const verify = (code: string) =>
      client.invoke(
        new Api.account.VerifyEmail({ purpose, verification: new Api.EmailVerificationCode({ code }) }),
      );
    expect(rpcError(await verify("000000").catch((e: unknown) => e))).toBe("CODE_INVALID");
    const verified = (await verify(
      emu.auth.emailCode("mira@example.org") ?? "",
    )) as Api.account.EmailVerifiedLogin;
    expect(verified).toBeInstanceOf(Api.account.EmailVerifiedLogin);
    expect(verified.sentCode).toBeInstanceOf(Api.auth.SentCode);
    const next = verified.sentCode as Api.auth.SentCode;
    expect(next.type).toBeInstanceOf(Api.auth.SentCodeTypeEmailCode);
    expect(emu.auth.loginEmail(account)).toBe("mira@example.org");
    const auth = await client.invoke(
      new Api.auth.SignIn({
        phoneNumber: PHONE,
        phoneCodeHash: next.phoneCodeHash,
        emailVerification: new Api.EmailVerificationCode({ code: emu.auth.loginCode(PHONE) ?? "" }),
      }),
    );
    expect(auth).toBeInstanceOf(Api.auth.Authorization);
  });

  it("refuseLoginEmail: a proved address is not taken and the set-up is asked for again, under the same hash", async () => {
    const { emu, account } = setup({ codeDelivery: ["email"] });
    emu.auth.refuseLoginEmail(PHONE, 1);
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    const purpose = new Api.EmailVerifyPurposeLoginSetup({
      phoneNumber: PHONE,
      phoneCodeHash: sent.phoneCodeHash,
    });
    const sender = (client as unknown as { _sender: { send(r: Api.AnyRequest): Promise<unknown> } })._sender;
    const setUp = async (email: string) => {
      await sender.send(new Api.account.SendVerifyEmailCode({ purpose, email }));
      const code = emu.auth.emailCode(email) ?? "";
      const r = (await client.invoke(
        new Api.account.VerifyEmail({ purpose, verification: new Api.EmailVerificationCode({ code }) }),
      )) as Api.account.EmailVerifiedLogin;
      return r.sentCode as Api.auth.SentCode;
    };
    const again = await setUp("first@example.org");
    expect(again.type).toBeInstanceOf(Api.auth.SentCodeTypeSetUpEmailRequired);
    expect(again.phoneCodeHash).toBe(sent.phoneCodeHash);
    expect(emu.auth.loginEmail(account)).toBeUndefined();
    const taken = await setUp("second@example.org");
    expect(taken.type).toBeInstanceOf(Api.auth.SentCodeTypeEmailCode);
    expect(emu.auth.loginEmail(account)).toBe("second@example.org");
  });

  it("stallHandshakes: the next connect() never settles; the one after connects", async () => {
    const { emu } = setup();
    emu.faults.stallHandshakes(1);
    const stalled = newClient();
    let settled = false;
    void stalled.connect().then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    const next = newClient();
    expect(await next.connect()).toBe(true);
    expect(await sendCode(next)).toBeInstanceOf(Api.auth.SentCode);
  });

  it("answers a malformed phone with PHONE_NUMBER_INVALID and other app credentials with API_ID_INVALID", async () => {
    setup();
    const client = newClient();
    await client.connect();
    expect(rpcError(await sendCode(client, "12").catch((e: unknown) => e))).toBe("PHONE_NUMBER_INVALID");
    const bad = await client
      .invoke(
        new Api.auth.SendCode({
          phoneNumber: PHONE,
          apiId: 1,
          apiHash: API_HASH,
          settings: new Api.CodeSettings({}),
        }),
      )
      .catch((e: unknown) => e);
    expect(rpcError(bad)).toBe("API_ID_INVALID");
  });

  it("moves a phone on another DC there (PHONE_MIGRATE_2), as GramJS's invoke() follows it", async () => {
    const { emu } = setup({ dc: 2 });
    const client = newClient();
    await client.connect();
    expect(client.session.dcId).toBe(4);
    const sent = await sendCode(client);
    expect(client.session.dcId).toBe(2);
    expect(emu.auth.requests.map((r) => `${r.method}@${r.dcId}`)).toEqual([
      "auth.SendCode@4",
      "updates.GetState@4",
      "help.GetConfig@4",
      "auth.SendCode@2",
    ]);
    expect(await signIn(client, sent.phoneCodeHash, emu.auth.loginCode(PHONE) ?? "")).toBeInstanceOf(
      Api.auth.Authorization,
    );
  });
});

describe("emulator login: 2FA with server-side SRP", () => {
  it("needs the password after the code; a wrong one fails the M1 check, a reused srp_id is refused, the right one signs in", async () => {
    const { emu, account } = setup({ password: "correct horse" });
    const client = newClient();
    await client.connect();
    const sent = await sendCode(client);
    const e = await signIn(client, sent.phoneCodeHash, emu.auth.loginCode(PHONE) ?? "").catch(
      (x: unknown) => x,
    );
    expect(rpcError(e)).toBe("SESSION_PASSWORD_NEEDED");
    expect(await client.checkAuthorization()).toBe(false);

    const pw1 = (await client.invoke(new Api.account.GetPassword())) as Api.account.Password;
    expect(pw1.hasPassword).toBe(true);
    expect(pw1.hint).toBe("pet's name");
    const wrong = await computeCheck(pw1, "wrong horse");
    const bad = await client.invoke(new Api.auth.CheckPassword({ password: wrong })).catch((x: unknown) => x);
    expect(rpcError(bad)).toBe("PASSWORD_HASH_INVALID");
    // One attempt per challenge, even with the right password.
    const stale = await computeCheck(pw1, "correct horse");
    expect(
      rpcError(await client.invoke(new Api.auth.CheckPassword({ password: stale })).catch((x: unknown) => x)),
    ).toBe("SRP_ID_INVALID");

    const pw2 = (await client.invoke(new Api.account.GetPassword())) as Api.account.Password;
    expect(pw2.srpId?.toString()).not.toBe(pw1.srpId?.toString());
    const ok = await client.invoke(
      new Api.auth.CheckPassword({ password: await computeCheck(pw2, "correct horse") }),
    );
    expect(ok).toBeInstanceOf(Api.auth.Authorization);
    expect(emu.auth.isSignedIn(account)).toBe(true);
  });
});

describe("emulator login: QR tokens", () => {
  it("tells the exporting client when another device accepts, then moves it to the account's DC and imports the token there", async () => {
    const { emu, account } = setup({ dc: 2 });
    const client = newClient();
    await client.connect();
    const seen: string[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => void seen.push(u.className),
      new Raw({ types: [Api.UpdateLoginToken] }),
    );
    const exportToken = () =>
      client.invoke(new Api.auth.ExportLoginToken({ apiId: API_ID, apiHash: API_HASH, exceptIds: [] }));

    const first = (await exportToken()) as Api.auth.LoginToken;
    expect(first).toBeInstanceOf(Api.auth.LoginToken);
    expect(emu.auth.liveLoginTokens()).toBe(1);
    expect(emu.auth.acceptLoginToken(account)).toBe(true);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(["UpdateLoginToken"]);

    const moved = (await exportToken()) as Api.auth.LoginTokenMigrateTo;
    expect(moved).toBeInstanceOf(Api.auth.LoginTokenMigrateTo);
    expect(moved.dcId).toBe(2);
    await (client as unknown as { _switchDC(dc: number): Promise<void> })._switchDC(moved.dcId);
    expect(client.session.dcId).toBe(2);
    const done = (await client.invoke(
      new Api.auth.ImportLoginToken({ token: moved.token }),
    )) as Api.auth.LoginTokenSuccess;
    expect(((done.authorization as Api.auth.Authorization).user as Api.User).id.toString()).toBe(
      String(account.id),
    );
    expect(await client.checkAuthorization()).toBe(true);
  });

  it("lets a token expire after 30 s, and asks for the password after a QR login with 2FA", async () => {
    const { emu, account, advance } = setup({ password: "pw" });
    const client = newClient();
    await client.connect();
    const exportToken = () =>
      client.invoke(new Api.auth.ExportLoginToken({ apiId: API_ID, apiHash: API_HASH, exceptIds: [] }));
    await exportToken();
    advance(30_000);
    expect(emu.auth.acceptLoginToken(account)).toBe(false);
    await exportToken();
    expect(emu.auth.acceptLoginToken(account)).toBe(true);
    expect(rpcError(await exportToken().catch((e: unknown) => e))).toBe("SESSION_PASSWORD_NEEDED");
    const pw = (await client.invoke(new Api.account.GetPassword())) as Api.account.Password;
    expect(
      await client.invoke(new Api.auth.CheckPassword({ password: await computeCheck(pw, "pw") })),
    ).toBeInstanceOf(Api.auth.Authorization);
  });
});
