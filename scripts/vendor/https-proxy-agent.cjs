'use strict';
// What @redocly/openapi-core 1.x gets for `require('https-proxy-agent')` in gen-card-api's vendored bundle
// (scripts/build.ts `buildVendor`). Its one use is `new HttpsProxyAgent(proxy)` (lib/utils.js `getProxyAgent`),
// for a remote `$ref` fetched through HTTPS_PROXY; the real module is loaded then, not when the bundle loads: loading
// it eagerly pulls in node:tls, node:http and node:crypto, about 12 ms of every lint, diff and client run (none of
// which fetches through Redocly: the generators' own resolver reads every document).
class HttpsProxyAgent {
  constructor(...args) {
    const { HttpsProxyAgent: Agent } = require('https-proxy-agent');
    return new Agent(...args);
  }
}
exports.HttpsProxyAgent = HttpsProxyAgent;
