/**
 * A source's text across export lines (docs/export-format.md, "Lines"): the exporter writes a text
 * longer than one part as the source line holding the first part and `source_text` lines holding
 * the rest; the importer puts it back together, refusing — by line — a sequence that is not the
 * one its source line announced.
 */
import type { ExportSource } from '../../core/export-format.js';
import { SOURCE_TEXT_PART_CHARS, exportSourceTextSchema } from '../../core/export-source-lines.js';
import { badLine, parseLine } from './dump-items.js';

/** The text in parts of at most `partChars` UTF-16 code units, never cutting a surrogate pair in two. */
export function splitSourceText(text: string, partChars: number = SOURCE_TEXT_PART_CHARS): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + partChars, text.length);
    const last = text.charCodeAt(end - 1);
    // A high surrogate last: end the part before it (or, in a part of one unit, after its pair).
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - start > 1 ? -1 : 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/** A source record's lines, each ending in a newline: the source line, then a source_text line per further part. */
export function sourceRecordLines(fields: Readonly<Record<string, unknown>> & { readonly text: string }, partChars: number = SOURCE_TEXT_PART_CHARS): string {
  const [first = '', ...rest] = splitSourceText(fields.text, partChars);
  const head = rest.length === 0 ? { type: 'source', ...fields } : { type: 'source', ...fields, text: first, continuation_lines: rest.length };
  const lines = [JSON.stringify(head)];
  rest.forEach((text, i) => lines.push(JSON.stringify({ type: 'source_text', tenant: fields.tenant, project: fields.project, source_id: fields.source_id, part: i + 1, text })));
  return `${lines.map((line) => `${line}\n`).join('')}`;
}

/** A source line whose text continues, while its source_text lines are read. */
export class SourceTextAssembly {
  private readonly parts: string[];

  constructor(
    private readonly fileName: string,
    readonly line: number,
    private readonly record: ExportSource,
  ) {
    this.parts = [record.text];
  }

  /** How many source_text lines it announced. */
  private get expected(): number {
    return this.record.continuation_lines ?? 0;
  }

  /** Takes the next source_text line (a raw JSON object); true once the text is whole. */
  add(line: number, value: unknown): boolean {
    const part = parseLine(this.fileName, line, exportSourceTextSchema, value, 'source_text line');
    const { tenant, project, source_id: sourceId } = this.record;
    if (part.tenant !== tenant || part.project !== project || part.source_id !== sourceId) {
      throw badLine(this.fileName, line, `a source_text line of ${JSON.stringify([part.tenant, part.project, part.source_id])} continues source ${JSON.stringify([tenant, project, sourceId])} of line ${this.line}: a source's text lines follow its source line, with nothing between`, [{ path: 'source_id', message: 'not the source above' }]);
    }
    const next = this.parts.length;
    if (part.part !== next) throw badLine(this.fileName, line, `source_text part ${part.part} where part ${next} of ${this.expected} of the source of line ${this.line} comes next`, [{ path: 'part', message: `expected ${next}` }]);
    this.parts.push(part.text);
    return this.parts.length - 1 === this.expected;
  }

  /** The source record with its whole text. */
  whole(): ExportSource {
    const { continuation_lines: _parts, ...record } = this.record;
    return { ...record, text: this.parts.join('') };
  }

  /** INVALID_ARGUMENT naming `line`, where something other than the next part came (or the file ended). */
  interrupted(line: number, what: string): Error {
    return badLine(this.fileName, line, `${what} where source_text part ${this.parts.length} of ${this.expected} of the source of line ${this.line} comes next: the source's text is cut short`, [{ path: 'type', message: 'expected source_text' }]);
  }
}
