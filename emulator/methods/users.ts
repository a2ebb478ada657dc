/**
 * users.GetUsers (self and known users; unknown ones are left out, as Telegram does).
 */
import { Api } from "telegram";
import { defineMethod } from "./method";
import { userForInputUser } from "./resolve-peer";

export const getUsers = defineMethod("users.GetUsers", Api.users.GetUsers, (ctx, req) =>
  req.id.flatMap((input) => {
    const user = userForInputUser(ctx.world, ctx.account, input);
    return user ? [ctx.views.user(user, ctx.account.id)] : [];
  }),
);
