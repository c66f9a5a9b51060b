/**
 * Protobuf messages ↔ the facade's snake_case shapes, through the proto3 JSON mapping with the
 * proto field names: a request becomes the very object REST would have parsed from its body (unset
 * optional fields absent, so the shared zod schemas apply their defaults), and a facade result
 * becomes a message with unknown fields ignored and nulls unset.
 */
import { fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { InvalidArgumentError } from '../core/errors.js';

export function fieldsOf<D extends DescMessage>(schema: D, message: MessageShape<D>): Record<string, unknown> {
  try {
    return toJson(schema, message, { useProtoFieldName: true }) as Record<string, unknown>;
  } catch (error) {
    // e.g. a google.protobuf.Value holding NaN, which has no JSON form.
    throw new InvalidArgumentError(`invalid request: ${error instanceof Error ? error.message : 'unrepresentable value'}`, [
      { path: '(message)', message: 'holds a value with no JSON form' },
    ]);
  }
}

export function messageOf<D extends DescMessage>(schema: D, value: unknown): MessageShape<D> {
  return fromJson(schema, value as JsonValue, { ignoreUnknownFields: true });
}
