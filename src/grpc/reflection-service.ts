/**
 * gRPC server reflection, v1 and v1alpha (grpcurl, buf curl, Postman and grpc_cli try one or the
 * other): list_services, file_by_filename and file_containing_symbol from the reflection index.
 * Hyphae defines no extensions, so extension queries answer an empty list or NOT_FOUND.
 */
import { create } from '@bufbuild/protobuf';
import { Code, type ServiceImpl } from '@connectrpc/connect';
import * as v1 from './gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from './gen/grpc/reflection/v1alpha/reflection_pb.js';
import type { ReflectionIndex } from './reflection-index.js';

type RequestCase = v1.ServerReflectionRequest['messageRequest'] | v1alpha.ServerReflectionRequest['messageRequest'];

/** The answer's oneof, the same shape in both versions. */
type Answer =
  | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
  | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } };

const notFound = (what: string): Answer => ({ case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } });

function answer(index: ReflectionIndex, request: RequestCase): Answer {
  switch (request.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: index.services.map((name) => ({ name })) } };
    case 'fileByFilename': {
      const files = index.fileWithDependencies(request.value);
      return files === undefined ? notFound(`file ${request.value}`) : { case: 'fileDescriptorResponse', value: { fileDescriptorProto: files } };
    }
    case 'fileContainingSymbol': {
      const fileName = index.fileNameOfSymbol(request.value);
      const files = fileName === undefined ? undefined : index.fileWithDependencies(fileName);
      return files === undefined ? notFound(`symbol ${request.value}`) : { case: 'fileDescriptorResponse', value: { fileDescriptorProto: files } };
    }
    case 'allExtensionNumbersOfType':
      return index.fileNameOfSymbol(request.value) === undefined
        ? notFound(`type ${request.value}`)
        : { case: 'allExtensionNumbersResponse', value: { baseTypeName: request.value, extensionNumber: [] } };
    case 'fileContainingExtension':
      return notFound(`extension ${request.value.extensionNumber} of ${request.value.containingType}`);
    default:
      return { case: 'errorResponse', value: { errorCode: Code.InvalidArgument, errorMessage: 'empty reflection request' } };
  }
}

export function reflectionServiceV1(index: ReflectionIndex): ServiceImpl<typeof v1.ServerReflection> {
  return {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield create(v1.ServerReflectionResponseSchema, { validHost: request.host, originalRequest: request, messageResponse: answer(index, request.messageRequest) });
      }
    },
  };
}

export function reflectionServiceV1alpha(index: ReflectionIndex): ServiceImpl<typeof v1alpha.ServerReflection> {
  return {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        yield create(v1alpha.ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: answer(index, request.messageRequest),
        });
      }
    },
  };
}
