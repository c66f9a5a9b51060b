/**
 * Markdown read for its structure, line by line: ATX headings open sections (their path is the
 * headings above them), fenced code blocks are one unit each, a list is one unit per item, and
 * any other run of non-blank lines is a paragraph. Units are ranges of the source, so a chunk's
 * range always points into the text as it was given.
 */
import type { Section, TextRange } from './chunk-packing.js';

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

interface Line {
  readonly start: number;
  /** End of the line's text, its line break excluded. */
  readonly end: number;
  readonly text: string;
}

function linesOf(source: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < source.length) {
    const newline = source.indexOf('\n', start);
    const end = newline === -1 ? source.length : newline;
    const textEnd = end > start && source.charCodeAt(end - 1) === 13 ? end - 1 : end;
    lines.push({ start, end: textEnd, text: source.slice(start, textEnd) });
    start = end + 1;
  }
  return lines;
}

/** The sections of a markdown text; `title` (the source's) heads every path unless the text's first heading repeats it. */
export function markdownSections(source: string, title: string | undefined): Section[] {
  const sections: { path: readonly string[]; units: TextRange[] }[] = [];
  const headings: { level: number; text: string }[] = [];
  const headingLines = new Set<number>();
  let current: { path: readonly string[]; units: TextRange[] } = { path: title === undefined ? [] : [title], units: [] };
  sections.push(current);
  const lines = linesOf(source);
  let paragraph: TextRange | null = null;
  const endParagraph = (): void => {
    if (paragraph !== null) current.units.push(paragraph);
    paragraph = null;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as Line;
    const fence = FENCE.exec(line.text);
    if (fence !== null) {
      endParagraph();
      const marker = fence[1] as string;
      let close = i + 1;
      while (close < lines.length && !(lines[close] as Line).text.trimStart().startsWith(marker)) close += 1;
      const last = lines[Math.min(close, lines.length - 1)] as Line;
      current.units.push({ start: line.start, end: last.end });
      i = close;
      continue;
    }
    const heading = HEADING.exec(line.text);
    if (heading !== null) {
      endParagraph();
      const level = (heading[1] as string).length;
      const text = (heading[2] ?? '').trim();
      while (headings.length > 0 && (headings.at(-1) as { level: number }).level >= level) headings.pop();
      headings.push({ level, text });
      const names = headings.map((h) => h.text).filter((name) => name !== '');
      const path = title === undefined ? names : names[0] === title ? names : [title, ...names];
      headingLines.add(line.start);
      current = { path, units: [{ start: line.start, end: line.end }] };
      sections.push(current);
      continue;
    }
    if (line.text.trim() === '') {
      endParagraph();
      continue;
    }
    if (LIST_ITEM.test(line.text)) {
      endParagraph();
      paragraph = { start: line.start, end: line.end };
      continue;
    }
    paragraph = paragraph === null ? { start: line.start, end: line.end } : { start: paragraph.start, end: line.end };
  }
  endParagraph();
  // A heading with nothing under it before the next one lives on in the paths below it.
  return sections.filter((section) => section.units.length > 1 || (section.units.length === 1 && !headingLines.has((section.units[0] as TextRange).start)));
}

/** Plain text: one section, a unit per paragraph (runs of non-blank lines). */
export function paragraphSections(source: string, title: string | undefined): Section[] {
  const units: TextRange[] = [];
  let open: TextRange | null = null;
  for (const line of linesOf(source)) {
    if (line.text.trim() === '') {
      if (open !== null) units.push(open);
      open = null;
    } else {
      open = open === null ? { start: line.start, end: line.end } : { start: open.start, end: line.end };
    }
  }
  if (open !== null) units.push(open);
  return units.length === 0 ? [] : [{ path: title === undefined ? [] : [title], units }];
}
