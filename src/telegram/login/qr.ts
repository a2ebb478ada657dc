/**
 * Logging in by QR code: auth.exportLoginToken gives a token, shown as a QR code of
 * tg://login?token=…; the person scans it in a Telegram app where the account is logged in
 * (Settings → Devices → Link Desktop Device). Telegram then sends updateLoginToken, and the next
 * export answers with the login — or with LoginTokenMigrateTo when the account lives on another
 * DC: the client moves there (GramJS's own DC switch: a new auth key) and imports the token.
 * An expired token is replaced by a new QR code until the time limit.
 */
import { Api } from "telegram";
import { Raw } from "telegram/events/index.js";
import QRCode from "qrcode";
import { explain, rpcName, userOf, type LoginContext } from "./context";
import { humanDuration, LoginError } from "./login-error";
import { checkPassword } from "./password";

/** Default time a QR login waits for a scan. */
const QR_TIMEOUT_MS = 3 * 60_000;

// GramJS's DC switch is internal (its own QR login uses it the same way).
interface SwitchDc {
  _switchDC(dcId: number): Promise<unknown>;
}

export async function qrLogin(ctx: LoginContext): Promise<Api.User> {
  const { client, o, clock } = ctx;
  const limit = o.qrTimeoutMs ?? QR_TIMEOUT_MS;
  const deadline = clock.now() + limit;
  let scanned: boolean;
  let wake: (() => void) | undefined;
  const onToken = () => {
    scanned = true;
    wake?.();
  };
  const event = new Raw({ types: [Api.UpdateLoginToken] });
  client.addEventHandler(onToken, event);
  try {
    for (let shown = 0; ; shown++) {
      scanned = false;
      const answer = await exportToken(ctx);
      if (answer instanceof Api.auth.LoginTokenSuccess) return userOf(answer.authorization);
      if (answer instanceof Api.auth.LoginTokenMigrateTo) return await migrate(ctx, answer);
      if (clock.now() >= deadline) break;
      o.out(shown === 0 ? qrInstructions : "The QR code expired; here is a new one:");
      o.out(
        await QRCode.toString(`tg://login?token=${answer.token.toString("base64url")}`, {
          type: "terminal",
          small: true,
        }),
      );
      // Wait for the scan, the token's expiry (refresh) or the time limit, whichever is first.
      const untilExpiry = answer.expires * 1000 - clock.now();
      const wait = Math.max(1_000, Math.min(untilExpiry, 30_000, deadline - clock.now()));
      if (!scanned) {
        await new Promise<void>((resolve) => {
          const timer = clock.setTimeout(resolve, wait);
          wake = () => {
            clock.clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      if (!scanned && clock.now() >= deadline) break;
    }
  } catch (e) {
    if (rpcName(e) === "SESSION_PASSWORD_NEEDED") return checkPassword(ctx);
    throw explain(e);
  } finally {
    client.removeEventHandler(onToken, event);
  }
  throw new LoginError(
    `The QR code was not scanned within ${humanDuration(limit / 1000)}; run the login again.`,
  );
}

const qrInstructions =
  "Scan this QR code with Telegram on a phone where the account is logged in: Settings → Devices → Link Desktop Device.";

function exportToken(ctx: LoginContext): Promise<Api.auth.TypeLoginToken> {
  return ctx.call(
    new Api.auth.ExportLoginToken({ apiId: ctx.o.apiId, apiHash: ctx.o.apiHash, exceptIds: [] }),
  );
}

async function migrate(ctx: LoginContext, to: Api.auth.LoginTokenMigrateTo): Promise<Api.User> {
  ctx.o.out(`The account lives on Telegram's DC ${to.dcId}; moving there.`);
  await (ctx.client as unknown as SwitchDc)._switchDC(to.dcId);
  const answer = await ctx.call(new Api.auth.ImportLoginToken({ token: to.token }));
  if (answer instanceof Api.auth.LoginTokenSuccess) return userOf(answer.authorization);
  throw new LoginError(
    `Telegram answered the QR login with ${answer.className} after the move to DC ${to.dcId}; run the login again.`,
  );
}
