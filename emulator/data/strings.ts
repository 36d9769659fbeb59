/** String ordering shared by every listing the spec orders "by code point" (defined with the interface). */
export { compareCodePoints } from '../../src/api/code-point-order.ts';
