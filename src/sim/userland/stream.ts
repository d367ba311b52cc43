// Byte streams between the exec transport and commands, and between the commands of a pipeline.
// A Pipe is an async queue of chunks: the writer pushes and ends it, the reader pulls chunks,
// lines or everything. Writes after the reader went away are dropped (like SIGPIPE, quietly).

export interface Output {
  write(data: string | Buffer): void;
}

export interface Input {
  /** The next chunk, or null at end of input. */
  read(): Promise<Buffer | null>;
}

export class Pipe implements Output, Input, AsyncIterable<Buffer> {
  private readonly chunks: Buffer[] = [];
  private waiters: ((b: Buffer | null) => void)[] = [];
  private ended = false;
  private closed = false;

  write(data: string | Buffer): void {
    if (this.ended || this.closed) return;
    const b = typeof data === "string" ? Buffer.from(data) : data;
    if (b.length === 0) return;
    const w = this.waiters.shift();
    if (w) w(b);
    else this.chunks.push(b);
  }

  /** The writer is done: readers get what is buffered, then null. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiters.splice(0)) w(null);
  }

  /** The reader is done: later writes are dropped. */
  close(): void {
    this.closed = true;
    this.chunks.length = 0;
    this.end();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  read(): Promise<Buffer | null> {
    const c = this.chunks.shift();
    if (c) return Promise.resolve(c);
    if (this.ended) return Promise.resolve(null);
    return new Promise((r) => this.waiters.push(r));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const c = await this.read();
      if (c === null) return;
      yield c;
    }
  }
}

/** An input that is already at its end (exec without -i, `< /dev/null`). */
export const EMPTY_INPUT: Input = { read: () => Promise.resolve(null) };

/** An input over fixed bytes (`< file`, here-strings). */
export function bufferInput(data: string | Buffer): Input {
  let left: Buffer | null = typeof data === "string" ? Buffer.from(data) : data;
  return {
    read() {
      const b = left?.length ? left : null;
      left = null;
      return Promise.resolve(b);
    },
  };
}

/** An input over an async iterable (the WebSocket's stdin frames). */
export function iterableInput(src: AsyncIterable<Buffer>): Input {
  const it = src[Symbol.asyncIterator]();
  let done = false;
  return {
    async read() {
      if (done) return null;
      const r = await it.next();
      if (r.done) {
        done = true;
        return null;
      }
      return r.value;
    },
  };
}

export async function readAll(input: Input): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let c = await input.read(); c !== null; c = await input.read()) parts.push(c);
  return Buffer.concat(parts);
}

/** Lines of an input, without their newline; a last line without one is still a line. */
export async function* readLines(input: Input): AsyncGenerator<string> {
  let rest = "";
  for (let c = await input.read(); c !== null; c = await input.read()) {
    rest += c.toString("utf8");
    let i = rest.indexOf("\n");
    while (i >= 0) {
      yield rest.slice(0, i);
      rest = rest.slice(i + 1);
      i = rest.indexOf("\n");
    }
  }
  if (rest) yield rest;
}

/** An output that collects what is written (command substitution, tests). */
export class Collector implements Output {
  private readonly parts: Buffer[] = [];
  write(data: string | Buffer): void {
    this.parts.push(typeof data === "string" ? Buffer.from(data) : data);
  }
  get text(): string {
    return Buffer.concat(this.parts).toString("utf8");
  }
}

export const DISCARD: Output = { write() {} };
