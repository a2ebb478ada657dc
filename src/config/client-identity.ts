/**
 * How this program introduces itself to Telegram: `initConnection`'s device model, system
 * version and app version. Telegram shows them in the account's device list ("Devices" in every
 * app) beside the app name of the api_id, so the owner can tell the persona's session apart.
 * GramJS's defaults are the machine's OS name and "1.0"; ours name the project and its version,
 * each overridable (env TELEGRAM_DEVICE_MODEL, TELEGRAM_SYSTEM_VERSION, TELEGRAM_APP_VERSION).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ClientIdentity {
  readonly deviceModel: string;
  readonly systemVersion: string;
  readonly appVersion: string;
}

interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

let cached: PackageInfo | undefined;

/**
 * This project's name and version: the nearest package.json above this module — `src/telegram/`
 * under tsx and vitest, the bundle in `dist/` when compiled, so the depth differs.
 */
export function packageInfo(): PackageInfo {
  if (cached) return cached;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) return (cached = JSON.parse(readFileSync(file, "utf8")) as PackageInfo);
    if (dirname(dir) === dir) throw new Error("package.json not found above the program");
  }
}

/** The identity to present: the overrides given, else the project's name and version on Node.js. */
export function clientIdentity(
  o: {
    readonly deviceModel?: string | undefined;
    readonly systemVersion?: string | undefined;
    readonly appVersion?: string | undefined;
  } = {},
): ClientIdentity {
  const pkg = packageInfo();
  return {
    deviceModel: o.deviceModel ?? pkg.name,
    systemVersion: o.systemVersion ?? `Node.js ${process.versions.node}`,
    appVersion: o.appVersion ?? pkg.version,
  };
}
