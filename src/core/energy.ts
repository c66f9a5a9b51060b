import type { CellType } from './cell-types.js';

export interface TypeWeight {
  readonly weight: number;
  readonly halfLifeDays: number;
}

export type EnergyTable = Readonly<Record<CellType, TypeWeight>>;

export const DEFAULT_ENERGY_TABLE: EnergyTable = {
  Constraint: { weight: 1.0, halfLifeDays: 90 },
  Decision: { weight: 0.9, halfLifeDays: 60 },
  Risk: { weight: 0.85, halfLifeDays: 30 },
  Lesson: { weight: 0.8, halfLifeDays: 90 },
  Pattern: { weight: 0.75, halfLifeDays: 60 },
  Preference: { weight: 0.7, halfLifeDays: 120 },
  Fact: { weight: 0.6, halfLifeDays: 30 },
  Task: { weight: 0.5, halfLifeDays: 7 },
  Context: { weight: 0.4, halfLifeDays: 3 },
};

const MS_PER_DAY = 86_400_000;

export interface EnergyInput {
  readonly cellType: CellType;
  readonly salience: number;
  readonly hits: number;
  /** When the cell was last reinforced (created, or last returned by recall/query). */
  readonly reinforcedAt: Date;
}

/** energy = w · (0.5 + salience) · 2^(−age/h) · (1 + ln(1 + hits)) (docs/memory-model.md). */
export function computeEnergy(input: EnergyInput, now: Date, table: EnergyTable = DEFAULT_ENERGY_TABLE): number {
  const { weight, halfLifeDays } = table[input.cellType];
  const ageDays = Math.max(0, now.getTime() - input.reinforcedAt.getTime()) / MS_PER_DAY;
  return weight * (0.5 + input.salience) * Math.pow(2, -ageDays / halfLifeDays) * (1 + Math.log1p(Math.max(0, input.hits)));
}

/** How much lower than its threshold a beacon accepts this cell: reach = R · salience · w(type). */
export function computeReach(cellType: CellType, salience: number, reachFactor: number, table: EnergyTable = DEFAULT_ENERGY_TABLE): number {
  return reachFactor * salience * table[cellType].weight;
}

export interface PromotionPolicy {
  readonly threshold: number;
  readonly minHits: number;
}

export const DEFAULT_PROMOTION_POLICY: PromotionPolicy = { threshold: 1.5, minHits: 2 };
