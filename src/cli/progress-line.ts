/** Progress of a long command on stderr: one redrawn line on a terminal, nothing otherwise (scripts read the result). */
export interface ProgressLine {
  update(text: string): void;
  end(): void;
}

const REDRAW_EVERY_MS = 200;

export function progressLine(stream: NodeJS.WriteStream, label: string): ProgressLine {
  let drawn = false;
  let last = 0;
  return {
    update(text: string): void {
      if (!stream.isTTY) return;
      const now = performance.now();
      if (drawn && now - last < REDRAW_EVERY_MS) return;
      last = now;
      stream.write(`\r${label}: ${text}\u001b[K`);
      drawn = true;
    },
    end(): void {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
