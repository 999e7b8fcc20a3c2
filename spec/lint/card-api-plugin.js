// Redocly plugin: assertion functions for this API's own invariants, used by the configurable
// rules (`rule/...`) in redocly.yaml. Each function returns a list of problems; an empty list passes.

/** Follows a local `$ref` through the context's resolver, so rules see the referenced node. */
function deref(node, ctx) {
  let current = node;
  for (let hops = 0; current && typeof current === 'object' && '$ref' in current && hops < 20; hops += 1) {
    current = ctx.resolve(current).node;
  }
  return current;
}

/** Collects the properties of a schema, following `$ref` and `allOf` (the way events compose the envelope). */
function collectProperties(schema, ctx, out = new Map(), depth = 0) {
  const node = deref(schema, ctx);
  if (!node || typeof node !== 'object' || depth > 10) return out;
  for (const [name, value] of Object.entries(node.properties ?? {})) {
    const prop = deref(value, ctx);
    if (!out.has(name) || (prop && prop.const !== undefined)) out.set(name, prop);
  }
  for (const part of node.allOf ?? []) collectProperties(part, ctx, out, depth + 1);
  return out;
}

function hasParameter(parameters, options, ctx) {
  const list = Array.isArray(parameters) ? parameters : [];
  const found = list.some((p) => {
    const param = deref(p, ctx);
    return param && param.in === options.in && String(param.name).toLowerCase() === String(options.name).toLowerCase();
  });
  return found ? [] : [{ message: `must declare the ${options.in} parameter ${options.name}`, location: ctx.baseLocation }];
}

function responseSchemaRef(responses, options, ctx) {
  const response = deref(responses?.[options.status], ctx);
  if (!response) return [{ message: `must answer ${options.status}`, location: ctx.baseLocation }];
  const media = response.content?.['application/json'];
  const schema = deref(media?.schema, ctx);
  const data = schema?.properties?.data;
  const ref = data && typeof data === 'object' ? data.$ref : undefined;
  return ref === options.dataRef
    ? []
    : [{ message: `must answer ${options.status} with { data: ${options.dataRef} }`, location: ctx.baseLocation }];
}

function eventEnvelope(content, options, ctx) {
  const media = deref(content?.['application/json'], ctx);
  if (!media?.schema) return [{ message: 'the webhook body must be application/json with a schema', location: ctx.baseLocation }];
  const props = collectProperties(media.schema, ctx);
  const problems = [];
  for (const field of options.fields) {
    if (!props.has(field)) problems.push({ message: `the event body must have the envelope field \`${field}\``, location: ctx.baseLocation });
  }
  const event = props.get('event');
  if (event && typeof event.const !== 'string') {
    problems.push({ message: 'the envelope field `event` must be a `const` naming the event', location: ctx.baseLocation });
  }
  return problems;
}

export default function cardApiPlugin() {
  return {
    id: 'cardapi',
    assertions: {
      hasParameter,
      responseDataRef: responseSchemaRef,
      eventEnvelope,
    },
  };
}
