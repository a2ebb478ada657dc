/**
 * help.getAppConfig: the client configuration Telegram sends as a JSON object. The emulator fills
 * in what the product reads of it: for a frozen account `freeze_since_date`, `freeze_until_date`
 * (unix seconds) and `freeze_appeal_url` (core.telegram.org/api/auth#frozen-accounts); nothing
 * else. `hash` 0 always gets the whole object.
 */
import { Api } from "telegram";
import { defineMethod } from "./method";

export const getAppConfig = defineMethod("help.GetAppConfig", Api.help.GetAppConfig, (ctx) => {
  const f = ctx.freeze;
  const value = f
    ? [
        entry("freeze_since_date", new Api.JsonNumber({ value: Math.floor(f.since / 1000) })),
        entry("freeze_until_date", new Api.JsonNumber({ value: Math.floor(f.until / 1000) })),
        entry("freeze_appeal_url", new Api.JsonString({ value: f.appealUrl })),
      ]
    : [];
  // The hash changes with the content, so a client that caches it sees a freeze at once.
  return new Api.help.AppConfig({
    hash: f ? Math.floor(f.since / 1000) % 2 ** 31 : 1,
    config: new Api.JsonObject({ value }),
  });
});

function entry(key: string, value: Api.TypeJSONValue): Api.JsonObjectValue {
  return new Api.JsonObjectValue({ key, value });
}
