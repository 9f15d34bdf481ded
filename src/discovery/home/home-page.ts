import MarkdownIt from 'markdown-it';
import { html, SafeHtml } from '../../web/html.ts';
import { layout } from '../../web/layout.ts';
import type { AgentSnippet } from './agent-snippets.ts';

type Rec = Record<string, unknown>;

/**
 * Course descriptions are Markdown written by staff. Raw HTML in them is
 * shown as text (`html: false`) and links go only where markdown-it's
 * validateLink lets them (never javascript:, vbscript:, file: or data:).
 */
const markdown = new MarkdownIt({ html: false });

export interface CourseCard {
  course: Rec;
  price: string;
  sections: (Rec & { lessons: Rec[] })[];
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export const coursePath = (course: Rec) => `/courses/${encodeURIComponent(str(course.slug) || str(course.id))}`;

/** A course's sections and lessons, in order, as nested lists. */
function outline(sections: CourseCard['sections']): SafeHtml {
  if (sections.length === 0) return html`<p class="muted">No lessons yet.</p>`;
  return html`<ol class="outline">${sections.map(
    (s) =>
      html`<li>${str(s.title)}<ol>${s.lessons.map((l) => html`<li>${str(l.title)} <span class="muted">(${str(l.kind)}, ${String(l.duration_minutes ?? 0)} min${l.free_preview ? ', free preview' : ''})</span></li>`)}</ol></li>`,
  )}</ol>`;
}

const lessonCount = (sections: CourseCard['sections']) => sections.reduce((n, s) => n + s.lessons.length, 0);

function card(c: CourseCard): SafeHtml {
  return html`<li class="course">
<h3><a href="${coursePath(c.course)}">${str(c.course.title)}</a></h3>
${c.course.summary ? html`<p>${str(c.course.summary)}</p>` : ''}
<p class="muted">${str(c.course.level)} · ${c.price}</p>
<details><summary>Outline (${lessonCount(c.sections)} lessons)</summary>${outline(c.sections)}</details>
</li>`;
}

function snippet(s: AgentSnippet, i: number): SafeHtml {
  return html`<h3 id="agent-${i}">${s.client}</h3>
<p>${s.where}</p>
<pre aria-labelledby="agent-${i}"><code>${s.text}</code></pre>`;
}

export interface HomePage {
  school: { name: string; description: string | null };
  signedInAs?: string;
  courses: CourseCard[];
  moreCoursesHref?: string;
  mcpUrl: string;
  snippets: AgentSnippet[];
  documents: { href: string; label: string }[];
}

/** `/`: the school and its published courses, how to connect an agent, and the developer documents. */
export function homePage(p: HomePage): string {
  return layout(
    p.school.name,
    html`<h1>${p.school.name}</h1>
${p.school.description ? html`<p>${p.school.description}</p>` : ''}
${
  p.signedInAs
    ? html`<p>Signed in as <strong>${p.signedInAs}</strong>. <a href="/account/apps">Connected apps</a></p>`
    : html`<p><a href="/oauth/sign-in?return_to=%2Faccount%2Fapps">Sign in</a> to see the apps connected to your account.</p>`
}
<section aria-labelledby="courses"><h2 id="courses">Courses</h2>
${p.courses.length === 0 ? html`<p>No course is published yet.</p>` : html`<ul class="courses">${p.courses.map(card)}</ul>`}
${p.moreCoursesHref ? html`<p><a href="${p.moreCoursesHref}">More courses</a></p>` : ''}
</section>
<section aria-labelledby="connect"><h2 id="connect">Connect your agent</h2>
<p>This school's MCP server is <code>${p.mcpUrl}</code>. An agent reads the catalog without signing in; for more, it opens a sign-in where you choose what it may do and for how long.</p>
${p.snippets.map(snippet)}
</section>
<section aria-labelledby="developers"><h2 id="developers">For developers</h2>
<ul>${p.documents.map((d) => html`<li><a href="${d.href}">${d.label}</a></li>`)}</ul>
</section>`,
  );
}

/** `/courses/{slug}`: one published course with its outline. */
export function coursePage(c: CourseCard & { lecturers: string[] }): string {
  return layout(
    str(c.course.title),
    html`<p><a href="/">All courses</a></p>
<h1>${str(c.course.title)}</h1>
${c.course.summary ? html`<p>${str(c.course.summary)}</p>` : ''}
<p class="muted">${str(c.course.level)} · ${c.price}${c.lecturers.length ? html` · taught by ${c.lecturers.join(', ')}` : ''}</p>
${c.course.description ? html`<div class="description">${new SafeHtml(markdown.render(str(c.course.description)))}</div>` : ''}
<h2>Outline</h2>
${outline(c.sections)}`,
  );
}
