// A small typed builder for structural OpenAPI v3 schemas: each builder returns the JSON the
// API server needs plus a phantom TypeScript type, so the CRD and the operator's types come
// from one definition and cannot drift apart.

export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchemaProps>;
  required?: string[];
  items?: JsonSchemaProps;
  additionalProperties?: JsonSchemaProps;
  enum?: readonly string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  maxItems?: number;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: CelRule[];
  anyOf?: JsonSchemaProps[];
}

export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/** `D` records whether the API server fills the field in (a default), making it non-optional. */
export interface Schema<T, D extends boolean = false> {
  readonly json: JsonSchemaProps;
  readonly defaulted: D;
  /** Phantom: never set at runtime, only carries the type. */
  readonly _type?: T;
}

export type Infer<S> = S extends Schema<infer T, boolean> ? T : never;

interface Common<T> {
  description?: string;
  default?: T;
}

type Defaulted<O> = O extends { default: unknown } ? true : false;

function build<T, D extends boolean>(json: JsonSchemaProps, hasDefault: D): Schema<T, D> {
  return { json, defaulted: hasDefault };
}

function common<T>(opts: Common<T> | undefined): JsonSchemaProps {
  const out: JsonSchemaProps = {};
  if (opts?.description !== undefined) out.description = opts.description;
  if (opts?.default !== undefined) out.default = opts.default;
  return out;
}

