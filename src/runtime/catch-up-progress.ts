import { SingleBar, Presets } from "cli-progress";

/** Below this many update boxes (the account's plus one per channel) a catch-up is quick: no bar. */
const PROGRESS_MIN_BOXES = 10;

/**
 * A terminal progress bar for a large catch-up (cli-progress, on stderr), or nothing when stderr
 * is not a terminal or the catch-up is small. Returns the progress callback and a `stop`.
 */
export function catchUpProgress(stream: NodeJS.WriteStream = process.stderr): {
  onProgress: (done: number, total: number, messages: number) => void;
  stop: () => void;
} {
  let bar: SingleBar | undefined;
  return {
    onProgress(done, total, messages) {
      if (!stream.isTTY || total < PROGRESS_MIN_BOXES) return;
      if (!bar) {
        bar = new SingleBar(
          {
            stream,
            format: "catch-up [{bar}] {value}/{total} chats with news checked · {messages} messages",
            hideCursor: true,
          },
          Presets.shades_classic,
        );
        bar.start(total, 0, { messages });
      }
      bar.setTotal(total);
      bar.update(done, { messages });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
