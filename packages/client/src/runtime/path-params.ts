// Copied by gen-card-api from templates/client/path-params.ts. Do not edit: change the template and run the generator.
/**
 * Path parameters that would send a request to another route. The runtime percent-encodes every path parameter
 * (`encodeURIComponent`, through openapi-fetch), which keeps `/`, `?` and `#` inside their segment, but no encoding
 * keeps `.` and `..` in theirs: RFC 3986 section 5.2.4 removes dot segments when a reference is resolved, section
 * 6.2.2.2 makes `%2E` the same character as `.`, and the WHATWG URL parser (Node's `URL`, `fetch`) treats `.`,
 * `%2e` and `..`, `.%2e`, `%2e.`, `%2e%2e` (any case) as dot segments. So `cards.get('..')` would be
 * `GET /api/v1/` and `cards.freeze('.')` would be `POST /api/v1/cards/freeze`. Encoding cannot fix that; refusing can.
 *
 * Refused, before any request: an empty value (the list route `/cards/`), a lone surrogate (`encodeURIComponent`
 * throws on it), `.` and `..`, and a value holding `/`,
 * `\` (a separator to the WHATWG parser in http URLs), `?` or `#`, or any of these once percent-decoded (`%2e%2e`,
 * `%2F`): some proxies and frameworks decode `%2F` and `%2e` before they route, and no identifier of the API holds
 * these characters, so refusing them costs nothing and spares the question of what the server does.
 */

const SEPARATOR = /[/\\?#]/;

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // A lone `%` is not an escape: the value is sent encoded as it is (`%25`).
    return value;
  }
}

/** Why `value` cannot be a path parameter (it would name another route), or null when it can. */
export function pathParameterProblem(value: string): string | null {
  if (value === '') return 'must not be empty';
  // With the `u` flag only a lone surrogate matches: it has no UTF-8 form, so it cannot be percent-encoded at all.
  if (/[\ud800-\udfff]/u.test(value)) return 'must be well-formed Unicode: it holds a lone surrogate, which has no percent-encoding';
  for (const form of new Set([value, decoded(value)])) {
    const shown = form === value ? JSON.stringify(value) : `${JSON.stringify(value)} (decoded ${JSON.stringify(form)})`;
    if (form === '.' || form === '..') return `must not be ${shown}: a dot segment, which URL parsers remove, so the request would go to another route`;
    if (SEPARATOR.test(form)) return `must not be ${shown}: it holds / \\ ? or #, which would end the path segment on a server that decodes before it routes`;
  }
  return null;
}
