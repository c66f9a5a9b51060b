/** How a scene's cells become the content of its L1 consolidation. An LLM summariser can implement it too. */
import type { CellType } from '../../core/cell-types.js';

export interface SummaryInputCell {
  readonly nodeId: string;
  readonly content: string;
  readonly cellType: CellType;
  readonly salience: number;
}

export interface SceneSummaryInput {
  readonly title: string | null;
  /** The scene's L0 cells, oldest first. */
  readonly cells: readonly SummaryInputCell[];
}

export interface SceneSummary {
  readonly content: string;
  readonly cellType: CellType;
  readonly salience: number;
}

export interface SceneSummarizer {
  summarize(input: SceneSummaryInput): Promise<SceneSummary>;
}
