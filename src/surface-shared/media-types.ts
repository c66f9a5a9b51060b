/** Reading `Content-Type` and `Accept`: the media type of a value or of one range, without parameters. */
export function mediaType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

function ranges(accept: string | readonly string[] | undefined): string[] {
  if (accept === undefined) return [];
  return (typeof accept === 'string' ? accept : accept.join(',')).split(',');
}

/**
 * Whether Accept allows a Server-Sent Events answer. `wildcards`: whether `text/*` and `*\/*` count.
 * They do where the request itself decides the answer is a stream (an MCP subscriptions/listen);
 * they do not where Accept is what asks for the stream (GET /mcp, which a browser or curl sends with `*\/*`).
 */
export function acceptsEventStream(accept: string | readonly string[] | undefined, options: { readonly wildcards: boolean }): boolean {
  return ranges(accept).some((range) => {
    const type = mediaType(range);
    return type === 'text/event-stream' || (options.wildcards && (type === 'text/*' || type === '*/*'));
  });
}
