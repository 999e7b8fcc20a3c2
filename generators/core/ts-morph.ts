/**
 * ts-morph's run-time values (the Structure kinds, the printer's Project), loaded through `require`. ts-morph is
 * CommonJS: importing it as ESM costs Node a syntax-detection pass and a cjs-module-lexer pass over its source
 * before running it (about 0.4 s of CPU on a cold start, measured from the installed CLI), `require` does
 * neither. Types come from `import type`, which loads nothing. Only the targets that print import this module.
 */
import { createRequire } from 'node:module';
import type * as TsMorph from 'ts-morph';

const tsMorph = createRequire(import.meta.url)('ts-morph') as typeof TsMorph;

export const { printStructure, Scope, StructureKind, VariableDeclarationKind } = tsMorph;
