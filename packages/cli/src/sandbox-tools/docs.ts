/**
 * The two documents `listen`, `trigger` and `events` work from: the public spec (its operations and its webhook
 * events) and the sandbox control document (its operations). Both go through the generators' model, so event
 * names, operations, parameters and schemas are the spec's; nothing here lists them. A request is checked
 * against its operation (parameters and body schema) before it is sent, by recipes and fixtures alike.
 */
import path from 'node:path';
import { ASSET_ROOT, CONTROL_SPEC, DEFAULT_SPEC } from '../../../../generators/core/assets.js';
import { loadModel } from '../../../../generators/model/index.js';
import type { ApiModel, OperationModel, ParameterModel } from '../../../../generators/model/model.js';
import { SchemaValidator } from '../verify/spec.js';
// The generated client's own check (its runtime template), so that the CLI and the client refuse the same values.
import { pathParameterProblem } from '../../../../templates/client/path-params.js';

/** The generators' `DEFAULT_SPEC` and `CONTROL_SPEC` (from core/assets.ts, which loads no target and no linter). */
export const API_SPEC_FILE = DEFAULT_SPEC;
export const CONTROL_SPEC_FILE = path.join(ASSET_ROOT, CONTROL_SPEC);

type Json = Record<string, any>;

/** Which document an operation belongs to: the public API (under the base URL) or the control API (at the origin). */
export type DocName = 'api' | 'control';

/** One operation of either document. */
export interface Operation {
  doc: DocName;
  model: OperationModel;
}

/** What a call passes: path and query parameters by name, and the JSON body. */
export interface RequestInput {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** Both documents, indexed for the commands. */
export interface Docs {
  api: ApiModel;
  control: ApiModel;
  /** Every webhook event code of the public spec, sorted. */
  events: string[];
  /** Every operationId of both documents, sorted. */
  operationIds: string[];
  operation(operationId: string): Operation | undefined;
  /** The operation that reads an order by uuid (`x-client.waiter`): how an asynchronous write is awaited. */
  orderReader(): Operation;
  /** Validates values against the schemas of one document. */
  validator(doc: DocName): SchemaValidator;
  /**
   * Problems of a request against its operation, one line each: unknown or missing parameters, parameter values
   * outside their schema, a body where none is taken, a missing required body, a body outside its schema.
   * `opaque` lists JSON pointers (`/body/amount`, `/path/uuid`) whose value is only known at run time (a
   * reference to an earlier step): their own schema errors are not reported, those of their parents are.
   */
  requestProblems(operation: Operation, input: RequestInput, opaque?: ReadonlySet<string>): string[];
}

let loaded: Promise<Docs> | undefined;

/** Loads both documents once per process. */
export function loadDocs(): Promise<Docs> {
  loaded ??= Promise.all([loadModel(API_SPEC_FILE), loadModel(CONTROL_SPEC_FILE)]).then(([api, control]) => indexDocs(api, control));
  return loaded;
}

/** Builds the index over two models (a test builds it from a modified spec). */
export function indexDocs(api: ApiModel, control: ApiModel): Docs {
  const operations = new Map<string, Operation>();
  for (const [doc, model] of [
    ['api', api],
    ['control', control],
  ] as const) {
    for (const op of model.operations) operations.set(op.operationId, { doc, model: op });
  }
  const validators = new Map<DocName, SchemaValidator>();
  const validator = (doc: DocName): SchemaValidator => {
    let v = validators.get(doc);
    if (!v) {
      v = new SchemaValidator((doc === 'api' ? api : control).document as Json);
      validators.set(doc, v);
    }
    return v;
  };

  const docs: Docs = {
    api,
    control,
    events: api.events.map((e) => e.name).sort(),
    operationIds: [...operations.keys()].sort(),
    operation: (id) => operations.get(id),
    orderReader() {
      const reader = api.operations.find((o) => o.waiter !== null && o.method === 'get' && o.pathParams.length === 1);
      if (!reader) throw new Error('the spec has no order-reading operation (an operation with x-client.waiter)');
      return { doc: 'api', model: reader };
    },
    validator,
    requestProblems(operation, input, opaque = new Set()) {
      const problems: string[] = [];
      const op = operation.model;
      const check = (where: 'path' | 'query', declared: ParameterModel[], given: Record<string, unknown> | undefined): void => {
        const values = given ?? {};
        for (const name of Object.keys(values)) {
          if (!declared.some((p) => p.name === name)) {
            const known = declared.map((p) => p.name);
            problems.push(`${where} parameter "${name}" is not a parameter of ${op.operationId}${known.length > 0 ? ` (its ${where} parameters: ${known.join(', ')})` : ` (it takes no ${where} parameters)`}`);
          }
        }
        for (const param of declared) {
          const value = values[param.name];
          if (value === undefined) {
            if (param.required) problems.push(`${where} parameter "${param.name}" is required`);
            continue;
          }
          if (opaque.has(`/${where}/${param.name}`)) continue;
          // A string schema allows `..`; the URL would then name another route (`/purchases/../capture` is `/capture`).
          const routeProblem = where === 'path' ? pathParameterProblem(String(value)) : null;
          if (routeProblem !== null) problems.push(`path parameter "${param.name}" ${routeProblem}`);
          for (const error of validator(operation.doc).errors(param.schema as Json, coerceParameter(param, value))) problems.push(`${where} parameter "${param.name}": ${error.replace(/^\/ /, '')}`);
        }
      };
      check('path', op.pathParams, input.path);
      check('query', op.queryParams, input.query);
      if (op.requestBody === null) {
        if (input.body !== undefined) problems.push(`${op.operationId} takes no request body`);
      } else if (input.body === undefined) {
        if (op.requestBody.required) problems.push(`${op.operationId} needs a request body`);
      } else {
        for (const error of validator(operation.doc).errors(op.requestBody.schema as Json, input.body)) {
          const at = error.slice(0, error.indexOf(' '));
          if ([...opaque].some((p) => p.startsWith('/body') && (at === p.slice(5) || at.startsWith(`${p.slice(5)}/`)))) continue;
          problems.push(`body${at === '/' ? '' : at}: ${error.slice(error.indexOf(' ') + 1)}`);
        }
      }
      return problems;
    },
  };
  return docs;
}

/** A path or query value as the schema sees it: URLs carry strings, so `"12"` is the integer 12 for an integer parameter. */
export function coerceParameter(param: ParameterModel, value: unknown): unknown {
  const type = (param.schema as Json).type;
  if ((type === 'integer' || type === 'number') && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}
