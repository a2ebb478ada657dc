/**
 * contacts.Block / contacts.Unblock (→ Bool) and contacts.ResolveUsername.
 */
import { Api } from "telegram";
import { toLong } from "../long";
import { RpcFault } from "../rpc-fault";
import { defineMethod } from "./method";
import { userForInputPeer } from "./resolve-peer";

export const block = defineMethod("contacts.Block", Api.contacts.Block, (ctx, req) => {
  const user = userForInputPeer(ctx.world, ctx.account, req.id);
  if (!user || user.id === ctx.account.id) throw new RpcFault("CONTACT_ID_INVALID");
  ctx.world.mailbox(ctx.account.id).blocked.add(user.id);
  return true;
});

export const unblock = defineMethod("contacts.Unblock", Api.contacts.Unblock, (ctx, req) => {
  const user = userForInputPeer(ctx.world, ctx.account, req.id);
  if (!user || user.id === ctx.account.id) throw new RpcFault("CONTACT_ID_INVALID");
  ctx.world.mailbox(ctx.account.id).blocked.delete(user.id);
  return true;
});

export const resolveUsername = defineMethod(
  "contacts.ResolveUsername",
  Api.contacts.ResolveUsername,
  (ctx, req) => {
    const username = req.username.replace(/^@/, "");
    // Telegram usernames are letters, digits and underscores; anything else is not a username.
    if (!/^[A-Za-z0-9_]{1,32}$/.test(username)) throw new RpcFault("USERNAME_INVALID");
    const user = ctx.world.userByUsername(username);
    if (!user) throw new RpcFault("USERNAME_NOT_OCCUPIED");
    return new Api.contacts.ResolvedPeer({
      peer: new Api.PeerUser({ userId: toLong(user.id) }),
      users: [ctx.views.user(user, ctx.account.id)],
      chats: [],
    });
  },
);
