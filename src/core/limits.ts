/** Size limits of stored text, in UTF-8 bytes (docs/security.md). */
export const MAX_CONTENT_BYTES = 32 * 1024;
export const MAX_METADATA_BYTES = 16 * 1024;
export const PREVIEW_CHARS = 280;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
