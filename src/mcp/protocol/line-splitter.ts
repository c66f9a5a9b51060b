/** Splits a byte stream into newline-delimited messages, refusing lines past a size limit. */
export interface LineSink {
  line(text: string): void;
  /** A line grew past the limit; its bytes up to the next newline are dropped. */
  oversized(): void;
}

export class LineSplitter {
  private buffered = '';
  private discarding = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineChars: number,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, newline);
      start = newline + 1;
      if (this.discarding) {
        this.discarding = false;
        this.buffered = '';
        continue;
      }
      const line = this.buffered + piece;
      this.buffered = '';
      if (line.length > this.maxLineChars) this.sink.oversized();
      else this.emit(line);
    }
    if (this.discarding) return;
    this.buffered += chunk.slice(start);
    if (this.buffered.length > this.maxLineChars) {
      this.buffered = '';
      this.discarding = true;
      this.sink.oversized();
    }
  }

  /** End of input: a last line without its newline still counts. */
  end(): void {
    if (!this.discarding) this.emit(this.buffered);
    this.buffered = '';
    this.discarding = false;
  }

  private emit(line: string): void {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim() !== '') this.sink.line(trimmed);
  }
}
