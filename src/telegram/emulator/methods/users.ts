/**
 * users.GetUsers (self and known users; unknown ones are left out, as Telegram does) and
 * updates.GetState (what isUserAuthorized() and start() ask).
 */
import { Api } from "telegram";
import { defineMethod } from "./method.js";
import { userForInputUser } from "./resolve-peer.js";

export const getUsers = defineMethod("users.GetUsers", Api.users.GetUsers, (ctx, req) =>
  req.id.flatMap((input) => {
    const user = userForInputUser(ctx.world, ctx.account, input);
    return user ? [ctx.views.user(user, ctx.account.id)] : [];
  }),
);

export const getState = defineMethod("updates.GetState", Api.updates.GetState, (ctx) => {
  const box = ctx.world.mailbox(ctx.account.id);
  return new Api.updates.State({ pts: box.pts, qts: 0, date: Math.floor(ctx.now / 1000), seq: 0, unreadCount: 0 });
});
