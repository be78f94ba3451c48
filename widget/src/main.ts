/**
 * Entry point of widget.js: `<script src="https://<platform>/widget.js" data-agent="<slug>" async></script>`.
 * The platform origin is where the script came from (or `data-platform`), so the host page needs no inline
 * script and no configuration object.
 */
import { mountWidget } from './widget';

function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.agent) return current;
  // currentScript is null inside a module or after a loader re-inserted the tag; the attribute still identifies it.
  return document.querySelector<HTMLScriptElement>('script[data-agent][src*="widget.js"]');
}

const script = ownScript();
const slug = script?.dataset.agent;
if (script && slug) {
  const platformOrigin = script.dataset.platform || new URL(script.src, location.href).origin;
  const start = () => mountWidget({ platformOrigin, slug, label: script.dataset.label });
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}
