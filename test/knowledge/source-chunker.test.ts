import { readdirSync, readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { defaultMiniLmModelDir } from '../../src/embed/minilm-model-files.js';
import { chunkConversation, chunkSource, DEFAULT_CHUNK_LIMITS, type SourceChunk } from '../../src/knowledge/source-chunker.js';

const tokenizer = new Tokenizer(JSON.parse(readFileSync(`${defaultMiniLmModelDir()}/tokenizer.json`, 'utf8')) as object, {});
/** Tokens the real MiniLM tokenizer makes of a text, [CLS] and [SEP] included. */
const windowTokens = (text: string): number => tokenizer.encode(text, { add_special_tokens: true }).ids.length;

const repoFile = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

function expectExactRanges(source: string, chunks: readonly SourceChunk[]): void {
  for (const chunk of chunks) {
    expect(source.slice(chunk.start, chunk.end)).toBe(chunk.body);
    expect(chunk.text.endsWith(chunk.body)).toBe(true);
    // A cut never lands between the halves of a surrogate pair.
    expect(isHighSurrogate(source.charCodeAt(chunk.end - 1)), `chunk ${chunk.index} ends inside a pair`).toBe(false);
    expect(chunk.start === 0 || !isHighSurrogate(source.charCodeAt(chunk.start - 1)), `chunk ${chunk.index} starts inside a pair`).toBe(true);
  }
}

const handbook = [
  '# Payments handbook',
  '',
  'How the ledger works.',
  '',
  '## Settlement',
  '',
  'Settlement runs nightly.',
  '',
  '### Retries',
  '',
  '- a failed batch is retried three times',
  '- then paged to on-call',
  '',
  '```ts',
  'export function retry(batch: Batch): void {',
  '',
  '  schedule(batch, { attempts: 3 });',
  '}',
  '```',
  '',
  '## Refunds',
  '',
  'Refunds need two approvals.',
].join('\n');

describe('chunkSource (markdown)', () => {
  it('carries each chunk’s heading path, title first, in the embedded text', () => {
    const chunks = chunkSource(handbook, 'markdown', 'Payments handbook');
    expect(chunks.map((c) => c.path.join(' › '))).toEqual([
      'Payments handbook',
      'Payments handbook › Settlement',
      'Payments handbook › Settlement › Retries',
      'Payments handbook › Refunds',
    ]);
    const retries = chunks[2] as SourceChunk;
    expect(retries.text.startsWith('Payments handbook › Settlement › Retries\n\n### Retries')).toBe(true);
    expectExactRanges(handbook, chunks);
  });

  it('a title other than the first heading heads every path', () => {
    const chunks = chunkSource(handbook, 'markdown', 'Ops');
    expect(chunks[1]?.path).toEqual(['Ops', 'Payments handbook', 'Settlement']);
  });

  it('keeps a code block whole, blank lines inside it included, when it fits', () => {
    const filler = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of the settlement notes explains one more rule of the nightly run.`).join('\n\n');
    const code = '```sql\nSELECT id\n\nFROM batches\nWHERE failed;\n```';
    const source = `# Notes\n\n${filler}\n\n${code}\n\n${filler}`;
    const chunks = chunkSource(source, 'markdown', undefined);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.filter((c) => c.body.includes(code))).toHaveLength(1);
    expect(chunks.filter((c) => c.body.includes('FROM batches') && !c.body.includes(code))).toHaveLength(0);
    expectExactRanges(source, chunks);
  });

  it('cuts a unit too large for the window into overlapping windows', () => {
    const paragraph = Array.from({ length: 120 }, (_, i) => `sentence number ${i} talks about settlement.`).join(' ');
    const chunks = chunkSource(`# Long\n\n${paragraph}`, 'markdown', undefined);
    const windows = chunks.filter((c) => c.body !== '# Long');
    expect(windows.length).toBeGreaterThan(2);
    for (let i = 1; i < windows.length; i += 1) expect((windows[i] as SourceChunk).start).toBeLessThan((windows[i - 1] as SourceChunk).end);
  });

  it('fits every chunk in MiniLM’s 256-token window, measured with its own tokenizer', () => {
    const sources = [
      ...readdirSync(new URL('../../docs/', import.meta.url))
        .filter((name) => name.endsWith('.md'))
        .map((name) => repoFile(`docs/${name}`)),
      repoFile('README.md'),
      repoFile('src/store/cell-repository.ts'),
      repoFile('src/store/migrations/0014_tenant_term_keys.sql'),
      Array.from({ length: 400 }, (_, i) => `${(i * 2654435761).toString(16)}${(i * 40503).toString(36)}`).join(' '),
      Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64'),
      '記憶は共有されるべきです。エージェントは文書を読みます。'.repeat(200),
      'Привет, это документ о памяти агентов. 🙂🚀👍🏽 ∑∫ ß é '.repeat(200),
    ];
    let measured = 0;
    for (const source of sources) {
      for (const format of ['markdown', 'text'] as const) {
        const chunks = chunkSource(source, format, 'Hyphae › a long title that is part of the path');
        expectExactRanges(source, chunks);
        for (const chunk of chunks) {
          expect(windowTokens(chunk.text), chunk.text.slice(0, 80)).toBeLessThanOrEqual(256);
          expect(chunk.end - chunk.start).toBeLessThanOrEqual(DEFAULT_CHUNK_LIMITS.maxChars);
          measured += 1;
        }
      }
    }
    expect(measured).toBeGreaterThan(500);
  });

  it('never splits a multi-byte character, even in a paragraph of emoji with no space', () => {
    const source = '👍🏽🙂🚀é漢'.repeat(2000);
    const chunks = chunkSource(source, 'text', undefined);
    expect(chunks.length).toBeGreaterThan(10);
    expectExactRanges(source, chunks);
    for (const chunk of chunks) expect(chunk.body).toBe(Buffer.from(chunk.body, 'utf8').toString('utf8'));
  });
});

describe('chunkSource (plain text)', () => {
  it('cuts on paragraphs and packs small ones together', () => {
    const source = 'First paragraph.\nStill first.\n\nSecond paragraph.\n\n\nThird.';
    const chunks = chunkSource(source, 'text', 'Memo');
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.body).toBe(source);
    expect(chunks[0]?.text).toBe(`Memo\n\n${source}`);
  });
});

describe('chunkConversation', () => {
  it('renders turns under the user’s name and chunks by turns', () => {
    const turns = Array.from({ length: 30 }, (_, i) => ({ user: `Question ${i} about the nightly settlement run and its retries?`, assistant: `Answer ${i}: it retries three times, then pages on-call.` }));
    const { text, chunks } = chunkConversation(turns, 'Ana', 'Support chat');
    expect(text.startsWith('Ana: Question 0')).toBe(true);
    expect(text).toContain('\nAssistant: Answer 0');
    expect(chunks.length).toBeGreaterThan(1);
    expectExactRanges(text, chunks);
    for (const chunk of chunks) {
      expect(chunk.body.startsWith('Ana: ')).toBe(true);
      expect(chunk.body.endsWith('pages on-call.')).toBe(true);
      expect(chunk.path).toEqual(['Support chat']);
    }
    expect(chunkConversation([{ user: 'hi', assistant: 'hello' }], undefined, undefined).text).toBe('User: hi\nAssistant: hello');
  });
});
