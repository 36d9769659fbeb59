/**
 * Email and page rendering: compiled MJML templates (and the full report's plain HTML template) filled by an escaping
 * templater (no mjml at run time).
 */
export { loadTemplate, TemplateMissingError, type TemplateName, templatesDir } from './compiled-templates.ts';
export { type RenderedEmail, renderDigestEmail } from './digest-email.ts';
export { renderDigestReport } from './digest-report.ts';
export { digestReportModel } from './digest-report-model.ts';
export {
  type FailureNoticeView,
  type MailEventNoticeView,
  type RenderedNotice,
  renderFailureNotice,
  renderMailEventNotice,
  renderUnknownDeliveryNotice,
  type UnknownDeliveryNoticeView,
} from './failure-notice.ts';
export { type CompiledTemplate, compileTemplate, escapeHtml, safeUrl, TemplateError } from './templater.ts';
