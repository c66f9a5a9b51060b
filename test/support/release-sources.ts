// What the release's tests compare: the release workflow's registries and images, the commands
// between the `<!-- release:NAME -->` markers of README.md and docs/helm.md, and the image table
// of docs/helm.md. Read from the files themselves, so a test follows every edit of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const DOCS_WITH_RELEASE_BLOCKS = ['README.md', 'docs/helm.md'];
/** X.Y.Z (with an optional pre-release) not inside a longer dotted number. */
export const VERSION_IN_TEXT = /(?<![\d.])\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\d.])/g;

export function readRepoFile(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

export function packageVersion(): string {
  return (JSON.parse(readRepoFile('package.json')) as { version: string }).version;
}

/** The text between `<!-- release:NAME -->` and `<!-- /release:NAME -->`, by NAME. */
export function releaseBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/<!-- release:([\w-]+) -->([\s\S]*?)<!-- \/release:\1 -->/g)) {
    blocks.set(m[1] as string, m[2] as string);
  }
  return blocks;
}

/** The shell commands of a block's fenced code, continuation lines joined, comments dropped, split into words. */
export function shellCommands(block: string): string[][] {
  const code = [...block.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1] as string).join('\n');
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '')
    .map(shellWords);
}

/** Words of one command line: whitespace-separated, single and double quotes removed. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g)) words.push(m[0].replace(/'([^']*)'|"([^"]*)"/g, '$1$2'));
  return words;
}

/** The value of a flag given as `--flag value`, `--flag=value` or one of its short forms. */
export function flagValues(words: readonly string[], ...names: string[]): string[] {
  const values: string[] = [];
  words.forEach((w, i) => {
    for (const name of names) {
      if (w === name && words[i + 1] !== undefined) values.push(words[i + 1] as string);
      else if (w.startsWith(`${name}=`)) values.push(w.slice(name.length + 1));
    }
  });
  return values;
}

export interface ReleaseImage {
  name: string;
  file: string;
  context: string;
}

export interface ReleaseWorkflow {
  registry: string;
  chartRegistry: string;
  platforms: string[];
  images: ReleaseImage[];
  /** The tags the build step pushes, with the version substituted. */
  tagsFor(version: string): string[];
  /** The `helm push` destination of the chart job. */
  chartPush: string;
}

interface WorkflowStep {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
}

export function releaseWorkflow(): ReleaseWorkflow {
  const wf = parse(readRepoFile('.github/workflows/release.yml')) as {
    env: Record<string, string>;
    jobs: Record<string, { steps?: WorkflowStep[]; strategy?: { matrix: { include: ReleaseImage[] } } }>;
  };
  const imagesJob = wf.jobs.images;
  const build = imagesJob?.steps?.find((s) => s.uses?.startsWith('docker/build-push-action@'));
  if (!imagesJob?.strategy || !build?.with) throw new Error('release.yml: no images job with a docker/build-push-action step');
  const images = imagesJob.strategy.matrix.include;
  const registry = wf.env.REGISTRY as string;
  const chartRegistry = wf.env.CHART_REGISTRY as string;
  const tagsTemplate = String(build.with.tags);
  const push = (wf.jobs.chart?.steps ?? []).map((s) => s.run ?? '').join('\n').match(/helm push \S+ "?(oci:\/\/[^"\s]+)"?/);
  return {
    registry,
    chartRegistry,
    platforms: String(build.with.platforms).split(',').map((p) => p.trim()),
    images,
    tagsFor: (version) =>
      images.flatMap((image) =>
        tagsTemplate
          .split(/[\n,]/)
          .map((t) => t.trim())
          .filter((t) => t !== '')
          .map((t) =>
            t
              .replace(/\$\{\{\s*env\.REGISTRY\s*\}\}/g, registry)
              .replace(/\$\{\{\s*matrix\.name\s*\}\}/g, image.name)
              .replace(/\$\{\{\s*needs\.version\.outputs\.version\s*\}\}/g, version),
          ),
      ),
    chartPush: (push?.[1] ?? '').replace(/\$\{CHART_REGISTRY\}|\$CHART_REGISTRY/, chartRegistry),
  };
}

/** A reference with Docker Hub's implicit registry and `library/` written out. */
export function canonicalImage(ref: string): string {
  const first = ref.split('/')[0] as string;
  const hasRegistry = ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return ref;
  return `docker.io/${ref.includes('/') ? ref : `library/${ref}`}`;
}

export interface DocumentedImage {
  image: string;
  fromReleasePipeline: boolean;
}

/** docs/helm.md's image table (the `images` release block): each image and who makes it. */
export function documentedImages(): DocumentedImage[] {
  const block = releaseBlocks(readRepoFile('docs/helm.md')).get('images') ?? '';
  return [...block.matchAll(/^\| `([^`]+)` \|[^\n]*\| ([^|\n]+) \|$/gm)].map((m) => ({
    image: canonicalImage(m[1] as string),
    fromReleasePipeline: (m[2] as string).includes('release pipeline'),
  }));
}
