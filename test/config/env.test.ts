import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { readEnv, telegramCredentials } from "../../src/config/env";

describe("environment, validated per command", () => {
  it("readEnv (what every command uses) accepts a malformed TELEGRAM_API_HASH: only Telegram commands check it", () => {
    const env = readEnv({ TELEGRAM_API_HASH: "nope", TELEGRAM_API_ID: "x" });
    expect(env.AGENTS_DIR).toBe("agents");
    expect(() => telegramCredentials(env)).toThrow(ConfigError);
  });

  it("telegramCredentials names each bad or missing variable and never echoes a value", () => {
    const secret = "zz56789abcdef0123456789abcdef012";
    let message = "";
    try {
      telegramCredentials({ TELEGRAM_API_ID: "12x", TELEGRAM_API_HASH: secret });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("TELEGRAM_API_ID");
    expect(message).toContain("TELEGRAM_API_HASH: must be 32 hex characters");
    expect(message).not.toContain(secret);
    expect(() => telegramCredentials({})).toThrow(
      /TELEGRAM_API_ID: must be set[\s\S]*TELEGRAM_API_HASH: must be set/,
    );
    expect(
      telegramCredentials({
        TELEGRAM_API_ID: "12345",
        TELEGRAM_API_HASH: "0123456789abcdef0123456789ABCDEF",
      }),
    ).toMatchObject({
      apiId: 12345,
      apiHash: "0123456789abcdef0123456789ABCDEF",
    });
  });

  it("names the project in the device list unless TELEGRAM_DEVICE_MODEL / _SYSTEM_VERSION / _APP_VERSION say otherwise; too long is an error naming the variable", () => {
    const base = { TELEGRAM_API_ID: "12345", TELEGRAM_API_HASH: "0123456789abcdef0123456789abcdef" };
    expect(telegramCredentials(base).identity).toEqual({
      deviceModel: "telegram-persona-userbot",
      systemVersion: `Node.js ${process.versions.node}`,
      appVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(
      telegramCredentials({
        ...base,
        TELEGRAM_DEVICE_MODEL: "Mira box",
        TELEGRAM_SYSTEM_VERSION: "Debian 12",
        TELEGRAM_APP_VERSION: "2.0",
      }).identity,
    ).toEqual({
      deviceModel: "Mira box",
      systemVersion: "Debian 12",
      appVersion: "2.0",
    });
    expect(() => telegramCredentials({ ...base, TELEGRAM_DEVICE_MODEL: "x".repeat(65) })).toThrow(
      /TELEGRAM_DEVICE_MODEL: must be at most 64 characters/,
    );
  });

  it("still rejects what every command uses, naming it", () => {
    expect(() => readEnv({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
    expect(() => readEnv({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT/);
    expect(() => readEnv({ MAX_ANSWER_AGE_SEC: "1h" })).toThrow(
      /MAX_ANSWER_AGE_SEC: bad value "1h" \(expected a whole number of seconds from 1 to/,
    );
    expect(() => readEnv({ MAX_ANSWER_AGE_SEC: "0" })).toThrow(/MAX_ANSWER_AGE_SEC: bad value "0"/);
    expect(readEnv({ MAX_ANSWER_AGE_SEC: "14400" }).MAX_ANSWER_AGE_SEC).toBe(14400);
    // The same number forms as the persona files.
    expect(readEnv({ MAX_ANSWER_AGE_SEC: "14_400" }).MAX_ANSWER_AGE_SEC).toBe(14400);
    expect(() => readEnv({ MEDIA_BUDGET_PER_MIN: "1,0" })).toThrow(
      /MEDIA_BUDGET_PER_MIN: bad value "1,0" .*grouped in threes/,
    );
    expect(readEnv({}).MAX_ANSWER_AGE_SEC).toBeUndefined();
  });
});
