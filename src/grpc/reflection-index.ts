/**
 * What server reflection answers from: the generated file descriptors of the served services and
 * everything they import, indexed by file name and by every fully-qualified symbol (services,
 * methods, messages, fields, enums), each file serialised once as FileDescriptorProto bytes.
 */
import { toBinary, type DescFile, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

export interface ReflectionIndex {
  readonly services: readonly string[];
  /** The file and, after it, every file it imports transitively, as serialised descriptors. */
  fileWithDependencies(fileName: string): Uint8Array[] | undefined;
  fileNameOfSymbol(symbol: string): string | undefined;
}

function indexMessage(message: DescMessage, file: DescFile, symbols: Map<string, string>): void {
  symbols.set(message.typeName, file.name);
  for (const field of message.fields) symbols.set(`${message.typeName}.${field.name}`, file.name);
  for (const oneof of message.oneofs) symbols.set(`${message.typeName}.${oneof.name}`, file.name);
  for (const nested of message.nestedEnums) symbols.set(nested.typeName, file.name);
  for (const nested of message.nestedMessages) indexMessage(nested, file, symbols);
}

export function createReflectionIndex(served: readonly DescFile[]): ReflectionIndex {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (files.has(file.name)) return;
    files.set(file.name, file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const file of served) visit(file);

  const symbols = new Map<string, string>();
  for (const file of files.values()) {
    for (const message of file.messages) indexMessage(message, file, symbols);
    for (const enumeration of file.enums) symbols.set(enumeration.typeName, file.name);
    for (const service of file.services) {
      symbols.set(service.typeName, file.name);
      for (const method of service.methods) symbols.set(`${service.typeName}.${method.name}`, file.name);
    }
  }
  const bytes = new Map([...files.values()].map((file) => [file.name, toBinary(FileDescriptorProtoSchema, file.proto)] as const));

  return {
    services: served.flatMap((file) => file.services.map((service) => service.typeName)),
    fileWithDependencies(fileName): Uint8Array[] | undefined {
      const root = files.get(fileName);
      if (root === undefined) return undefined;
      const names: string[] = [];
      const collect = (file: DescFile): void => {
        if (names.includes(file.name)) return;
        names.push(file.name);
        for (const dependency of file.dependencies) collect(dependency);
      };
      collect(root);
      return names.map((name) => bytes.get(name) ?? new Uint8Array());
    },
    fileNameOfSymbol: (symbol) => symbols.get(symbol.replace(/^\./, '')),
  };
}
