/**
 * Reads a text/event-stream body block by block (a block ends at a blank line) and hands each
 * block's lines to `onBlock`, until the server ends the stream or the client aborts the fetch.
 */
export async function readSseBlocks(body: ReadableStream<Uint8Array>, onBlock: (lines: readonly string[]) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let boundary = buffer.indexOf('\n\n');
      while (boundary !== -1) {
        onBlock(buffer.slice(0, boundary).split('\n'));
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf('\n\n');
      }
    }
  } catch {
    // aborted by the client
  }
}
