/**
 * How cells and diffs look as MCP resources: descriptors for resources/list and resource_link
 * blocks, and the two representations resources/read returns (markdown with a provenance line,
 * and the full node as JSON).
 */
import type { Diff, MemoryNode } from '../../../core/entities.js';
import { cellUri } from './resource-uris.js';
import { clip } from './short-text.js';

export const CELL_MIME_TYPE = 'text/markdown';
const TITLE_CHARS = 80;
const DESCRIPTION_CHARS = 200;

/** What a resource descriptor or link says about one cell, before the revision decides which fields go out. */
export interface CellLink {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly salience: number;
  readonly lastModified?: string;
  /** Default: a cell's markdown. */
  readonly mimeType?: string;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.trim();
}

function shortName(cellType: string, nodeId: string): string {
  return `${cellType.toLowerCase()}-${nodeId.slice(0, 8)}`;
}

export function linkToNode(node: MemoryNode): CellLink {
  const line = firstLine(node.content);
  return {
    uri: cellUri(node.node_id),
    name: shortName(node.cell_type, node.node_id),
    title: `${node.cell_type}: ${clip(line, TITLE_CHARS)}`,
    description: clip(line, DESCRIPTION_CHARS),
    salience: node.salience,
    lastModified: node.updated_at,
  };
}

export function linkToDiff(diff: Diff): CellLink {
  const line = firstLine(diff.preview);
  return {
    uri: cellUri(diff.node_id),
    name: shortName(diff.cell_type, diff.node_id),
    title: `${diff.cell_type}: ${clip(line, TITLE_CHARS)}`,
    description: clip(`${diff.op} by ${diff.source_agent}: ${line}`, DESCRIPTION_CHARS),
    salience: diff.salience,
  };
}

/** Links for the cells diffs name: one per cell, none for a deleted cell (its resource is gone). */
export function linksToDiffs(diffs: readonly Diff[]): CellLink[] {
  const seen = new Set<string>();
  const links: CellLink[] = [];
  for (const diff of diffs) {
    if (diff.op === 'deleted' || seen.has(diff.node_id)) continue;
    seen.add(diff.node_id);
    links.push(linkToDiff(diff));
  }
  return links;
}

/** The provenance line under a cell's content: type, layer, agent, project, time, source. */
export function provenanceLine(node: MemoryNode): string {
  const parts = [
    `${node.cell_type} (${node.layer})`,
    `by ${node.source_agent}`,
    `project ${node.project}`,
    node.created_at,
    ...(node.source_ref === null ? [] : [`source ${node.source_ref.kind} ${node.source_ref.locator}`]),
  ];
  return `— ${parts.join(' · ')}`;
}

export function cellMarkdown(node: MemoryNode): string {
  return `${node.content}\n\n${provenanceLine(node)}\n`;
}
