/**
 * auth.exportAuthorization: a one-time token for signing a key on another data centre in as this
 * account (imported there inside initConnection: see data-centres.ts). DC_ID_INVALID for an
 * unknown DC or the one the request came to.
 */
import { Api } from "telegram";
import { toLong } from "../long";
import { RpcFault } from "../rpc-fault";
import { defineMethod } from "./method";

export const exportAuthorization = defineMethod(
  "auth.ExportAuthorization",
  Api.auth.ExportAuthorization,
  (ctx, req) => {
    if (req.dcId === ctx.dcId) throw new RpcFault("DC_ID_INVALID");
    const e = ctx.auth.exportAuthorization(ctx.account, req.dcId);
    return new Api.auth.ExportedAuthorization({ id: toLong(e.id), bytes: e.bytes });
  },
);
