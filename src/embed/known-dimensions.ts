const KNOWN: Readonly<Record<string, number>> = {
  'all-minilm-l6-v2': 384,
  'all-minilm-l6-v2-int8': 384,
  'use-lite-512': 512,
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'all-minilm': 384,
};

/** The vector length of a model we know by id (our own, and common OpenAI/Ollama ones); undefined otherwise. */
export function knownDimension(modelId: string): number | undefined {
  const hash = /^hash-(\d+)-v1(?:-c3)?$/.exec(modelId);
  if (hash) return Number(hash[1]);
  return KNOWN[modelId] ?? KNOWN[modelId.replace(/:latest$/, '')];
}
