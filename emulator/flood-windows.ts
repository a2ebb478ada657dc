/**
 * Flood waits as Telegram's server keeps them (`emu.faults.floodWait`): once a method (for one
 * peer, or for any) is limited, every request of it within the window is answered
 * `FLOOD_WAIT_<seconds left, rounded up>` (420) — a client that calls again early only meets the
 * same limit, with less time left. Past the window the method works again.
 */
import type { Api } from "telegram";
import { requestIsAbout } from "./request-peer";
import { RpcFault } from "./rpc-fault";
import type { EmuChat, EmuUser } from "./types";

interface FloodWindow {
  readonly method: string;
  readonly peer: EmuChat | EmuUser | undefined;
  /** Emulator wall time (ms) the window ends. */
  readonly until: number;
}

export class FloodWindows {
  private windows: FloodWindow[] = [];

  constructor(private readonly now: () => number) {}

  /** From now on, `method` (about `peer`, or any) is answered FLOOD_WAIT for `seconds`. */
  open(method: string, seconds: number, peer?: EmuChat | EmuUser): void {
    this.windows.push({ method, peer, until: this.now() + seconds * 1000 });
  }

  /** The flood wait `request` meets now, if a window holds it. */
  check(method: string, request: Api.AnyRequest): RpcFault | undefined {
    const now = this.now();
    this.windows = this.windows.filter((w) => w.until > now);
    let until = 0;
    for (const w of this.windows)
      if (w.method === method && (w.peer === undefined || requestIsAbout(request, w.peer)))
        until = Math.max(until, w.until);
    if (until === 0) return undefined;
    return new RpcFault(`FLOOD_WAIT_${Math.ceil((until - now) / 1000)}`, 420);
  }
}
