// The restricted Pod Security Standard (https://kubernetes.io/docs/concepts/security/pod-security-standards/)
// checked field by field on a pod spec, plus a rule this project adds (a read-only root
// filesystem), and a separate check for resource requests.

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
}

interface Container {
  name: string;
  securityContext?: SecurityContext;
  resources?: { requests?: Record<string, unknown> };
  ports?: Array<{ hostPort?: number }>;
}

export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<Record<string, unknown> & { name: string }>;
}

const ALLOWED_VOLUME_TYPES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const ALLOWED_SECCOMP = new Set(['RuntimeDefault', 'Localhost']);

/** Every violation, as "<container>: <rule>"; empty when the pod is restricted-compliant. */
export function restrictedViolations(pod: PodSpec): string[] {
  const out: string[] = [];
  const psc = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) out.push('pod: host namespaces');
  for (const v of pod.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (!type || !ALLOWED_VOLUME_TYPES.has(type)) out.push(`pod: volume ${v.name} of type ${type ?? 'none'}`);
  }
  if (psc.runAsUser === 0) out.push('pod: runAsUser 0');
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    const sc = c.securityContext ?? {};
    const where = `${c.name}:`;
    if (sc.privileged === true) out.push(`${where} privileged`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${where} allowPrivilegeEscalation is not false`);
    if ((sc.runAsNonRoot ?? psc.runAsNonRoot) !== true) out.push(`${where} runAsNonRoot is not true`);
    if ((sc.runAsUser ?? psc.runAsUser) === 0) out.push(`${where} runAsUser 0`);
    if (!ALLOWED_SECCOMP.has(sc.seccompProfile?.type ?? psc.seccompProfile?.type ?? '')) out.push(`${where} seccompProfile is not RuntimeDefault/Localhost`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`${where} capabilities do not drop ALL`);
    for (const cap of sc.capabilities?.add ?? []) if (cap !== 'NET_BIND_SERVICE') out.push(`${where} adds capability ${cap}`);
    if ((c.ports ?? []).some((p) => p.hostPort !== undefined && p.hostPort !== 0)) out.push(`${where} hostPort`);
    if (sc.readOnlyRootFilesystem !== true) out.push(`${where} readOnlyRootFilesystem is not true`);
  }
  return out;
}

/** Names of containers without resource requests (init containers too when asked). */
export function containersWithoutRequests(pod: PodSpec, withInit = true): string[] {
  const all = [...(withInit ? (pod.initContainers ?? []) : []), ...pod.containers];
  return all.filter((c) => Object.keys(c.resources?.requests ?? {}).length === 0).map((c) => c.name);
}

/** The pod template of a workload object (Deployment, StatefulSet, CronJob, …), if it has one. */
export function podSpecOf(obj: { kind: string; spec?: unknown }): PodSpec | undefined {
  const spec = obj.spec as { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } } | undefined;
  return spec?.template?.spec ?? spec?.jobTemplate?.spec?.template?.spec;
}
