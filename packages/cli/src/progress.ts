/**
 * Progress on stderr while long work runs (`lint`, `check`, `client`, ...): one line, rewritten in place, shown only
 * when stderr is a terminal and not in CI, so logs and pipes stay clean. It is cleared before anything else prints.
 */
export interface Progress {
  /** Shows what runs now. */
  phase(text: string): void;
  /** Clears the line. */
  done(): void;
}

const NONE: Progress = { phase: () => undefined, done: () => undefined };

/** Whether progress is shown on `stream`: a TTY, outside CI, with a terminal that understands the escape. */
export function progressEnabled(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env['CI'] && env['TERM'] !== 'dumb' && !env['NO_PROGRESS'];
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): Progress {
  if (!progressEnabled(stream, env)) return NONE;
  let shown = false;
  const started = performance.now();
  return {
    phase(text) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const line = `${text} (${seconds} s)`;
      const width = stream.columns > 10 ? stream.columns - 1 : 79;
      stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
