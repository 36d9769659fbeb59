/** String ordering shared by every listing the interface orders by code point (docs/interface.md "Listing order"). */
export { compareCodePoints } from '../../src/api/code-point-order.ts';
