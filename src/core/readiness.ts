/**
 * One dependency that readiness reports on: the app builds the list, `/readyz`, gRPC health and the
 * dependency gauges read it. One shape, named once (docs/architecture.md, the glossary).
 */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency is reachable; rejects (or outlives the timeout) when not. */
  check(): Promise<void>;
}
