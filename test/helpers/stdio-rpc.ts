/**
 * JSON-RPC over a child process's stdio, one message a line, as an MCP host
 * speaks to a local server (the MCP stdio transport): requests with a
 * deadline each, answers matched by id.
 */
import type { ChildProcess } from 'node:child_process';

export interface RpcAnswer {
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export class StdioRpc {
  private nextId = 0;
  private buffer = '';
  private readonly pending = new Map<number, (answer: RpcAnswer) => void>();
  /** Every line the process wrote to stdout that was not an answer (notifications, server requests). */
  readonly others: unknown[] = [];

  constructor(private readonly child: ChildProcess) {
    child.stdout!.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line) this.receive(line);
      }
    });
  }

  private receive(line: string): void {
    let message: { id?: unknown; method?: unknown };
    try {
      message = JSON.parse(line) as { id?: unknown; method?: unknown };
    } catch {
      this.others.push(line);
      return;
    }
    const waiter = typeof message.id === 'number' && message.method === undefined ? this.pending.get(message.id) : undefined;
    if (!waiter) {
      this.others.push(message);
      return;
    }
    this.pending.delete(message.id as number);
    waiter(message as RpcAnswer);
  }

  /** Sends a request; rejects when no answer comes within `timeoutMs` or the process exits. */
  request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<RpcAnswer> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        this.pending.delete(id);
        clearTimeout(timer);
        this.child.off('exit', onExit);
        reject(new Error(`${method}: ${why}`));
      };
      const onExit = (code: number | null) => fail(`the process exited (${code}) before answering`);
      const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
      this.child.once('exit', onExit);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        this.child.off('exit', onExit);
        resolve(answer);
      });
      this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }
}
