/* pako's stand-in in the Lambda bundles: src/charts/upng.ts gives upng-js Node's zlib, so nothing calls pako. */
module.exports = {};
