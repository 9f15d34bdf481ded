import { CONSENT_DURATIONS, DEFAULT_CONSENT_DURATION } from '../../access/consent.ts';
import { html, type SafeHtml } from '../html.ts';

/**
 * The `duration` select of the consent page and of /account/apps' extend
 * form: every choice of CONSENT_DURATIONS, the default selected. `suffix`
 * follows each label ("from now" when extending).
 */
export function durationSelect(id: string, suffix = ''): SafeHtml {
  return html`<select id="${id}" name="duration">${CONSENT_DURATIONS.map((d) => html`<option value="${d.id}"${d.id === DEFAULT_CONSENT_DURATION ? html` selected` : ''}>${d.label}${suffix}</option>`)}</select>`;
}
