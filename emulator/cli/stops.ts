// C0 and C1 controls and the marks that reorder text: from a state file or a fixture,
// a name holding them could clear the terminal, retitle it or disguise a line.
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** `text` as a terminal shows it safely: every control or direction mark as a `\u{…}` escape (D-1114). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** One line on stderr, as every message of the CLI (names from files escaped, D-1114). */
export const say = (line: string) => process.stderr.write(`svc-emulator: ${printable(line)}\n`);

/** Says `message` and exits with `code`. */
export function fail(message: string, code: number): never {
  say(message);
  process.exit(code);
}

export type StopHandler = (why: string, signal?: NodeJS.Signals) => void;

/**
 * Stops asked for (a signal, the launcher gone). One asked for before the server is up is
 * kept and honoured once it is (`handle`); a second signal meanwhile ends the start at once.
 */
export class StopRequests {
  pending: { why: string; signal?: NodeJS.Signals } | undefined;
  #handler: StopHandler | undefined;
  /** The launcher watch, stopped when the stop begins. */
  watch: { stop(): void } | undefined;

  request(why: string, signal?: NodeJS.Signals): void {
    if (!this.#handler && this.pending && signal) process.exit(130);
    this.pending ??= { why, ...(signal && { signal }) };
    this.#handler?.(why, signal);
  }

  /** From now on `handler` takes the stops, starting with one that came before. */
  handle(handler: StopHandler): void {
    this.#handler = handler;
    if (this.pending) handler(this.pending.why, this.pending.signal);
  }
}
