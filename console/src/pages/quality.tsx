/**
 * Quality: recall measured on real traffic (docs/feedback.md). From the tenant's judged requests
 * (feedback with ground truth): recall@1, recall@5, MRR and the share not surfaced per day and
 * sender label, drawn as a curve, and the worst-judged requests — the query, what was returned and
 * what was true (GET /v1/feedback/quality; an admin key).
 */
import type { JSX } from 'preact';
import type { FeedbackQuality } from '../api/wire.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { useLoad } from '../components/use-load.js';
import { formatInstant } from '../format.js';
import { cellHref } from '../router.js';
import { useSession } from '../session.js';

const DAYS = 14;
const WIDTH = 480;
const HEIGHT = 120;

type Day = FeedbackQuality['days'][number];
const SERIES = [
  ['recall_at_1', 'recall@1'],
  ['recall_at_5', 'recall@5'],
  ['mrr', 'MRR'],
  ['not_surfaced', 'not surfaced'],
] as const;

/** One polyline per measure over the days shown, 0 at the bottom and 1 at the top. */
function QualityCurve({ days, label }: { readonly days: readonly Day[]; readonly label: string }): JSX.Element {
  const step = days.length > 1 ? WIDTH / (days.length - 1) : 0;
  return (
    <figure class="quality-curve">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Quality of ${label} feedback per day`}>
        {SERIES.map(([field, name]) => (
          <polyline key={field} class={`series-${field}`} fill="none" points={days.map((day, i) => `${(i * step).toFixed(1)},${((1 - day[field]) * HEIGHT).toFixed(1)}`).join(' ')}>
            <title>{name}</title>
          </polyline>
        ))}
      </svg>
      <figcaption>{label} feedback: {SERIES.map(([, name]) => name).join(', ')} per day (0 at the bottom, 1 at the top)</figcaption>
    </figure>
  );
}

const percent = (value: number): string => `${(value * 100).toFixed(0)}%`;

export function QualityPage(): JSX.Element {
  const { api } = useSession();
  const loaded = useLoad(() => api.get<FeedbackQuality>('/v1/feedback/quality', { days: DAYS, worst: 10 }), ['quality']);
  const days = loaded.data?.days ?? [];
  const labels = [...new Set(days.map((day) => day.label))];
  return (
    <div class="page">
      <h1>Quality</h1>
      <p class="help">Recall on the requests agents and people judged with ground truth, the last {DAYS} days (UTC).</p>
      <Loading when={loaded.loading && loaded.data === undefined} />
      <ErrorNotice error={loaded.error} what="Reading the quality" />
      {loaded.data !== undefined && days.length === 0 ? <p class="empty">No request was judged with ground truth in these days.</p> : null}
      {labels.map((label) => (
        <QualityCurve key={label} label={label} days={days.filter((day) => day.label === label)} />
      ))}
      {days.length > 0 ? (
        <table aria-label="Quality per day">
          <thead>
            <tr>
              <th>day</th>
              <th>sender</th>
              <th>judged</th>
              <th>recall@1</th>
              <th>recall@5</th>
              <th>MRR</th>
              <th>not surfaced</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={`${day.day}-${day.label}`}>
                <td>{day.day}</td>
                <td>{day.label}</td>
                <td>{day.judged}</td>
                <td>{percent(day.recall_at_1)}</td>
                <td>{percent(day.recall_at_5)}</td>
                <td>{day.mrr.toFixed(2)}</td>
                <td>{percent(day.not_surfaced)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {(loaded.data?.worst.length ?? 0) > 0 ? <h2>Worst judged</h2> : null}
      <ol class="worst-judged" aria-label="Worst-judged requests">
        {(loaded.data?.worst ?? []).map((worst) => (
          <li key={`${worst.request_id}-${worst.created_at}`}>
            <p>
              <strong>{worst.query ?? '(query kept as a hash only)'}</strong> — {worst.truth_rank === null ? 'truth not surfaced' : `truth at rank ${worst.truth_rank}`}, judged by {worst.agent} ({worst.label}) {formatInstant(worst.created_at)}
            </p>
            <p>
              Returned:{' '}
              {worst.returned.length === 0
                ? 'nothing'
                : worst.returned.map((id, i) => (
                    <a key={id} href={cellHref(id)}>
                      {i + 1}. {id.slice(0, 8)}{' '}
                    </a>
                  ))}
            </p>
            <p>True: {worst.truth.join(', ')}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}
