// Copied by gen-card-api from templates/webhooks/adapters.ts. Do not edit: change the template and run the generator.
/**
 * HTTP adapters entry (Node.js): serve a `createWebhookHandler` dispatcher from node:http, Express or
 * Fastify, each capturing the exact body bytes the signature covers.
 */
export {
  toExpressMiddleware,
  toNodeHandler,
  type NodeAdapterOptions,
  type NodeRequestLike,
  type NodeResponseLike,
  type NodeWebhookListener,
} from './adapters/node.js';
export { fastifyWebhookPlugin, type FastifyInstanceLike, type FastifyReplyLike, type FastifyWebhookOptions } from './adapters/fastify.js';
