/**
 * The widget's styles, isolated in its shadow root. A constructed stylesheet (adoptedStyleSheets) is not an
 * inline style in CSP's sense, so it applies under `style-src 'self'`; a <style> element is the fallback for
 * browsers without constructable stylesheets (it needs the host page to allow inline styles).
 */
const CSS = `
:host { all: initial; position: fixed; right: 20px; bottom: 20px; z-index: 2147483000;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; }
[hidden] { display: none !important; }
:host([data-position="left"]) { right: auto; left: 20px; }
:host([data-position="left"]) .panel { right: auto; left: 0; }
:host([data-position="left"]) .bubble { margin-left: 0; }
button { font: inherit; cursor: pointer; }
button:focus-visible, textarea:focus-visible, .log:focus-visible { outline: 3px solid #f5a300; outline-offset: 2px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.bubble { width: 56px; height: 56px; border-radius: 50%; border: 0; background: var(--ap-primary, #1d4ed8); color: var(--ap-on-primary, #fff);
  box-shadow: 0 4px 14px rgba(0,0,0,.25); display: grid; place-items: center; margin-left: auto; }
.bubble svg { width: 28px; height: 28px; fill: currentColor; }
.panel { position: absolute; right: 0; bottom: 68px; width: min(380px, calc(100vw - 40px)); height: min(560px, calc(100vh - 110px));
  background: var(--ap-background, #fff); border-radius: 12px; box-shadow: 0 8px 30px rgba(0,0,0,.28); display: flex; flex-direction: column; overflow: hidden; }
header { display: flex; align-items: center; gap: 6px; padding: 10px 12px; background: var(--ap-primary, #1d4ed8); color: var(--ap-on-primary, #fff); }
header h2 { flex: 1; margin: 0; font-size: 16px; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
header button { background: transparent; color: var(--ap-on-primary, #fff); border: 1px solid rgba(255,255,255,.6); border-radius: 6px; padding: 3px 8px; font-size: 13px; }
.presence { padding: 6px 12px; background: #fff7e0; color: #5c3d00; font-size: 13px; border-bottom: 1px solid #f0dca8; }
.presence:empty { display: none; }
.history { flex: 1; overflow-y: auto; padding: 8px 12px; }
.history h3 { font-size: 14px; margin: 4px 0 8px; }
.history ul { list-style: none; margin: 0; padding: 0; }
.history li button { width: 100%; text-align: left; background: #f3f4f6; color: #1a1a1a; border: 1px solid #d1d5db; border-radius: 8px;
  padding: 8px 10px; margin-bottom: 6px; }
.history li button[aria-current="true"] { border-color: var(--ap-primary, #1d4ed8); }
.history small { display: block; color: #4b5563; }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 85%; padding: 8px 11px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--ap-primary, #1d4ed8); color: var(--ap-on-primary, #fff); border-bottom-right-radius: 3px; }
.msg.assistant { align-self: flex-start; background: #f1f3f5; color: #1a1a1a; border-bottom-left-radius: 3px; }
.msg.operator { align-self: flex-start; background: #e7f6ec; color: #0f3d20; border-bottom-left-radius: 3px; }
.who { display: block; font-size: 12px; font-weight: 600; margin-bottom: 2px; }
.msg.user .who { color: #e0e7ff; }
.files { font-size: 12px; margin-top: 4px; }
.sources { margin: 6px 0 0; padding-left: 18px; font-size: 12px; }
.sources a { color: #1e40af; }
.notice { margin: 0 12px 8px; padding: 8px 10px; border-radius: 8px; background: #fdecea; color: #7a1c12; font-size: 13px; }
.notice:empty { display: none; }
.pending { list-style: none; margin: 0; padding: 0 12px; display: flex; flex-wrap: wrap; gap: 6px; }
.pending li { background: #eef2ff; color: #1e3a8a; border-radius: 999px; padding: 2px 4px 2px 10px; font-size: 12px; }
.pending button { border: 0; background: transparent; color: #1e3a8a; padding: 0 6px; }
form { display: flex; align-items: flex-end; gap: 6px; padding: 10px 12px; border-top: 1px solid #e5e7eb; }
textarea { flex: 1; resize: none; font: inherit; padding: 8px; border: 1px solid #6b7280; border-radius: 8px; min-height: 44px; max-height: 120px; color: #1a1a1a; background: #fff; }
form button { border-radius: 8px; border: 1px solid var(--ap-primary, #1d4ed8); padding: 8px 10px; background: #fff; color: var(--ap-primary, #1d4ed8); }
form button.send { background: var(--ap-primary, #1d4ed8); color: var(--ap-on-primary, #fff); }
form button:disabled { opacity: .6; cursor: not-allowed; }
`;

export function applyStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet !== 'undefined' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = CSS;
  root.append(style);
}

/** The widget channel's `config.theme` (GET /api/public/agents/:slug `theme`); unknown keys are ignored. */
export interface WidgetTheme {
  /** Bubble, header, the visitor's messages and the send button. */
  primaryColor?: string;
  /** Text on the primary colour. */
  textColor?: string;
  /** The panel's background. */
  backgroundColor?: string;
  /** `left` or `right` (default) corner of the page. */
  position?: string;
}

const COLOURS: [keyof WidgetTheme, string][] = [
  ['primaryColor', '--ap-primary'],
  ['textColor', '--ap-on-primary'],
  ['backgroundColor', '--ap-background'],
];

/**
 * Applies a theme to the widget's host element: colours as custom properties the stylesheet reads (a value the
 * browser does not take for a colour is skipped, so nothing but a colour reaches the CSS), the corner as an
 * attribute. CSSOM property writes are not inline styles in CSP's sense.
 */
export function applyTheme(host: HTMLElement, theme: WidgetTheme | null | undefined): void {
  if (!theme || typeof theme !== 'object') return;
  for (const [key, property] of COLOURS) {
    const value = theme[key];
    if (typeof value !== 'string' || !value) continue;
    if (typeof window.CSS?.supports === 'function' && !window.CSS.supports('color', value)) continue;
    host.style.setProperty(property, value);
  }
  if (theme.position === 'left' || theme.position === 'right') host.setAttribute('data-position', theme.position);
}
