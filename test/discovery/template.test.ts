/**
 * The documents' templates render strictly: a name that the view does not
 * hold stops the render instead of publishing a blank or "undefined".
 */
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/discovery/template.ts';

describe('document templates', () => {
  it('fill placeholders and helpers from the view, without HTML escaping', () => {
    const render = compileTemplate<object>('{{issuer}} {{code path}} {{duration ttl}} {{codes list last=" and "}} {{json obj}} {{seconds ms}}');
    expect(render({ issuer: 'http://127.0.0.1:3000', path: '/a&b', ttl: 90, list: ['x', 'y', 'z'], obj: { a: '<b>' }, ms: 5000 })).toBe(
      'http://127.0.0.1:3000 `/a&b` 90 s (1 minute 30 seconds) `x`, `y` and `z` {"a":"<b>"} 5',
    );
  });

  it('take the branch the view chooses, false and 0 included', () => {
    const render = compileTemplate<object>('{{#if on}}on{{else}}off{{/if}}/{{#unless on}}no{{/unless}}');
    expect(render({ on: 1 })).toBe('on/');
    expect(render({ on: 0 })).toBe('off/no');
    expect(render({ on: false })).toBe('off/no');
  });

  it.each([
    ['a placeholder', '{{missing}}'],
    ['a nested placeholder', '{{config.missing}}'],
    ['a helper argument', 'x {{code missing}}'],
    ['a list helper argument', '{{codes missing}}'],
    ['an #if condition', '{{#if missing}}a{{else}}b{{/if}}'],
    ['an #unless condition', '{{#unless missing}}a{{/unless}}'],
  ])('refuse %s that names nothing in the view', (_what, text) => {
    expect(() => compileTemplate<object>(text)({ config: {} })).toThrow(/missing|not defined|names nothing/);
  });
});
