/**
 * QR login: auth.exportLoginToken (a token to show as tg://login?token=…, later the login or
 * the move to the account's DC) and auth.importLoginToken (the login on that DC).
 */
import { Api } from "telegram";
import { authorization } from "./auth-code";
import { defineAuthMethod } from "./auth-method";

export const exportLoginToken = defineAuthMethod(
  "auth.ExportLoginToken",
  Api.auth.ExportLoginToken,
  (ctx, req) => {
    ctx.auth.checkApp(req.apiId, req.apiHash);
    const r = ctx.auth.exportLoginToken(ctx.key);
    if (r.kind === "token") return new Api.auth.LoginToken({ token: r.token, expires: r.expires });
    if (r.kind === "migrate") return new Api.auth.LoginTokenMigrateTo({ dcId: r.dcId, token: r.token });
    return new Api.auth.LoginTokenSuccess({ authorization: authorization(ctx.views, r.user) });
  },
);

export const importLoginToken = defineAuthMethod(
  "auth.ImportLoginToken",
  Api.auth.ImportLoginToken,
  (ctx, req) => {
    const user = ctx.auth.importLoginToken(ctx.key, req.token);
    return new Api.auth.LoginTokenSuccess({ authorization: authorization(ctx.views, user) });
  },
);
