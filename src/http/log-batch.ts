import type pino from 'pino';
import type { DestinationStream } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Collects log lines and hands them to the destination (pino's sonic-boom)
 * in whole batches: once `atBytes` are waiting, and every `everyMs`
 * otherwise. sonic-boom batches by itself too (its minLength), but on every
 * line it measures the UTF-8 length of the whole string still waiting
 * (Buffer.byteLength of its last buffer), so a line costs time in
 * proportion to the batch, which made it most of the access log's cost.
 * Here a line is one array push; the length is taken once
 * a batch. The destination writes each batch at once and asynchronously (its
 * minLength is 1: with 0 its flush would not wait for a write in flight).
 */
export class LineBatcher implements DestinationStream {
  #lines: string[] = [];
  #chars = 0;
  readonly #timer: NodeJS.Timeout;
  readonly #onExit = () => this.flushSync();

  constructor(
    private readonly out: SonicBoom,
    private readonly atChars: number,
    everyMs: number,
  ) {
    this.#timer = setInterval(() => this.#pass(), everyMs).unref();
    // On an exit without close() (a crash, process.exit), what waits here is written synchronously,
    // as pino does for the destination's own buffer. A batch the destination is still writing
    // asynchronously at that moment can be lost, as it can with pino's destination alone.
    process.on('exit', this.#onExit);
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.atChars) this.#pass();
  }

  /** Hands what waits to the destination and resolves once the destination has written it. */
  flush(done: () => void): void {
    this.#pass();
    this.out.flush(() => done());
  }

  flushSync(): void {
    this.#pass();
    try {
      this.out.flushSync();
    } catch {
      // Not open yet, or already closed: nothing more can be written.
    }
  }

  /** Writes what waits and stops the timer and the exit hook. */
  close(done: () => void): void {
    clearInterval(this.#timer);
    process.off('exit', this.#onExit);
    this.flush(done);
  }

  #pass(): void {
    if (this.#lines.length === 0) return;
    const batch = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.out.write(batch);
  }
}
