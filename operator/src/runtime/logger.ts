// Structured JSON-lines logging to stderr; tests pass a silent logger.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function jsonLogger(minLevel: LogLevel = 'info', component = 'operator'): Logger {
  return (level, msg, fields) => {
    if (RANK[level] < RANK[minLevel]) return;
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, component, msg, ...fields }) + '\n');
  };
}

export const silentLogger: Logger = () => undefined;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
