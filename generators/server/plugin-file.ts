/** `plugin.gen.ts`: the runtime plugin bound to this spec's route table, schemas and handler types. */
import type { StatementStructures } from 'ts-morph';
import { StructureKind, VariableDeclarationKind } from '../core/ts-morph.js';
import { docText, stringLiteral } from '../core/escape.js';
import { printFile } from '../core/print.js';
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
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './spec.gen.js', namedImports: [{ name: 'docsOutline' }, { name: 'openapiYaml' }] },
    `\nconst plugin = createCardApiPlugin({ title: ${stringLiteral(ctx.model.title)}, routes, schemas: [componentSchemas], openapiYaml, outline: docsOutline${
      ctx.customFormats.length > 0 ? `, formats: [${ctx.customFormats.map((f) => stringLiteral(f)).join(', ')}]` : ''
    } });`,
    {
      kind: StructureKind.TypeAlias,
      name: 'CardApiPlugin',
      isExported: true,
      typeParameters: [{ name: 'Auth', constraint: 'AuthResult', default: 'AuthResult' }],
      docs: ['The plugin, typed for the `Auth` your `authenticate` returns.'],
      type: '(instance: FastifyInstance, options: CardApiOptions<CardApiHandlers<Auth>, Auth>) => Promise<void>',
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [
        docText([
          `The ${ctx.model.title} as a Fastify plugin: every operation with its spec schemas, bearer auth,`,
          'rate limits, D2 error bodies, `/openapi.yaml` and `/docs`. Not generic, so that `register` types the',
          'options from it; use `cardApiFor<MyAuth>()` for handlers that receive your own auth type.',
          '',
          '@example',
          "await app.register(cardApi, { prefix: '/api/v1', handlers, authenticate: (token) => tokens.get(token) ?? null });",
        ].join('\n')),
      ],
      declarations: [{ name: 'cardApi', type: 'CardApiPlugin', initializer: '(instance, options) => plugin(instance, options)' }],
    },
    {
      kind: StructureKind.Function,
      name: 'cardApiFor',
      isExported: true,
      typeParameters: [{ name: 'Auth', constraint: 'AuthResult' }],
      returnType: 'CardApiPlugin<Auth>',
      docs: [
        [
          '`cardApi` typed for your own auth result: `authenticate` returns `Auth` and every handler receives it.',
          '',
          '@example',
          "await app.register(cardApiFor<SandboxAuth>(), { handlers, authenticate: (token) => auth.resolve(token) });",
        ].join('\n'),
      ],
      // The runtime treats the auth result opaquely, so the one plugin serves every Auth.
      statements: ['return cardApi as unknown as CardApiPlugin<Auth>;'],
    },
  ];
  return printFile(statements, { header: ctx.header });
}
