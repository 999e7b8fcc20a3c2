/**
 * @redocly/openapi-core's run-time values, loaded through `require`: the package is CommonJS without a `type`
 * field, so importing it as ESM makes Node detect its module format and run cjs-module-lexer over its entry and
 * every module it re-exports before running it; `require` only runs it. Types come from `import type`.
 *
 * `#redocly` is a subpath import: the package itself in the checkout (the root package.json), and its one-file
 * bundle in the published CLI (packages/cli/package.json, built by scripts/build.ts `buildVendor`).
 */
import { createRequire } from 'node:module';
import type * as Redocly from '@redocly/openapi-core';

const redocly = createRequire(import.meta.url)('#redocly') as typeof Redocly;

export const { BaseResolver, bundle, createConfig, getLineColLocation, lint, loadConfig, parseYaml, Source, YamlParseError } = redocly;
export type BaseResolver = Redocly.BaseResolver;
export type Source = Redocly.Source;
export type YamlParseError = Redocly.YamlParseError;
