/**
 * The embedding request/reply protocol between API pods and `hyphae worker` over NATS
 * (see docs/embeddings.md): JSON both ways, vectors as base64 of little-endian float32.
 */
import { z } from 'zod';

export const EMBED_QUEUE_GROUP = 'hyphae-embed-workers';
/** Texts one request may carry: 128 vectors of 512 float32 in base64 are ~350 KB, under NATS' 1 MiB default payload. */
export const EMBED_MAX_TEXTS_PER_REQUEST = 128;

/** `hyphae.embed.<model id>`; characters NATS reserves in subjects ('.', '*', '>', whitespace) are %-escaped. */
export function embedSubject(modelId: string): string {
  const token = modelId.replace(/[.*>\s%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `hyphae.embed.${token}`;
}

export const embedRequestSchema = z.strictObject({
  texts: z.array(z.string()).min(1).max(EMBED_MAX_TEXTS_PER_REQUEST),
});
export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const embedReplySchema = z.union([
  z.strictObject({
    model: z.string(),
    dimension: z.int().positive(),
    vectors: z.array(z.string()),
  }),
  z.strictObject({
    error: z.strictObject({ code: z.string(), message: z.string() }),
  }),
]);
export type EmbedReply = z.infer<typeof embedReplySchema>;

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

/** Decodes base64 float32; copies into a fresh buffer since Buffer's pooled memory may be misaligned for Float32Array. */
export function decodeVector(encoded: string): Float32Array {
  const bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
  if (bytes.byteLength % 4 !== 0) return new Float32Array(0);
  return new Float32Array(bytes.buffer, 0, bytes.byteLength / 4);
}
