/**
 * help.getConfig: what GramJS reads from it is the DC list (to move to another DC during login).
 * The addresses are documentation-only (TEST-NET) addresses: nothing ever connects to them.
 */
import { Api } from "telegram";
import { DC_IDS } from "../auth-server";
import { defineAuthMethod } from "./auth-method";
import { defineMethod } from "./method";

/** help.getConfig on a connection that is not signed in yet (login: the DC list for a move). */
export const getConfig = defineAuthMethod("help.GetConfig", Api.help.GetConfig, (ctx) =>
  config(ctx.now, ctx.key.dcId),
);

/** help.getConfig on an account's connection (GramJS asks it before borrowing a sender for another DC). */
export const getAccountConfig = defineMethod("help.GetConfig", Api.help.GetConfig, (ctx) =>
  config(ctx.now, ctx.dcId),
);

function config(now: number, thisDc: number): Api.Config {
  const date = Math.floor(now / 1000);
  return new Api.Config({
    date,
    expires: date + 3600,
    testMode: false,
    thisDc,
    dcOptions: DC_IDS.map((id) => new Api.DcOption({ id, ipAddress: `192.0.2.${id}`, port: 443 })),
    dcTxtDomainName: "emulator.invalid",
    chatSizeMax: 200,
    megagroupSizeMax: 200_000,
    forwardedCountMax: 100,
    onlineUpdatePeriodMs: 210_000,
    offlineBlurTimeoutMs: 5_000,
    offlineIdleTimeoutMs: 30_000,
    onlineCloudTimeoutMs: 300_000,
    notifyCloudDelayMs: 30_000,
    notifyDefaultDelayMs: 1_500,
    pushChatPeriodMs: 60_000,
    pushChatLimit: 2,
    editTimeLimit: 172_800,
    revokeTimeLimit: 2_147_483_647,
    revokePmTimeLimit: 2_147_483_647,
    ratingEDecay: 2_419_200,
    stickersRecentLimit: 200,
    channelsReadMediaPeriod: 604_800,
    callReceiveTimeoutMs: 20_000,
    callRingTimeoutMs: 90_000,
    callConnectTimeoutMs: 30_000,
    callPacketTimeoutMs: 10_000,
    meUrlPrefix: "https://t.me/",
    captionLengthMax: 1024,
    messageLengthMax: 4096,
    webfileDcId: 4,
  });
}
