/** Email rendering: compiled MJML templates filled by an escaping templater (no mjml at run time). */
export { loadTemplate, TemplateMissingError, type TemplateName, templatesDir } from './compiled-templates.ts';
export { type RenderedEmail, renderDigestEmail } from './digest-email.ts';
export {
  type FailureNoticeView,
  type RenderedNotice,
  renderFailureNotice,
  renderUnknownDeliveryNotice,
  type UnknownDeliveryNoticeView,
} from './failure-notice.ts';
export { type CompiledTemplate, compileTemplate, escapeHtml, safeUrl, TemplateError } from './templater.ts';
