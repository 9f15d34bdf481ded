/**
 * The generated documents' prose lives in Markdown templates (Handlebars),
 * so it reads and diffs as Markdown; the figures and names in it are filled
 * in from the declarations and the live configuration.
 *
 * Rendering is strict: a placeholder, a helper argument or an `{{#if}}`
 * condition that names nothing in the view stops the render, so a renamed
 * setting cannot leave a blank or "undefined" in a published document.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Handlebars from 'handlebars';
import { code, duration, joinList } from './markdown.ts';

/** Handlebars passes each helper where it stands in the template, which its types leave out. */
type HelperOptions = Handlebars.HelperOptions & { loc?: { start: { line: number } } };

/** A helper's argument, refused when it names nothing in the view. */
function defined<T>(value: T | undefined, helper: string, options: HelperOptions): T {
  if (value === undefined) throw new Error(`template: {{${helper}}} at line ${options.loc?.start.line} names nothing in the view`);
  return value;
}

function engine(): typeof Handlebars {
  const hb = Handlebars.create();
  // {{#if}} and {{#unless}} on a missing value would quietly take a branch; strict mode does not cover them.
  for (const name of ['if', 'unless'] as const) {
    hb.registerHelper(name, function (this: unknown, condition: unknown, options: HelperOptions) {
      const truthy = Boolean(defined(condition, `#${name}`, options));
      return truthy === (name === 'if') ? options.fn(this) : options.inverse(this);
    });
  }
  hb.registerHelper('code', (text: unknown, options: HelperOptions) => code(String(defined(text, 'code', options))));
  hb.registerHelper('duration', (seconds: number, options: HelperOptions) => duration(defined(seconds, 'duration', options)));
  hb.registerHelper('seconds', (ms: number, options: HelperOptions) => String(defined(ms, 'seconds', options) / 1000));
  hb.registerHelper('json', (value: unknown, options: HelperOptions) => JSON.stringify(defined(value, 'json', options)));
  /** `{{codes list}}`: each as inline code, joined by `sep` (", "), the last by `last` (the same as sep). */
  hb.registerHelper('codes', (list: readonly unknown[], options: HelperOptions) => {
    const sep = (options.hash.sep as string | undefined) ?? ', ';
    return joinList(
      defined(list, 'codes', options).map((v) => code(String(v))),
      sep,
      (options.hash.last as string | undefined) ?? sep,
    );
  });
  return hb;
}

const HB = engine();

/** A template's text compiled once; the returned function renders it with a view. */
export function compileTemplate<View extends object>(text: string): (view: View) => string {
  const render = HB.compile<View>(text, { noEscape: true, strict: true });
  return (view) => render(view);
}

/**
 * The template the package exports as `lyceum/<name>` (package.json
 * "exports"), so the sources and the production bundle read the same file.
 */
export function loadTemplate<View extends object>(name: string): (view: View) => string {
  return compileTemplate(readFileSync(createRequire(import.meta.url).resolve(`lyceum/${name}`), 'utf8'));
}
