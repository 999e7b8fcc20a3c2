import { describe, expect, it } from 'vitest';
import { docsOutline } from './docs-outline.js';

describe('docsOutline', () => {
  it('keeps the document order, drops tags no operation uses, and lists webhooks apart', () => {
    const outline = docsOutline({
      info: { title: ' API ', version: '2.0.0', summary: 'Short.' },
      tags: [{ name: 'Zeta', description: 'Last by name, first here.' }, { name: 'Events only' }, { name: 'Alpha' }],
      paths: {
        '/z': { post: { tags: ['Zeta'], summary: 'Make a z', deprecated: true }, get: { tags: ['Zeta'], summary: 'Read a z' } },
        '/a': { parameters: [], get: { tags: ['Alpha', 'Zeta'], summary: 'Read an a' } },
        '/untagged': { delete: { summary: 'Remove' } },
      },
      webhooks: { 'thing.happened': { post: { tags: ['Events only'], summary: 'It happened' } } },
    });
    expect(outline).toEqual({
      title: 'API',
      version: '2.0.0',
      summary: 'Short.',
      tags: [
        {
          name: 'Zeta',
          description: 'Last by name, first here.',
          operations: [
            { method: 'POST', path: '/z', summary: 'Make a z', deprecated: true },
            { method: 'GET', path: '/z', summary: 'Read a z', deprecated: false },
            { method: 'GET', path: '/a', summary: 'Read an a', deprecated: false },
          ],
        },
        { name: 'Alpha', description: '', operations: [{ method: 'GET', path: '/a', summary: 'Read an a', deprecated: false }] },
        { name: 'default', description: '', operations: [{ method: 'DELETE', path: '/untagged', summary: 'Remove', deprecated: false }] },
      ],
      webhooks: [{ name: 'thing.happened', summary: 'It happened', deprecated: false }],
    });
  });

  it('reads a document without tags, paths or webhooks', () => {
    expect(docsOutline({ info: { title: 'Empty', version: '0' } })).toEqual({ title: 'Empty', version: '0', summary: '', tags: [], webhooks: [] });
  });
});
