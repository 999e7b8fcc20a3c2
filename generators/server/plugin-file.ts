/** `plugin.gen.ts`: the runtime plugin bound to this spec's route table, schemas and handler types. */
import { StructureKind, type StatementStructures } from 'ts-morph';
import { printFile, quote } from '../core/print.js';
import type { ServerContext } from './context.js';

/** Renders `plugin.gen.ts`. */
export function renderPluginFile(ctx: ServerContext): string {
  const statements: Array<string | StatementStructures> = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: 'fastify', isTypeOnly: true, namedImports: [{ name: 'FastifyInstance' }] },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './handlers.gen.js', isTypeOnly: true, namedImports: [{ name: 'CardApiHandlers' }] },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './routes.gen.js', namedImports: [{ name: 'componentSchemas' }, { name: 'routes' }] },
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: './runtime/index.js',
      namedImports: [{ name: 'AuthResult', isTypeOnly: true }, { name: 'CardApiOptions', isTypeOnly: true }, { name: 'createCardApiPlugin' }],
    },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './spec.gen.js', namedImports: [{ name: 'openapiYaml' }] },
    `\nconst plugin = createCardApiPlugin({ title: ${quote(ctx.model.title)}, routes, schemas: [componentSchemas], openapiYaml });`,
    {
      kind: StructureKind.Function,
      name: 'cardApi',
      isExported: true,
      typeParameters: [{ name: 'Auth', constraint: 'AuthResult', default: 'AuthResult' }],
      parameters: [
        { name: 'instance', type: 'FastifyInstance' },
        { name: 'options', type: 'CardApiOptions<CardApiHandlers<Auth>, Auth>' },
      ],
      returnType: 'Promise<void>',
      docs: [
        [
          `The ${ctx.model.title} as a Fastify plugin: every operation with its spec schemas, bearer auth,`,
          'rate limits, D2 error bodies, `/openapi.yaml` and `/docs`.',
          '',
          '@example',
          "await app.register(cardApi, { prefix: '/api/v1', handlers, authenticate: (token) => tokens.get(token) ?? null });",
        ].join('\n'),
      ],
      statements: ['return plugin(instance, options);'],
    },
  ];
  return printFile(statements);
}
