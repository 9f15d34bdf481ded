/**
 * At most `size` tasks at once; the others wait their turn in order. A
 * waiter whose signal aborts leaves the line without running (and is
 * rejected with the signal's reason); a task that has started holds its
 * place until it settles, however long that is, which is the point: it
 * bounds work that cannot be cancelled.
 */
export class Slots {
  private busy = 0;
  private readonly line: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.enter(signal);
    try {
      return await task();
    } finally {
      this.busy--;
      this.line.shift()?.();
    }
  }

  private enter(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.busy < this.size) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        this.busy++;
        resolve();
      };
      const leave = () => {
        this.line.splice(this.line.indexOf(turn), 1);
        reject(signal.reason);
      };
      this.line.push(turn);
      // A signal aborts once, and a waiter that got its turn has removed this.
      signal.addEventListener('abort', leave);
    });
  }
}