export interface StringOptions extends Common<string> {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export function string<O extends StringOptions>(opts?: O): Schema<string, Defaulted<O>> {
  const json: JsonSchemaProps = { type: 'string', ...common(opts) };
  if (opts?.minLength !== undefined) json.minLength = opts.minLength;
  if (opts?.maxLength !== undefined) json.maxLength = opts.maxLength;
  if (opts?.pattern !== undefined) json.pattern = opts.pattern;
  return build(json, (opts?.default !== undefined) as Defaulted<O>);
}

export function enumOf<const V extends readonly string[], O extends Common<V[number]>>(
  values: V,
  opts?: O,
): Schema<V[number], Defaulted<O>> {
  return build({ type: 'string', enum: values, ...common(opts) }, (opts?.default !== undefined) as Defaulted<O>);
}

export interface IntegerOptions extends Common<number> {
  minimum?: number;
  maximum?: number;
}

export function integer<O extends IntegerOptions>(opts?: O): Schema<number, Defaulted<O>> {
  const json: JsonSchemaProps = { type: 'integer', format: 'int32', ...common(opts) };
  if (opts?.minimum !== undefined) json.minimum = opts.minimum;
  if (opts?.maximum !== undefined) json.maximum = opts.maximum;
  return build(json, (opts?.default !== undefined) as Defaulted<O>);
}

export function int64(opts?: { description?: string; minimum?: number }): Schema<number> {
  const json: JsonSchemaProps = { type: 'integer', format: 'int64', ...common(opts) };
  if (opts?.minimum !== undefined) json.minimum = opts.minimum;
  return build(json, false);
}

export function boolean<O extends Common<boolean>>(opts?: O): Schema<boolean, Defaulted<O>> {
  return build({ type: 'boolean', ...common(opts) }, (opts?.default !== undefined) as Defaulted<O>);
}

/** A Kubernetes resource quantity ("500m", "1Gi", 2): the int-or-string form core types use. */
export function quantity<O extends Common<string>>(opts?: O): Schema<string | number, Defaulted<O>> {
  return build(
    {
      ...common(opts),
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
      'x-kubernetes-int-or-string': true,
    },
    (opts?.default !== undefined) as Defaulted<O>,
  );
}

/** An RFC 3339 timestamp, as metav1.Time serialises. */
export function dateTime(opts?: { description?: string }): Schema<string> {
  return build({ type: 'string', format: 'date-time', ...common(opts) }, false);
}

export interface MapOptions<T> extends Common<Record<string, T>> {
  /** Bounds the entries, which CEL rules over the map need to stay within the API server's cost budget. */
  maxProperties?: number;
}

export function map<T, O extends MapOptions<T> = MapOptions<T>>(values: Schema<T, boolean>, opts?: O): Schema<Record<string, T>, Defaulted<O>> {
  const bound = opts?.maxProperties === undefined ? {} : { maxProperties: opts.maxProperties };
  return build({ type: 'object', ...common(opts), ...bound, additionalProperties: values.json }, (opts?.default !== undefined) as Defaulted<O>);
}

/** An object whose contents the API server keeps as given (e.g. an EnvVarSource). */
export function opaqueObject(opts?: { description?: string }): Schema<Record<string, unknown>> {
  return build({ type: 'object', ...common(opts), 'x-kubernetes-preserve-unknown-fields': true }, false);
}

export interface ArrayOptions {
  description?: string;
  maxItems?: number;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

export function array<T>(items: Schema<T, boolean>, opts?: ArrayOptions): Schema<T[]> {
  const json: JsonSchemaProps = { type: 'array', ...common(opts), items: items.json };
  if (opts?.maxItems !== undefined) json.maxItems = opts.maxItems;
  if (opts?.listType !== undefined) json['x-kubernetes-list-type'] = opts.listType;
  if (opts?.listMapKeys !== undefined) json['x-kubernetes-list-map-keys'] = opts.listMapKeys;
  return build(json, false);
}

type Shape = Record<string, Schema<unknown, boolean>>;
type KeysWhere<P extends Shape, R extends PropertyKey, Want extends boolean> = {
  [K in keyof P]: (K extends R ? true : P[K] extends Schema<unknown, true> ? true : false) extends Want ? K : never;
}[keyof P];
type Prettify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<P extends Shape, R extends PropertyKey> = Prettify<
  { [K in KeysWhere<P, R, true>]: Infer<P[K]> } & { [K in KeysWhere<P, R, false>]?: Infer<P[K]> }
>;

export interface ObjectOptions<R> {
  description?: string;
  required?: readonly R[];
  validations?: CelRule[];
  /**
   * Default the whole object (to its fields' defaults) so they apply when a user omits the
   * parent: the API server only defaults inside objects that exist.
   */
  defaultEmpty?: boolean;
}

export function object<P extends Shape, R extends keyof P & string = never, O extends ObjectOptions<R> = ObjectOptions<R>>(
  properties: P,
  opts?: O & ObjectOptions<R>,
): Schema<ObjectOf<P, R>, O extends { defaultEmpty: true } ? true : false> {
  const json: JsonSchemaProps = { type: 'object', ...common(opts) };
  json.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.json]));
  if (opts?.required && opts.required.length > 0) json.required = [...opts.required];
  if (opts?.validations && opts.validations.length > 0) json['x-kubernetes-validations'] = opts.validations;
  // The default is the object with its fields' defaults filled in, not `{}`: the API server
  // checks a default against the object's CEL rules without defaulting inside it first.
  if (opts?.defaultEmpty === true) json.default = fill(json, {});
  return build(json, (opts?.defaultEmpty === true) as O extends { defaultEmpty: true } ? true : false);
}

/**
 * Fill in defaults the way the API server does (a default applies to an absent field inside an
 * object that exists), so pure functions see the same spec whether or not it came from the server.
 */
export function applyDefaults<T>(schema: JsonSchemaProps, value: unknown): T {
  return fill(schema, value) as T;
}

function fill(schema: JsonSchemaProps, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (schema.type === 'object' && schema.properties && isRecord(value)) {
    const out: Record<string, unknown> = { ...value };
    for (const [key, prop] of Object.entries(schema.properties)) {
      if (out[key] === undefined && prop.default !== undefined) out[key] = structuredClone(prop.default);
      if (out[key] !== undefined) out[key] = fill(prop, out[key]);
    }
    return out;
  }
  if (schema.type === 'object' && schema.additionalProperties && isRecord(value)) {
    const inner = schema.additionalProperties;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(inner, v)]));
  }
  if (schema.type === 'array' && schema.items && Array.isArray(value)) {
    const inner = schema.items;
    return value.map((v: unknown) => fill(inner, v));
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
