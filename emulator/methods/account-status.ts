/**
 * account.UpdateStatus: the account says it is online (`offline: false`) or went offline. Recorded
 * (presence.ts); the accounts that have it as a contact are pushed `updateUserStatus`. Bool true.
 */
import { Api } from "telegram";
import { statusUpdate } from "../presence";
import { defineMethod } from "./method";

export const updateStatus = defineMethod("account.UpdateStatus", Api.account.UpdateStatus, (ctx, req) => {
  const record = { account: ctx.account, offline: req.offline === true, at: ctx.now };
  ctx.world.statuses.push(record);
  ctx.world.latestStatus.set(ctx.account.id, record);
  for (const viewer of ctx.world.contactsOf(ctx.account.id)) {
    if (viewer.id === ctx.account.id) continue;
    ctx.pushLater({ account: viewer, updates: statusUpdate(ctx.world, ctx.account, ctx.now) });
  }
  return true;
});
