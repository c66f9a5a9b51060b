import { describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../embed/hash-embedder.js';
import { ExtractiveSceneSummarizer } from './extractive-scene-summarizer.js';

const cell = (content: string, cellType: 'Risk' | 'Fact' | 'Context' | 'Lesson', salience: number): { nodeId: string; content: string; cellType: typeof cellType; salience: number } => ({
  nodeId: content.slice(0, 8),
  content,
  cellType,
  salience,
});

describe('ExtractiveSceneSummarizer', () => {
  const embedder = new HashEmbedder();

  it('keeps the central, salient sentences within the budget, in original order, without duplicates', async () => {
    const summary = await new ExtractiveSceneSummarizer(embedder, 100).summarize({
      title: 'queue incident',
      cells: [
        cell('The order queue backed up. The order queue workers crashed.', 'Risk', 0.9),
        cell('The weather was nice.', 'Context', 0.1),
        cell('The order queue workers crashed.\nWe restarted the order queue workers.', 'Lesson', 0.7),
      ],
    });
    expect(summary.content.length).toBeLessThanOrEqual(100);
    expect(summary.content).not.toContain('weather');
    expect(summary.content.match(/workers crashed/g)).toHaveLength(1);
    expect(summary.content.indexOf('backed up')).toBeLessThan(summary.content.indexOf('restarted'));
    expect(summary.cellType).toBe('Risk');
    expect(summary.salience).toBe(0.9);
  });

  it('truncates a single over-long sentence to the budget rather than returning nothing', async () => {
    const summary = await new ExtractiveSceneSummarizer(embedder, 20).summarize({
      title: null,
      cells: [cell('An extraordinarily long sentence without any break at all', 'Fact', 0.5)],
    });
    expect(summary.content).toBe('An extraordinarily l');
  });
});
