/** Size limits of SPEC §1, in UTF-8 bytes. */
export const MAX_CONTENT_BYTES = 32 * 1024;
export const MAX_METADATA_BYTES = 16 * 1024;
export const PREVIEW_CHARS = 280;
export const MAX_PAGE_SIZE = 500;

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
