/** A Monday: the emulator's today, so week 2026-W47 (16–22 Nov) has just ended and W48 is the current week. */
export const DIGEST_TODAY = '2026-11-23';
export const LAST_WEEK = '2026-W47';
export const CURRENT_WEEK = '2026-W48';
